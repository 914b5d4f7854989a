import type Database from "better-sqlite3"
import { type AnswerHints, AnswerBudget, type AnswerLimits, BROWSE_HINTS, DEFAULT_ANSWER_LIMITS, SQL_HINTS } from "../../../domain/AnswerBudget.ts"
import type { ResultSet } from "../../../domain/ResultSet.ts"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../../../domain/SqlBrowse.ts"
import type { SchemaMatch, TableDescription, TableEntry } from "../../../domain/SqlTable.ts"
import { type BuildResult, buildBrowse, buildBrowseText, buildCount, quoteIdentifier } from "../BrowseSql.ts"
import type { InsertResult, RowCount, StatementAccess } from "../Driver.ts"
import * as Catalog from "./SqliteCatalog.ts"
import { OpFailure } from "./SqliteCatalog.ts"

export { OpFailure } from "./SqliteCatalog.ts"

export interface SqliteHandles {
  readonly readonly: () => Database.Database
  readonly readwrite: () => Database.Database
}

const bindValue = (value: unknown): unknown =>
  typeof value === "boolean"
    ? (value ? 1 : 0)
    : value !== null && typeof value === "object" && !(value instanceof Uint8Array)
    ? JSON.stringify(value)
    : value

/** The database work of the SQLite child, synchronous by design: it runs in the child process only. */
export class SqliteOps {
  constructor(private readonly handles: SqliteHandles) {}

  listTables(includeRowCounts: boolean): Array<TableEntry> {
    return Catalog.listTables(this.handles.readonly(), includeRowCounts)
  }

  describeTable(name: string): TableDescription {
    return Catalog.describeTable(this.handles.readonly(), name)
  }

  searchSchema(term: string, limit: number): Array<SchemaMatch> {
    return Catalog.searchSchema(this.handles.readonly(), term, limit)
  }

  status(): { status: "connected"; server_version: string } {
    const row = this.handles.readonly().prepare("SELECT sqlite_version() AS v").get() as { v: string }
    return { status: "connected", server_version: `SQLite ${row.v}` }
  }

  browse(name: string, query: BrowseQuery, limits: AnswerLimits = DEFAULT_ANSWER_LIMITS): ResultSet {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildBrowse(table.name, known, query, () => "?"))
    return this.execute(built.sql, built.params, "readonly", query.limit ?? 500, limits, BROWSE_HINTS)
  }

  /** The page `browse` reads, as console SQL (issue 28 item 2). */
  browseText(name: string, query: BrowseQuery): string {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    return this.unwrap(buildBrowseText(table.name, known, query)).sql
  }

  count(name: string, filters: ReadonlyArray<BrowseFilter>, logic: FilterLogic): RowCount {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildCount(table.name, known, filters, logic, () => "?"))
    const value = db.prepare(built.sql).pluck().get(...built.params.map(bindValue))
    return { row_count: Catalog.toJsonCount(value), is_approximate: false }
  }

  /**
   * Runs one statement and keeps at most `maxRows` rows within the byte caps of `limits` (AnswerBudget); reading
   * stops at the first row the answer cannot take, so a huge table costs what the answer costs.
   */
  execute(
    sql: string,
    params: ReadonlyArray<unknown>,
    access: StatementAccess,
    maxRows: number,
    limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
    hints: AnswerHints = SQL_HINTS
  ): ResultSet {
    const db = access === "readonly" ? this.handles.readonly() : this.handles.readwrite()
    const started = performance.now()
    const statement = db.prepare(sql).safeIntegers(true)
    const bound = params.map(bindValue)
    const budget = new AnswerBudget(maxRows, limits, hints)
    if (!statement.reader) {
      const affected = Number(statement.run(...bound).changes)
      return budget.resultSet([], {
        executionMs: performance.now() - started,
        rowsAffected: affected,
        statusMessage: `${affected} row${affected === 1 ? "" : "s"} affected`
      })
    }
    const changesBefore = Number(db.prepare("SELECT total_changes()").pluck().get())
    statement.raw(true)
    const columns = budget.header(statement.columns().map((c) => c.name))
    for (const row of statement.iterate(...bound) as Iterable<Array<unknown>>) if (!budget.add(row)) break
    const affected = access === "readwrite" ? Number(db.prepare("SELECT total_changes()").pluck().get()) - changesBefore : 0
    return budget.resultSet(columns, { executionMs: performance.now() - started, rowsAffected: Math.max(0, affected) })
  }

  insertRows(name: string, columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>): InsertResult {
    const db = this.handles.readwrite()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const unknown = columns.filter((c) => !known.includes(c))
    if (unknown.length > 0) {
      throw new OpFailure({ kind: "InvalidArgument", message: `unknown column "${unknown[0]}"; the table has: ${known.join(", ")}` })
    }
    const insert = db.prepare(
      `INSERT INTO ${quoteIdentifier(table.name)} (${columns.map(quoteIdentifier).join(", ")}) VALUES (${
        columns.map(() => "?").join(", ")
      })`
    )
    const failed: Array<{ index: number; error: string }> = []
    let affected = 0
    db.transaction(() => {
      rows.forEach((row, index) => {
        if (row.length !== columns.length) {
          failed.push({ index, error: `expected ${columns.length} values, got ${row.length}` })
          return
        }
        try {
          affected += insert.run(...row.map(bindValue)).changes
        } catch (error) {
          failed.push({ index, error: error instanceof Error ? error.message : String(error) })
        }
      })
    })()
    return { rows_affected: affected, failed_rows: failed }
  }

  private unwrap(result: BuildResult) {
    if (!result.ok) throw new OpFailure({ kind: "InvalidArgument", message: result.message })
    return result.value
  }
}
