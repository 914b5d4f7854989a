import type Database from "better-sqlite3"
import type { ResultSet } from "../../../domain/ResultSet.ts"
import { toCell } from "../../../domain/SqlCell.ts"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../../../domain/SqlBrowse.ts"
import type {
  ColumnDescription,
  ForeignKeyDescription,
  IndexDescription,
  SchemaMatch,
  TableDescription,
  TableEntry
} from "../../../domain/SqlTable.ts"
import { type BuildResult, buildBrowse, buildCount, quoteIdentifier } from "../BrowseSql.ts"
import type { InsertResult, RowCount, StatementAccess } from "../Driver.ts"
import type { ChildFailure } from "./Protocol.ts"

/** A failure the child reports with its kind (the driver maps it to its error classes). */
export class OpFailure extends Error {
  constructor(readonly failure: ChildFailure) {
    super(failure.kind)
  }
}

export interface SqliteHandles {
  readonly readonly: () => Database.Database
  readonly readwrite: () => Database.Database
}

interface TableRow {
  readonly name: string
  readonly type: "table" | "view"
  readonly sql: string | null
}

interface ColumnRow {
  readonly name: string
  readonly type: string
  readonly notnull: number
  readonly dflt_value: string | null
  readonly pk: number
  readonly hidden: number
}

const USER_TABLES = "type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"

const toJsonCount = (value: unknown): number => Number(value)

const bindValue = (value: unknown): unknown =>
  typeof value === "boolean"
    ? (value ? 1 : 0)
    : value !== null && typeof value === "object" && !(value instanceof Uint8Array)
    ? JSON.stringify(value)
    : value

/** The database work of the SQLite child, synchronous by design: it runs in the child process only. */
export class SqliteOps {
  constructor(private readonly handles: SqliteHandles) {}

  status(): { status: "connected"; server_version: string } {
    const row = this.handles.readonly().prepare("SELECT sqlite_version() AS v").get() as { v: string }
    return { status: "connected", server_version: `SQLite ${row.v}` }
  }

  listTables(includeRowCounts: boolean): Array<TableEntry> {
    const db = this.handles.readonly()
    const tables = db.prepare(`SELECT name, type FROM sqlite_schema WHERE ${USER_TABLES} ORDER BY name`).all() as Array<
      TableRow
    >
    return tables.map((t) =>
      includeRowCounts && t.type === "table"
        ? { name: t.name, type: t.type, row_count: this.countAll(db, t.name) }
        : { name: t.name, type: t.type }
    )
  }

  describeTable(name: string): TableDescription {
    const db = this.handles.readonly()
    const table = this.findTable(db, name)
    const columns = this.columnRows(db, table.name)
    const approximate = this.statRowCount(db, table.name)
    const ddl = this.ddlOf(db, table)
    return {
      table: table.name,
      columns: columns.map((c): ColumnDescription => ({
        name: c.name,
        data_type: c.type === "" ? "ANY" : c.type,
        is_nullable: c.notnull === 0 && c.pk === 0,
        is_primary_key: c.pk > 0,
        ...(c.dflt_value === null ? {} : { default_value: c.dflt_value }),
        is_sortable: true
      })),
      indexes: this.indexes(db, table.name),
      foreign_keys: this.foreignKeys(db, table.name),
      ...(ddl === "" ? {} : { ddl }),
      ...(approximate === undefined ? {} : { approximate_row_count: approximate })
    }
  }

  searchSchema(term: string, limit: number): Array<SchemaMatch> {
    const db = this.handles.readonly()
    const needle = term.toLowerCase()
    const matches: Array<SchemaMatch> = []
    const tables = db.prepare(`SELECT name, type FROM sqlite_schema WHERE ${USER_TABLES} ORDER BY name`).all() as Array<
      TableRow
    >
    for (const t of tables) {
      if (t.name.toLowerCase().includes(needle)) matches.push({ kind: "table", table: t.name, name: t.name })
    }
    for (const t of tables) {
      for (const c of this.columnRows(db, t.name)) {
        if (c.name.toLowerCase().includes(needle)) {
          matches.push({ kind: "column", table: t.name, name: c.name, data_type: c.type === "" ? "ANY" : c.type })
        }
      }
    }
    return matches.slice(0, limit)
  }

