import Database from "better-sqlite3"
import { openPrivateDatabase } from "../PrivateDatabase.ts"
import { ACTIVITY_FIELDS, type ActivityEntry, type ActivityQuery } from "../../domain/Activity.ts"
import { type ChainAnchor, chainBatch, type ChainHead, GENESIS } from "./ActivityChain.ts"

const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
const COLUMNS = ACTIVITY_FIELDS.map(columnOf)

type Row = Record<string, string | number | null>

const toEntry = (row: Row): ActivityEntry =>
  Object.fromEntries(ACTIVITY_FIELDS.map((field) => [field, row[columnOf(field)] ?? null])) as unknown as ActivityEntry

export type Unchained = Omit<ActivityEntry, "seq" | "prevHash" | "hash">

/** The filtered rows, newest first (the UI's filters and `dbdesk activity list`). */
const selectActivity = (db: Database.Database, filter: ActivityQuery): ReadonlyArray<ActivityEntry> => {
  const where: Array<string> = []
  const args: Array<string | number> = []
  const add = (clause: string, ...values: Array<string>) => {
    where.push(clause)
    args.push(...values)
  }
  if (filter.since !== undefined) add("at >= ?", filter.since)
  if (filter.until !== undefined) add("at < ?", filter.until)
  if (filter.category !== undefined) add("category = ?", filter.category)
  if (filter.tokenId !== undefined) add("token_id = ?", filter.tokenId)
  if (filter.client !== undefined) add("(client_name = ? OR client_title = ?)", filter.client, filter.client)
  const sql = `SELECT * FROM activity ${
    where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`
  } ORDER BY seq DESC LIMIT ?`
  return (db.prepare(sql).all(...args, filter.limit) as Array<Row>).map(toEntry)
}

/**
 * `activity.db` (D-7, D-51): created 0600 before SQLite opens it; WAL so readers
 * (the UI, `dbdesk activity`) never block the writer. `meta` holds the chain's anchor (the last
 * pruned row) and head (the last written row).
 */
export const openActivityStore = (path: string) => {
  const db = openPrivateDatabase(path)
  db.exec(`
    CREATE TABLE IF NOT EXISTS activity (
      seq INTEGER PRIMARY KEY, at TEXT NOT NULL, category TEXT NOT NULL, action TEXT NOT NULL, outcome TEXT,
      token_id TEXT, token_name TEXT, client_name TEXT, client_version TEXT, client_title TEXT, address TEXT,
      connection_id TEXT, subject TEXT, duration_ms REAL, digest TEXT, details TEXT,
      traceparent TEXT, tracestate TEXT, baggage TEXT, prev_hash TEXT NOT NULL, hash TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS activity_at ON activity (at);
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL);
  `)
  const insert = db.prepare(
    `INSERT INTO activity (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`
  )
  const setMeta = db.prepare(
    "INSERT INTO meta (key, seq, hash) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET seq = excluded.seq, hash = excluded.hash"
  )
  const getMeta = db.prepare("SELECT seq, hash FROM meta WHERE key = ?")

  const meta = (key: "anchor" | "head"): ChainAnchor | undefined => getMeta.get(key) as ChainAnchor | undefined
  const last = (): ChainHead => {
    const row = db.prepare("SELECT seq, hash FROM activity ORDER BY seq DESC LIMIT 1").get() as ChainHead | undefined
    return row ?? meta("anchor") ?? GENESIS
  }
  // Continue from the recorded head, so a last row deleted while the server was stopped stays a gap.
  let tail = meta("head") ?? last()

  // Plain function types: the published .d.ts (tsconfig.build.json) cannot name better-sqlite3's Transaction.
  const writeBatch: (batch: ReadonlyArray<Unchained>) => ReadonlyArray<ActivityEntry> = db.transaction(
    (batch: ReadonlyArray<Unchained>): ReadonlyArray<ActivityEntry> => {
      const written = chainBatch(tail, batch)
      for (const entry of written) insert.run(...ACTIVITY_FIELDS.map((field) => entry[field]))
      const last = written.at(-1)
      if (last !== undefined) setMeta.run("head", last.seq, last.hash)
      return written
    }
  )

  /**
   * Chains and writes one batch in a single transaction; returns the rows as stored. The chain's tail moves only once
   * the transaction has committed: a batch refused at COMMIT (a full disk) leaves no gap for the next one (D-88).
   */
  const append = (batch: ReadonlyArray<Unchained>): ReadonlyArray<ActivityEntry> => {
    const written = writeBatch(batch)
    const last = written[written.length - 1]
    if (last !== undefined) tail = { seq: last.seq, hash: last.hash }
    return written
  }

  /** D-51: drops the oldest rows and anchors the chain at the last one dropped. */
  const prune: (cutoffIso: string) => number = db.transaction((cutoffIso: string): number => {
    const edge = db.prepare("SELECT seq, hash FROM activity WHERE at < ? ORDER BY seq DESC LIMIT 1").get(cutoffIso) as
      | ChainAnchor
      | undefined
    if (edge === undefined) return 0
    const removed = db.prepare("DELETE FROM activity WHERE seq <= ?").run(edge.seq).changes
    setMeta.run("anchor", edge.seq, edge.hash)
    return removed
  })

  const all = (): ReadonlyArray<ActivityEntry> =>
    (db.prepare("SELECT * FROM activity ORDER BY seq").all() as Array<Row>).map(toEntry)

  const query = (filter: ActivityQuery): ReadonlyArray<ActivityEntry> => selectActivity(db, filter)

  return {
    append,
    prune,
    all,
    query,
    anchor: () => meta("anchor") ?? GENESIS,
    head: () => meta("head"),
    close: (): void => {
      db.close()
    }
  } as const
}

export type ActivityStore = ReturnType<typeof openActivityStore>

/** Filtered rows of an existing log, opened read-only (`dbdesk activity list|export`; never creates or repairs it). */
export const queryActivityLog = (path: string, filter: ActivityQuery): ReadonlyArray<ActivityEntry> => {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    return selectActivity(db, filter)
  } finally {
    db.close()
  }
}

/** Opens an existing log read-only for `dbdesk activity verify` (never creates or repairs it). */
export const readActivityLog = (path: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const rows = (db.prepare("SELECT * FROM activity ORDER BY seq").all() as Array<Row>).map(toEntry)
    const meta = (key: string) =>
      db.prepare("SELECT seq, hash FROM meta WHERE key = ?").get(key) as ChainAnchor | undefined
    return { rows, anchor: meta("anchor") ?? GENESIS, head: meta("head") }
  } finally {
    db.close()
  }
}
