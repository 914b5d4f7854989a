import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { DriverPool } from "../../../src/services/drivers/DriverPool.ts"
import type { SqliteDriver } from "../../../src/services/drivers/SqliteDriver.ts"
import { ensureSampleDatabase } from "../../../src/services/SampleDatabase.ts"

const dir = mkdtempSync(join(tmpdir(), "dbdesk-pool-"))
const first = join(dir, "first.db")
const second = join(dir, "second.db")
Effect.runSync(ensureSampleDatabase(first))
copyFileSync(first, second)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const read = { maxRows: 10, timeoutSeconds: 30, access: "readonly" } as const
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const eventually = (predicate: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400 && !predicate(); i++) yield* Effect.sleep("25 millis")
    assert.isTrue(predicate())
  })

describe("DriverPool", () => {
  it.live("opens one driver per connection lazily, reopens on changed settings, closes all with its scope", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(DriverPool.Default, scope)
      const pool = Effect.provide(DriverPool, context)
      const a = yield* Effect.flatMap(pool, (p) => p.get("conn-a", { type: "sqlite", path: first }))
      const again = yield* Effect.flatMap(pool, (p) => p.get("conn-a", { type: "sqlite", path: first }))
      assert.strictEqual(a, again)
      yield* a.execute("SELECT 1", read)
      const oldPid = (a as SqliteDriver).childPid()!
      const moved = yield* Effect.flatMap(pool, (p) => p.get("conn-a", { type: "sqlite", path: second }))
      assert.notStrictEqual(moved, a)
      yield* eventually(() => !isAlive(oldPid))
      const b = yield* Effect.flatMap(pool, (p) => p.get("conn-b", { type: "sqlite", path: first }))
      yield* Effect.all([moved.execute("SELECT 1", read), b.execute("SELECT 1", read)], { concurrency: 2 })
      const pids = [(moved as SqliteDriver).childPid()!, (b as SqliteDriver).childPid()!]
      assert.notStrictEqual(pids[0], pids[1])
      yield* Scope.close(scope, Exit.void)
      yield* eventually(() => pids.every((pid) => !isAlive(pid)))
    }))
})
