import type Database from "better-sqlite3"
import type { ResultSet } from "../../../domain/ResultSet.ts"
import { toCell } from "../../../domain/SqlCell.ts"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../../../domain/SqlBrowse.ts"
import type { SchemaMatch, TableDescription, TableEntry } from "../../../domain/SqlTable.ts"
import { type BuildResult, buildBrowse, buildCount, quoteIdentifier } from "../BrowseSql.ts"
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

  browse(name: string, query: BrowseQuery): ResultSet {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildBrowse(table.name, known, query, () => "?"))
    return this.execute(built.sql, built.params, "readonly", query.limit ?? 500)
  }

  count(name: string, filters: ReadonlyArray<BrowseFilter>, logic: FilterLogic): RowCount {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildCount(table.name, known, filters, logic, () => "?"))
    const value = db.prepare(built.sql).pluck().get(...built.params.map(bindValue))
    return { row_count: Catalog.toJsonCount(value), is_approximate: false }
  }

  /** Runs one statement and keeps at most `maxRows` rows; one more row marks the result truncated. */
  execute(sql: string, params: ReadonlyArray<unknown>, access: StatementAccess, maxRows: number): ResultSet {
    const db = access === "readonly" ? this.handles.readonly() : this.handles.readwrite()
    const started = performance.now()
    const statement = db.prepare(sql).safeIntegers(true)
    const bound = params.map(bindValue)
    if (!statement.reader) {
      const info = statement.run(...bound)
      const affected = Number(info.changes)
      return {
        columns: [],
        rows: [],
        row_count: 0,
        rows_affected: affected,
        execution_time_ms: performance.now() - started,
        is_truncated: false,
        status_message: `${affected} row${affected === 1 ? "" : "s"} affected`
      }
    }
    const changesBefore = Number(db.prepare("SELECT total_changes()").pluck().get())
    statement.raw(true)
    const columns = statement.columns().map((c) => c.name)
    const rows: Array<Array<ReturnType<typeof toCell>>> = []
    let truncated = false
    for (const row of statement.iterate(...bound) as Iterable<Array<unknown>>) {
      if (rows.length >= maxRows) {
        truncated = true
        break
      }
      rows.push(row.map(toCell))
    }
    const affected = access === "readwrite" ? Number(db.prepare("SELECT total_changes()").pluck().get()) - changesBefore : 0
    return {
      columns,
      rows,
      row_count: rows.length,
      rows_affected: Math.max(0, affected),
      execution_time_ms: performance.now() - started,
      is_truncated: truncated,
      ...(truncated ? { status_message: `showing the first ${rows.length} rows` } : {})
    }
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
