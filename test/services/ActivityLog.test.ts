import { assert, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Layer, TestClock } from "effect"
import { statSync } from "node:fs"
import { join } from "node:path"
import { ACTIVITY_FIELDS } from "../../src/domain/Activity.ts"
import { ActivityLog, toCsv } from "../../src/services/ActivityLog.ts"
import { hashEntry } from "../../src/services/activity/ActivityChain.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { verifyActivityFile } from "../../src/cli/handlers/Activity.ts"
import { tempHome } from "../support/TestServer.ts"

const logLayer = (home: string) => ActivityLog.Default.pipe(Layer.provide(SupportPaths.layer(home)))

/** Writes `count` tool rows in one scope (closing it flushes the queue) and returns the db path. */
const writeRows = (home: string, count: number) =>
  Effect.scoped(
    Effect.gen(function*() {
      const log = yield* ActivityLog
      for (let i = 1; i <= count; i++) {
        yield* log.record({ category: "tool", action: "tool.call", subject: `call ${i}`, outcome: "success" })
      }
    }).pipe(Effect.provide(logLayer(home)))
  ).pipe(Effect.as(join(home, "activity.db")))

const tamper = (path: string, sql: (db: Database.Database) => void) => {
  const db = new Database(path)
  try {
    sql(db)
  } finally {
    db.close()
  }
}

const row = (db: Database.Database, seq: number) =>
  db.prepare("SELECT * FROM activity WHERE seq = ?").get(seq) as Record<string, unknown>

describe("activity log chain (D-51)", () => {
  it.effect("PD6 rows written at shutdown are all there, 0600, and the chain verifies", () =>
    Effect.gen(function*() {
      const path = yield* writeRows(tempHome(), 50)
      assert.strictEqual(statSync(path).mode & 0o777, 0o600)
      expect(yield* verifyActivityFile(path)).toEqual({ ok: true, rows: 50 })
    }))

  it.effect("PD6 an edited row is named", () =>
    Effect.gen(function*() {
      const path = yield* writeRows(tempHome(), 20)
      tamper(path, (db) => db.prepare("UPDATE activity SET outcome = 'error' WHERE seq = 7").run())
      expect(yield* verifyActivityFile(path)).toMatchObject({ ok: false, problem: "edited", seq: 7 })
    }))

  it.effect("PD6 an edited row whose hash was recomputed is named through the next row's link", () =>
    Effect.gen(function*() {
      const path = yield* writeRows(tempHome(), 20)
      tamper(path, (db) => {
        const original = row(db, 7)
        db.prepare("UPDATE activity SET subject = 'forged' WHERE seq = 7").run()
        const forged = { ...(Object.fromEntries(Object.entries(original))), subject: "forged" }
        const entry = toEntry(forged)
        db.prepare("UPDATE activity SET hash = ? WHERE seq = 7").run(hashEntry(entry))
      })
      expect(yield* verifyActivityFile(path)).toMatchObject({ ok: false, problem: "edited", seq: 7 })
    }))

  it.effect("PD6 a deleted row is named, in the middle and at the end", () =>
    Effect.gen(function*() {
      const middle = yield* writeRows(tempHome(), 20)
      tamper(middle, (db) => db.prepare("DELETE FROM activity WHERE seq = 12").run())
      expect(yield* verifyActivityFile(middle)).toMatchObject({ ok: false, problem: "deleted", seq: 12 })
      const last = yield* writeRows(tempHome(), 20)
      tamper(last, (db) => db.prepare("DELETE FROM activity WHERE seq = 20").run())
      expect(yield* verifyActivityFile(last)).toMatchObject({ ok: false, problem: "deleted", seq: 20 })
    }))

  it.effect("PD6 an inserted row is named, even when it is chained correctly", () =>
    Effect.gen(function*() {
      const path = yield* writeRows(tempHome(), 20)
      tamper(path, (db) => {
        const last = toEntry(row(db, 20))
        const forged = { ...last, seq: 21, subject: "forged", prevHash: last.hash }
        const entry = { ...forged, hash: hashEntry(forged) }
        insertEntry(db, entry)
      })
      expect(yield* verifyActivityFile(path)).toMatchObject({ ok: false, problem: "inserted", seq: 21 })
    }))

  it.effect("PD6 a row inserted in the middle (later rows renumbered) is named", () =>
    Effect.gen(function*() {
      const path = yield* writeRows(tempHome(), 10)
      tamper(path, (db) => {
        db.prepare("UPDATE activity SET seq = seq + 1000 WHERE seq >= 5").run()
        db.prepare("UPDATE activity SET seq = seq - 999 WHERE seq >= 1000").run()
        const before = toEntry(row(db, 4))
        const forged = { ...before, seq: 5, subject: "forged", prevHash: before.hash }
        insertEntry(db, { ...forged, hash: hashEntry(forged) })
        db.prepare("UPDATE meta SET seq = seq + 1 WHERE key = 'head'").run()
      })
      expect(yield* verifyActivityFile(path)).toMatchObject({ ok: false, problem: "inserted", seq: 5 })
    }))

  it.effect("PD6 pruning after 90 days keeps the chain verifiable from an anchor, and new rows continue it", () =>
    Effect.gen(function*() {
      const home = tempHome()
      yield* writeRows(home, 5)
      yield* TestClock.adjust("91 days")
      yield* writeRows(home, 3)
      const verdict = yield* verifyActivityFile(join(home, "activity.db"))
      expect(verdict).toEqual({ ok: true, rows: 3 })
      const seqs = yield* Effect.scoped(
        Effect.flatMap(ActivityLog, (log) => log.list({ limit: 10 })).pipe(Effect.provide(logLayer(home)))
      )
      expect(seqs.map((entry) => entry.seq)).toEqual([8, 7, 6])
    }))

  it.effect("PD6 list filters by category, token and client; CSV quotes and defuses formulas", () =>
    Effect.gen(function*() {
      const home = tempHome()
      const entries = yield* Effect.scoped(
        Effect.gen(function*() {
          const log = yield* ActivityLog
          yield* log.record({ category: "auth", action: "auth.failure", details: "reason=unknown_token" })
          yield* log.record({
            category: "tool",
            action: "tool.call",
            tokenId: "t1",
            clientName: "=HYPERLINK(\"x\")",
            subject: "a,b"
          })
          yield* log.record({ category: "tool", action: "tool.call", tokenId: "t2", clientName: "other" })
          yield* log.flush
          expect((yield* log.list({ category: "tool", limit: 10 })).length).toBe(2)
          expect((yield* log.list({ tokenId: "t2", limit: 10 })).map((entry) => entry.clientName)).toEqual(["other"])
          return yield* log.list({ client: "=HYPERLINK(\"x\")", limit: 10 })
        }).pipe(Effect.provide(logLayer(home)))
      )
      const csv = toCsv(entries).split("\r\n")
      assert.strictEqual(
        csv[0],
        "seq,at,category,action,outcome,tokenId,tokenName,clientName,clientVersion,clientTitle,address,connectionId,subject,durationMs,digest,details,traceparent,tracestate,baggage,prevHash,hash"
      )
      assert.include(csv[1], `"'=HYPERLINK(""x"")"`)
      assert.include(csv[1], `"a,b"`)
    }))
})