  browse(name: string, query: BrowseQuery): ResultSet {
    const db = this.handles.readonly()
    const table = this.findTable(db, name)
    const known = this.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildBrowse(table.name, known, query, () => "?"))
    return this.execute(built.sql, built.params, "readonly", query.limit ?? 500)
  }

  count(name: string, filters: ReadonlyArray<BrowseFilter>, logic: FilterLogic): RowCount {
    const db = this.handles.readonly()
    const table = this.findTable(db, name)
    const known = this.columnRows(db, table.name).map((c) => c.name)
    const built = this.unwrap(buildCount(table.name, known, filters, logic, () => "?"))
    const value = db.prepare(built.sql).pluck().get(...built.params.map(bindValue))
    return { row_count: toJsonCount(value), is_approximate: false }
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
    const table = this.findTable(db, name)
    const known = this.columnRows(db, table.name).map((c) => c.name)
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

  private findTable(db: Database.Database, name: string): TableRow {
    const table = db.prepare(`SELECT name, type, sql FROM sqlite_schema WHERE ${USER_TABLES} AND name = ? COLLATE NOCASE`)
      .get(name) as TableRow | undefined
    if (table === undefined) throw new OpFailure({ kind: "TableNotFound", table: name })
    return table
  }

  private columnRows(db: Database.Database, table: string): Array<ColumnRow> {
    return (db.prepare("SELECT * FROM pragma_table_xinfo(?)").all(table) as Array<ColumnRow>).filter((c) => c.hidden !== 1)
  }

  private countAll(db: Database.Database, table: string): number {
    return toJsonCount(db.prepare(`SELECT count(*) FROM ${quoteIdentifier(table)}`).pluck().get())
  }

  private statRowCount(db: Database.Database, table: string): number | undefined {
    const hasStat = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() !== undefined
    if (!hasStat) return undefined
    const stat = db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1").pluck().get(table) as
      | string
      | undefined
    const rows = stat === undefined ? NaN : Number.parseInt(stat, 10)
    return Number.isFinite(rows) ? rows : undefined
  }

  private ddlOf(db: Database.Database, table: TableRow): string {
    const indexes = db.prepare("SELECT sql FROM sqlite_schema WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL ORDER BY type, name")
      .pluck().all(table.name) as Array<string>
    return [table.sql ?? "", ...indexes].filter((s) => s !== "").map((s) => `${s};`).join("\n")
  }

  private indexes(db: Database.Database, table: string): Array<IndexDescription> {
    const list = db.prepare("SELECT name, \"unique\" AS is_unique, origin FROM pragma_index_list(?)").all(table) as Array<
      { name: string; is_unique: number; origin: string }
    >
    return list.map((index) => ({
      name: index.name,
      columns: db.prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno").pluck().all(index.name) as Array<string>,
      is_unique: index.is_unique === 1,
      is_primary: index.origin === "pk"
    }))
  }

  private foreignKeys(db: Database.Database, table: string): Array<ForeignKeyDescription> {
    const rows = db.prepare("SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq").all(table) as Array<
      { id: number; table: string; from: string; to: string | null; on_update: string; on_delete: string }
    >
    const byId = new Map<number, Array<(typeof rows)[number]>>()
    for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row])
    return [...byId.values()].map((group) => {
      const first = group[0]!
      const referencedKey = this.columnRows(db, first.table).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk)
      return {
        columns: group.map((r) => r.from),
        referenced_table: first.table,
        referenced_columns: group.map((r, i) => r.to ?? referencedKey[i]?.name ?? ""),
        on_update: first.on_update,
        on_delete: first.on_delete
      }
    })
  }
}
