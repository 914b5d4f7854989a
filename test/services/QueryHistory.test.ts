import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { statSync } from "node:fs"
import { join } from "node:path"
import { HISTORY_KEPT_PER_CONNECTION, HISTORY_TEXT_MAX_BYTES, QueryHistory } from "../../src/services/QueryHistory.ts"
import { SettingsOverrides, SettingsStore } from "../../src/services/Settings.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { tempHome } from "../support/TestServer.ts"

const historyIn = (home: string, logQueries = true) =>
  QueryHistory.Default.pipe(
    Layer.provide(SettingsStore.Default),
    Layer.provide(Layer.succeed(SettingsOverrides, { mcp: { logQueries } })),
    Layer.provide(SupportPaths.layer(home))
  )

const entry = (text: string, source: "mcp" | "ui" = "mcp") =>
  ({ connectionId: "c1", text, durationMs: 1.5, rowCount: 3, outcome: "success", source }) as const

describe("QueryHistory (D-48)", () => {
  it.scoped("C4.4-a history.db is the user's own data: created 0600, entries newest first per connection, limit honoured", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const history = yield* QueryHistory
      yield* history.record(entry("SELECT 1"))
      yield* history.record(entry("SELECT 2", "ui"))
      yield* history.record({ ...entry("DELETE FROM t"), connectionId: "c2", outcome: "denied", rowCount: null })
      for (const file of ["history.db", "history.db-wal", "history.db-shm"]) {
        assert.strictEqual(statSync(join(home, file)).mode & 0o777, 0o600)
      }
      const recent = yield* history.recent("c1", 1)
      assert.deepStrictEqual(recent.map((item) => [item.text, item.source, item.rowCount, item.durationMs]), [[
        "SELECT 2",
        "ui",
        3,
        1.5
      ]])
      assert.deepStrictEqual((yield* history.recent("c2")).map((item) => [item.text, item.outcome, item.rowCount]), [[
        "DELETE FROM t",
        "denied",
        null
      ]])
      assert.strictEqual((yield* history.recent("c1")).length, 2)
    }).pipe(Effect.provide(historyIn(home)))
  })

  it.scoped("C4.4-a with mcp.logQueries off, MCP statements are not kept but UI console ones are", () =>
    Effect.gen(function*() {
      const history = yield* QueryHistory
      assert.isFalse(yield* history.record(entry("SELECT secret")))
      assert.isTrue(yield* history.record(entry("SELECT 1", "ui")))
      assert.deepStrictEqual((yield* history.recent("c1")).map((item) => item.text), ["SELECT 1"])
    }).pipe(Effect.provide(historyIn(tempHome(), false))))

  it.scoped("C4.4-a a connection keeps its last 1000 entries; older ones are pruned", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const history = yield* QueryHistory
      for (let index = 0; index < HISTORY_KEPT_PER_CONNECTION + 5; index++) {
        yield* history.record(entry(`SELECT ${index}`))
      }
      yield* history.record({ ...entry("other"), connectionId: "c2" })
      const kept = yield* history.recent("c1", 500)
      assert.strictEqual(kept[0]?.text, `SELECT ${HISTORY_KEPT_PER_CONNECTION + 4}`)
      assert.strictEqual(kept.length, 500)
      const db = new Database(join(home, "history.db"), { readonly: true })
      const counts = db.prepare(
        "SELECT connection_id, COUNT(*) AS n, MIN(text) AS oldest FROM history GROUP BY connection_id ORDER BY connection_id"
      ).all()
      db.close()
      assert.deepStrictEqual(counts, [
        { connection_id: "c1", n: HISTORY_KEPT_PER_CONNECTION, oldest: "SELECT 10" },
        { connection_id: "c2", n: 1, oldest: "other" }
      ])
    }).pipe(Effect.provide(historyIn(home)))
  })

  it.scoped("a statement longer than 64 KiB is kept cut with its full length, so the history stays bounded (D-39)", () =>
    Effect.gen(function*() {
      const history = yield* QueryHistory
      const text = `SELECT '${"q".repeat(100_000)}'`
      yield* history.record(entry(text, "ui"))
      const [kept] = yield* history.recent("c1")
      assert.strictEqual(HISTORY_TEXT_MAX_BYTES, 65_536)
      assert.strictEqual(
        kept?.text,
        `${
          text.slice(0, 65_536)
        } …[cut by dbdesk: 100009 bytes, first 65536 shown; the history keeps the start of long statements]`
      )
    }).pipe(Effect.provide(historyIn(tempHome()))))
})