const insertEntry = (db: Database.Database, entry: ReturnType<typeof toEntry>) => {
  const columns = ACTIVITY_FIELDS.map((field) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`))
  db.prepare(`INSERT INTO activity (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).run(
    ...ACTIVITY_FIELDS.map((field) => entry[field])
  )
}

const toEntry = (raw: Record<string, unknown>) => ({
  seq: raw["seq"] as number,
  at: raw["at"] as string,
  category: raw["category"] as "tool",
  action: raw["action"] as string,
  outcome: (raw["outcome"] ?? null) as string | null,
  tokenId: (raw["token_id"] ?? null) as string | null,
  tokenName: (raw["token_name"] ?? null) as string | null,
  clientName: (raw["client_name"] ?? null) as string | null,
  clientVersion: (raw["client_version"] ?? null) as string | null,
  clientTitle: (raw["client_title"] ?? null) as string | null,
  address: (raw["address"] ?? null) as string | null,
  connectionId: (raw["connection_id"] ?? null) as string | null,
  subject: (raw["subject"] ?? null) as string | null,
  durationMs: (raw["duration_ms"] ?? null) as number | null,
  digest: (raw["digest"] ?? null) as string | null,
  details: (raw["details"] ?? null) as string | null,
  traceparent: (raw["traceparent"] ?? null) as string | null,
  tracestate: (raw["tracestate"] ?? null) as string | null,
  baggage: (raw["baggage"] ?? null) as string | null,
  prevHash: raw["prev_hash"] as string,
  hash: raw["hash"] as string
})
