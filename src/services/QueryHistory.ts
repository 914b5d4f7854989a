import Database from "better-sqlite3"
import { Clock, Data, Effect, Runtime } from "effect"
import { capCell } from "../domain/SqlCell.ts"
import { openPrivateDatabase } from "./PrivateDatabase.ts"
import { SettingsStore } from "./Settings.ts"
import { SupportPaths } from "./SupportPaths.ts"

export type HistoryOutcome = "success" | "error" | "denied" | "cancelled" | "timeout"
export type HistorySource = "mcp" | "ui"

/** One statement run on a connection (D-48). */
export interface HistoryEntry {
  readonly connectionId: string
  readonly text: string
  readonly durationMs: number
  readonly rowCount: number | null
  readonly outcome: HistoryOutcome
  readonly source: HistorySource
}

export interface StoredHistoryEntry extends HistoryEntry {
  readonly id: number
  readonly executedAt: string
}

export class HistoryStoreError extends Data.TaggedError("HistoryStoreError")<{ readonly cause: unknown }> {
  override get message(): string {
    return `The query history (history.db) could not be used: ${
      this.cause instanceof Error ? this.cause.message : String(this.cause)
    }`
  }
}

/** Entries kept per connection; older ones are pruned on insert (the product decisions set no bound). */
export const HISTORY_KEPT_PER_CONNECTION = 1_000
export const HISTORY_LIMIT = { default: 50, max: 500 } as const
/**
 * Bytes of a statement's text the history keeps (a statement may be up to the 10 MB body limit); a longer one is kept
 * cut with dbdesk's marker giving its full length, so history.db stays within about 64 MiB per connection.
 */
export const HISTORY_TEXT_MAX_BYTES = 65_536

interface Row {
  readonly id: number
  readonly connection_id: string
  readonly text: string
  readonly executed_at: string
  readonly duration_ms: number
  readonly row_count: number | null
  readonly outcome: HistoryOutcome
  readonly source: HistorySource
}

/** history.db is the user's own data: created 0600 before SQLite opens it (D-48). */
const openPrivate = (path: string): Database.Database => {
  const db = openPrivateDatabase(path)
  db.exec(`
    CREATE TABLE IF NOT EXISTS history (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      connection_id TEXT NOT NULL,
      text TEXT NOT NULL,
      executed_at TEXT NOT NULL,
      duration_ms REAL NOT NULL,
      row_count INTEGER,
      outcome TEXT NOT NULL,
      source TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS history_by_connection ON history (connection_id, id DESC);
  `)
  return db
}

/**
 * How long a recorded entry waits for others before they are written together (real time: it only delays the
 * write, never a call). Reading the history writes what is waiting first; a clean stop writes it too, so only a
 * crash within this window can lose entries (the history is a convenience, not the audit log).
 */
export const HISTORY_BATCH_LINGER_MS = 25

type PendingEntry = readonly [
  connectionId: string,
  text: string,
  executedAt: string,
  durationMs: number,
  rowCount: number | null,
  outcome: HistoryOutcome,
  source: HistorySource
]

/**
 * The local query history (`history.db`): statements run from MCP when `mcp.logQueries` is on and
 * from the UI console, with text, duration, row count, outcome and source (D-48).
 * Entries are written in batches off the call's path (D-80: one transaction per call cost ~0.2 ms of it).
 */
export class QueryHistory extends Effect.Service<QueryHistory>()("dbdesk/services/QueryHistory", {
  scoped: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const settings = yield* SettingsStore
    const runtime = yield* Effect.runtime<never>()
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => openPrivate(paths.history), catch: (cause) => new HistoryStoreError({ cause }) }),
      (db) => Effect.sync(() => db.close())
    )
    const insert = db.prepare(
      "INSERT INTO history (connection_id, text, executed_at, duration_ms, row_count, outcome, source) VALUES (?, ?, ?, ?, ?, ?, ?)"
    )
    const prune = db.prepare(
      "DELETE FROM history WHERE connection_id = ? AND id <= (SELECT id FROM history WHERE connection_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)"
    )
    const select = db.prepare("SELECT * FROM history WHERE connection_id = ? ORDER BY id DESC LIMIT ?")
    const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: (cause) => new HistoryStoreError({ cause }) })

    let pending: Array<PendingEntry> = []
    let timer: NodeJS.Timeout | undefined
    const writeBatch = db.transaction((batch: ReadonlyArray<PendingEntry>) => {
      for (const row of batch) insert.run(...row)
      for (const connectionId of new Set(batch.map((row) => row[0]))) {
        prune.run(connectionId, connectionId, HISTORY_KEPT_PER_CONNECTION)
      }
    })
    /** Writes every waiting entry now, in one transaction. */
    const flush = (): void => {
      clearTimeout(timer)
      timer = undefined
      if (pending.length === 0) return
      const batch = pending
      pending = []
      writeBatch(batch)
    }
    const flushLater = () => {
      try {
        flush()
      } catch (cause) {
        Runtime.runFork(runtime)(
          Effect.logWarning("history.db: entries could not be written", new HistoryStoreError({ cause }))
        )
      }
    }
    yield* Effect.addFinalizer(() => Effect.sync(flushLater))

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    /**
     * Records one statement. MCP statements are kept only while `mcp.logQueries` is on (product-decisions
     * §4.4); returns whether the entry was kept.
     */
    const record = Effect.fnUntraced(function*(entry: HistoryEntry) {
      if (entry.source === "mcp" && !settings.now().mcp.logQueries) return false
      const executedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      const text = String(
        capCell(entry.text, HISTORY_TEXT_MAX_BYTES, "the history keeps the start of long statements").cell
      )
      pending.push([
        entry.connectionId,
        text,
        executedAt,
        entry.durationMs,
        entry.rowCount,
        entry.outcome,
        entry.source
      ])
      timer ??= setTimeout(flushLater, HISTORY_BATCH_LINGER_MS)
      return true
    })

    /** The last `limit` entries of a connection, newest first. */
    const recent = Effect.fn("QueryHistory.recent")(
      function*(connectionId: string, limit: number = HISTORY_LIMIT.default) {
        yield* attempt(flush)
        const rows = yield* attempt(() =>
          select.all(connectionId, Math.max(1, Math.min(HISTORY_LIMIT.max, limit))) as Array<Row>
        )
        return rows.map((row): StoredHistoryEntry => ({
          id: row.id,
          connectionId: row.connection_id,
          text: row.text,
          executedAt: row.executed_at,
          durationMs: row.duration_ms,
          rowCount: row.row_count,
          outcome: row.outcome,
          source: row.source
        }))
      }
    )

    return { record, recent } as const
  })
}) {}
