import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { makeSqliteDriver, type SqliteDriver } from "../../../src/services/drivers/SqliteDriver.ts"
import { ensureSampleDatabase } from "../../../src/services/SampleDatabase.ts"

const dir = mkdtempSync(join(tmpdir(), "dbdesk-sqlite-cancel-"))
const path = join(dir, "sample.db")
Effect.runSync(ensureSampleDatabase(path))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ENDLESS_CTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
const read = { maxRows: 500, timeoutSeconds: 30, access: "readonly" } as const

const driverFor = (secrets: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(makeSqliteDriver({ path, secrets }), (driver) => driver.close())

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Polls until the predicate holds, at most 400 times 25 ms apart (a cap, not a timing assertion). */
const eventually = (predicate: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      if (predicate()) return
      yield* Effect.sleep("25 millis")
    }
    assert.fail(`never happened: ${what}`)
  })

/** Starts the endless CTE and returns once the child process that runs it is up and has been sent it. */
const startEndless = (driver: SqliteDriver) =>
  Effect.gen(function*() {
    yield* driver.execute("SELECT 1", read)
    const pid = driver.childPid()
    assert.isDefined(pid)
    const fiber = yield* Effect.fork(driver.execute(ENDLESS_CTE, read))
    yield* Effect.sleep("100 millis")
    return { fiber, pid: pid }
  })

describe("SqliteDriver cancellation", () => {
  it.scopedLive("interrupting a running statement kills the child; the next query runs on a fresh child", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor()
      const { fiber, pid } = yield* startEndless(driver)
      assert.isTrue(isAlive(pid))
      yield* Fiber.interrupt(fiber)
      yield* eventually(() => !isAlive(pid), `child ${pid} gone`)
      const next = yield* driver.execute("SELECT count(*) FROM customers", read)
      assert.isAbove(next.rows[0]?.[0] as number, 0)
      const fresh = driver.childPid()
      assert.isDefined(fresh)
      assert.notStrictEqual(fresh, pid)
    }))

  it.scopedLive("the statement deadline fails StatementTimeout with its seconds and kills the child", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor()
      yield* driver.execute("SELECT 1", read)
      const pid = driver.childPid()!
      const error = yield* Effect.flip(driver.execute(ENDLESS_CTE, { ...read, timeoutSeconds: 1 }))
      expect(error).toEqual(expect.objectContaining({ _tag: "StatementTimeout", seconds: 1 }))
      yield* eventually(() => !isAlive(pid), `child ${pid} gone`)
      const next = yield* driver.execute("SELECT 2 AS two", read)
      expect(next.rows).toEqual([[2]])
    }))

  it.scopedLive("while the statement runs, an independent Effect on the main event loop completes first", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor()
      const completed: Array<string> = []
      const { fiber } = yield* startEndless(driver)
      const watched = fiber.pipe(
        Fiber.join,
        Effect.ensuring(Effect.sync(() => completed.push("statement"))),
        Effect.fork
      )
      const watcher = yield* watched
      yield* Effect.async<void>((resume) => {
        setImmediate(() => resume(Effect.void))
      }).pipe(Effect.zipRight(Effect.sleep("20 millis")))
      completed.push("event loop")
      yield* Fiber.interrupt(fiber)
      yield* Fiber.await(watcher)
      expect(completed).toEqual(["event loop", "statement"])
    }))

  it.scopedLive("a child that dies on its own is replaced on the next request", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor()
      yield* driver.execute("SELECT 1", read)
      const pid = driver.childPid()!
      process.kill(pid, "SIGKILL")
      yield* eventually(() => driver.childPid() === undefined, "the driver notices the exit")
      const next = yield* driver.execute("SELECT 3", read)
      expect(next.rows).toEqual([[3]])
      assert.notStrictEqual(driver.childPid(), pid)
    }))

  it.scopedLive("close ends the child process", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor()
      yield* driver.execute("SELECT 1", read)
      const pid = driver.childPid()!
      yield* driver.close()
      yield* eventually(() => !isAlive(pid), `child ${pid} gone`)
      assert.isUndefined(driver.childPid())
    }))

  it.scopedLive("C7.2-b a driver error echoing a configured secret comes out without it", () =>
    Effect.gen(function*() {
      const secret = "s3cr3t P@ss/wörd"
      const driver = yield* driverFor([secret])
      const error = yield* Effect.flip(driver.execute(`SELECT * FROM "${secret}"`, read))
      assert.strictEqual(error._tag, "DriverError")
      if (error._tag !== "DriverError") return
      assert.include(error.message, "no such table")
      assert.notInclude(error.message, secret)
      assert.include(error.message, "[redacted]")
      const encoded = yield* Effect.flip(driver.execute(`SELECT * FROM "${encodeURIComponent(secret)}"`, read))
      assert.notInclude(encoded._tag === "DriverError" ? encoded.message : "", encodeURIComponent(secret))
    }))
})
