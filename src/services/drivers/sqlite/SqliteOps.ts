import type Database from "better-sqlite3"
import {
  type AnswerHints,
  AnswerBudget,
  type AnswerLimits,
  BROWSE_HINTS,
  DEFAULT_ANSWER_LIMITS,
  SQL_HINTS
} from "../../../domain/AnswerBudget.ts"
import type { FilterLogic, GridFilter, GridQuery } from "../../../domain/SqlBrowse.ts"
import type { SchemaMatch, TableDescription, TableEntry } from "../../../domain/SqlTable.ts"
import type { StructureDetails } from "../../../domain/TableStructure.ts"
import { type BuildResult, buildBrowse, buildBrowseText, buildCount, quoteIdentifier } from "../BrowseSql.ts"
import { keptNames, projectRow, withheldError, withheldRows } from "../../../domain/AnswerGate.ts"
import { maskedCell } from "../../../domain/ColumnGuard.ts"
import type {
  AnswerGuard,
  GuardedResultSet,
  InsertResult,
  RowCount,
  StatementAccess,
  TransactionOutcome,
  TransactionStatement
} from "../Driver.ts"
import { rowCountMismatch } from "../RowCountMismatch.ts"
import * as Catalog from "./SqliteCatalog.ts"
import { OpFailure } from "./SqliteCatalog.ts"
import { SqliteGuard } from "./SqliteGuard.ts"
import { structureDetails } from "./SqliteStructure.ts"

export { OpFailure } from "./SqliteCatalog.ts"

export interface SqliteHandles {
  readonly readonly: () => Database.Database
  readonly readwrite: () => Database.Database
}

export const bindValue = (value: unknown): unknown =>
  typeof value === "boolean"
    ? (value ? 1 : 0)
    : value !== null && typeof value === "object" && !(value instanceof Uint8Array)
    ? JSON.stringify(value)
    : value

/** The database work of the SQLite child, synchronous by design: it runs in the child process only. */
export class SqliteOps {
  private readonly guards = new SqliteGuard()

  constructor(private readonly handles: SqliteHandles) {}

  listTables(includeRowCounts: boolean): Array<TableEntry> {
    return Catalog.listTables(this.handles.readonly(), includeRowCounts)
  }

  resolveTable(name: string): string {
    return Catalog.findTable(this.handles.readonly(), name).name
  }

  describeTable(name: string): TableDescription {
    return Catalog.describeTable(this.handles.readonly(), name)
  }

  structureDetails(name: string): StructureDetails {
    return structureDetails(this.handles.readonly(), name)
  }

  searchSchema(term: string, limit: number): Array<SchemaMatch> {
    return Catalog.searchSchema(this.handles.readonly(), term, limit)
  }

  status(): { status: "connected"; server_version: string } {
    const row = this.handles.readonly().prepare("SELECT sqlite_version() AS v").get() as { v: string }
    return { status: "connected", server_version: `SQLite ${row.v}` }
  }

