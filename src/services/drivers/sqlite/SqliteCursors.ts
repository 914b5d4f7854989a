import Database from "better-sqlite3"
import { type AnswerHints, type AnswerLimits, SQL_HINTS } from "../../../domain/AnswerBudget.ts"
import { type AnswerVerdict, keptNames, projectRow, withheldError } from "../../../domain/AnswerGate.ts"
import { maskedCell } from "../../../domain/ColumnGuard.ts"
import { CursorPages, type PulledRows } from "../CursorPages.ts"
import type { AnswerGuard } from "../Driver.ts"
import { OpFailure } from "./SqliteCatalog.ts"
import { ROWS_EVERY_MS } from "./Protocol.ts"
import { SqliteGuard } from "./SqliteGuard.ts"
import { bindValue } from "./SqliteOps.ts"

interface Open {
  readonly db: Database.Database
  readonly rows: Iterator<Array<unknown>>
  readonly pages: CursorPages
  readonly verdict: Extract<AnswerVerdict, { readonly kind: "answer" }> | undefined
  readonly readsGuarded: boolean
}

/**
 * Held cursors of the SQLite child (fetch_more): each statement's iterator stays open on a read-only connection of
 * its own (the child's shared handle stays free for other requests) and is read page by page. While it is open the
 * connection keeps its read transaction, so every page sees the file as it was when the statement started (WAL: the
 * writers go on; rollback journal: a writer waits for it to close).
 */
export class SqliteCursors {
  private readonly open = new Map<number, Open>()
  private readonly guards = new SqliteGuard()
  /** One closed cursor's connection kept for the next, so a read that fits one answer does not open the file again. */
  private spare: Database.Database | undefined

  constructor(private readonly path: string) {}

  private connection(): Database.Database {
    const kept = this.spare
    this.spare = undefined
    if (kept !== undefined) return kept
    const db = new Database(this.path, { readonly: true, fileMustExist: true })
    db.pragma("query_only = ON")
    return db
  }

  /** Opens `sql` (a statement that returns rows, else `unsupported`) and answers its first page. */
  openCursor(
    id: number,
    sql: string,
    params: ReadonlyArray<unknown>,
    maxRows: number,
    limits: AnswerLimits | undefined,
    guard: AnswerGuard | undefined,
    hints: AnswerHints = SQL_HINTS,
    tellRows?: (rows: number) => void
  ) {
    const db = this.connection()
    try {
      const statement = db.prepare(sql).safeIntegers(true)
      if (!statement.reader) {
        this.release(db)
        return { unsupported: true as const }
      }
      statement.raw(true)
      const described = statement.columns()
      const guarded = guard === undefined ? undefined : this.guards.decide(db, guard, described)
      const verdict = guarded?.verdict
      if (verdict?.kind === "refuse") throw new OpFailure({ kind: "Policy", refusal: verdict.refusal })
      const names = described.map((column) => column.name)
      const rows = (statement.iterate(...params.map(bindValue)) as IterableIterator<Array<unknown>>)[Symbol.iterator]()
      const pages = new CursorPages({
        columns: () => (verdict === undefined ? names : keptNames(names, verdict.actions)),
        applied: () => verdict?.applied ?? [],
        pull: () => Promise.reject(new Error("the SQLite child reads its cursors synchronously"))
      }, hints)
      this.open.set(id, { db, rows, pages, verdict, readsGuarded: guarded?.readsGuarded === true })
    } catch (error) {
      this.release(db)
      throw error
    }
    return { page: this.page(id, maxRows, limits, tellRows) }
  }

  page(id: number, maxRows: number, limits: AnswerLimits | undefined, tellRows?: (rows: number) => void) {
    const entry = this.open.get(id)
    if (entry === undefined) {
      throw new OpFailure({
        kind: "Sql",
        message: "this open result was lost (the connection's SQLite process restarted); run the statement again"
      })
    }
    try {
      const wanted = entry.pages.wanted(maxRows)
      const page = entry.pages.assemble(maxRows, limits, wanted > 0 ? this.pull(entry, wanted, tellRows) : undefined)
      if (!page.more) this.closeCursor(id)
      return page
    } catch (error) {
      this.closeCursor(id)
      throw error
    }
  }

  private pull(entry: Open, count: number, tellRows: ((rows: number) => void) | undefined): PulledRows {
    const rows: Array<ReadonlyArray<unknown>> = []
    let told = performance.now()
    try {
      while (rows.length < count) {
        const next = entry.rows.next()
        if (next.done === true) return { rows, done: true }
        rows.push(entry.verdict === undefined ? next.value : projectRow(next.value, entry.verdict.actions, maskedCell))
        // D-94: the loop holds the child's thread, so it tells its rows itself, every ROWS_EVERY_MS at most.
        if (tellRows !== undefined && performance.now() - told >= ROWS_EVERY_MS) {
          told = performance.now()
          tellRows(rows.length)
        }
      }
    } catch (error) {
      // A value the AI settings protect may be quoted in the message; a lock keeps its own meaning for the driver.
      const code = (error as { code?: unknown }).code
      if (entry.readsGuarded && code !== "SQLITE_BUSY") {
        throw new OpFailure({ kind: "Sql", message: withheldError(typeof code === "string" ? code : undefined) })
      }
      throw error
    }
    return { rows, done: false }
  }

  closeCursor(id: number): null {
    const entry = this.open.get(id)
    if (entry === undefined) return null
    this.open.delete(id)
    entry.rows.return?.()
    this.release(entry.db)
    return null
  }

  private release(db: Database.Database): void {
    if (this.spare === undefined && db.open && !db.inTransaction) this.spare = db
    else db.close()
  }

  closeAll(): void {
    for (const id of [...this.open.keys()]) this.closeCursor(id)
    this.spare?.close()
    this.spare = undefined
  }
}