  browse(
    name: string,
    query: GridQuery,
    limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
    guard?: AnswerGuard
  ): GuardedResultSet {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildBrowse(table.name, known, query, () => "?"))
    return this.execute(built.sql, built.params, "readonly", query.limit ?? 500, limits, BROWSE_HINTS, guard)
  }

  /** browse_table's statement with no LIMIT of its own, for a held cursor (fetch_more). */
  browseStatement(name: string, query: GridQuery): { readonly sql: string; readonly params: ReadonlyArray<unknown> } {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildBrowse(table.name, known, { ...query, limit: 2 ** 52 }, () => "?"))
    return { sql: built.sql, params: built.params }
  }

  /** The page `browse` reads, as console SQL (D-87). */
  browseText(name: string, query: GridQuery): string {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    return this.unwrap(buildBrowseText(table.name, known, query)).sql
  }

  count(name: string, filters: ReadonlyArray<GridFilter>, logic: FilterLogic): RowCount {
    const db = this.handles.readonly()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildCount(table.name, known, filters, logic, () => "?"))
    const value = db.prepare(built.sql).pluck().get(...built.params.map(bindValue))
    return { row_count: Catalog.toJsonCount(value), is_approximate: false }
  }

  /**
   * Runs one statement and keeps at most `maxRows` rows within the byte caps of `limits` (AnswerBudget); reading
   * stops at the first row the answer cannot take, so a huge table costs what the answer costs. Under a guard
   * (D-65) the answer is decided from the prepared statement's column origins before it runs.
   */
  execute(
    sql: string,
    params: ReadonlyArray<unknown>,
    access: StatementAccess,
    maxRows: number,
    limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
    hints: AnswerHints = SQL_HINTS,
    guard?: AnswerGuard,
    columnTypes = false
  ): GuardedResultSet {
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
    // A read-only handle changes nothing: only a writing reader (INSERT … RETURNING) counts its changes.
    const totalChanges = () => (access === "readwrite" ? Number(db.prepare("SELECT total_changes()").pluck().get()) : 0)
    const changesBefore = totalChanges()
    statement.raw(true)
    const described = statement.columns()
    const guarded = guard === undefined ? undefined : this.guards.decide(db, guard, described)
    const verdict = guarded?.verdict
    if (verdict?.kind === "refuse" && access === "readonly") {
      throw new OpFailure({ kind: "Policy", refusal: verdict.refusal })
    }
    const names = described.map((c) => c.name)
    const columns = budget.header(
      verdict?.kind === "answer" ? keptNames(names, verdict.actions) : verdict === undefined ? names : []
    )
    try {
      for (const row of statement.iterate(...bound) as Iterable<Array<unknown>>) {
        if (verdict?.kind === "refuse") continue
        if (!budget.add(verdict === undefined ? row : projectRow(row, verdict.actions, maskedCell))) break
      }
    } catch (error) {
      // A value may be quoted in the message (D-64); a lock keeps its own meaning for the driver.
      const code = (error as { code?: unknown }).code
      if (guarded?.readsGuarded === true && code !== "SQLITE_BUSY") {
        throw new OpFailure({ kind: "Sql", message: withheldError(typeof code === "string" ? code : undefined) })
      }
      throw error
    }
    const affected = totalChanges() - changesBefore
    const resultSet = budget.resultSet(columns, {
      executionMs: performance.now() - started,
      rowsAffected: Math.max(0, affected)
    })
    if (verdict?.kind === "refuse") return withheldRows(resultSet, verdict.refusal)
    // the declared type of a table's column; an expression has none in SQLite
    if (verdict === undefined && columnTypes) {
      return {
        ...resultSet,
        columnTypes: described.map((column) => column.type ?? "")
      }
    }
    return verdict === undefined || verdict.applied.length === 0
      ? resultSet
      : { ...resultSet, applied: verdict.applied }
  }

  insertRows(name: string, columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>): InsertResult {
    const db = this.handles.readwrite()
    const table = Catalog.findTable(db, name)
    const known = Catalog.columnRows(db, table.name).map((c) => c.name)
    const unknown = columns.filter((c) => !known.includes(c))
    if (unknown.length > 0) {
      throw new OpFailure({
        kind: "InvalidArgument",
        message: `unknown column "${unknown[0]}"; the table has: ${known.join(", ")}`
      })
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

  /** The grid's Save (D-86): every statement under its own savepoint, committed only when all succeeded. */
  transaction(statements: ReadonlyArray<TransactionStatement>): TransactionOutcome {
    const db = this.handles.readwrite()
    const results: Array<TransactionOutcome["results"][number]> = []
    db.exec("BEGIN")
    try {
      for (const statement of statements) {
        db.exec("SAVEPOINT dbdesk_edit")
        let outcome: TransactionOutcome["results"][number]
        try {
          const changes = Number(db.prepare(statement.sql).run().changes)
          outcome = statement.expectRows === undefined || changes === statement.expectRows
            ? { rowsAffected: changes, error: null }
            : { rowsAffected: changes, error: rowCountMismatch(statement.expectRows, changes) }
        } catch (error) {
          outcome = { rowsAffected: null, error: error instanceof Error ? error.message : String(error) }
        }
        if (outcome.error !== null) db.exec("ROLLBACK TO dbdesk_edit")
        db.exec("RELEASE dbdesk_edit")
        results.push(outcome)
      }
      const committed = results.every((result) => result.error === null)
      db.exec(committed ? "COMMIT" : "ROLLBACK")
      return { committed, results }
    } finally {
      if (db.inTransaction) db.exec("ROLLBACK")
    }
  }

  private unwrap(result: BuildResult) {
    if (!result.ok) throw new OpFailure({ kind: "InvalidArgument", message: result.message })
    return result.value
  }
}
