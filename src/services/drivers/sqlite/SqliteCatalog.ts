// Reads of the SQLite catalog for list_tables, describe_table, get_table_ddl and search_schema (D-21).
import { tableReadings } from "../../../domain/TableReference.ts"
import type Database from "better-sqlite3"
import type {
  ColumnDescription,
  ForeignKeyDescription,
  IndexDescription,
  SchemaMatch,
  TableDescription,
  TableEntry
} from "../../../domain/SqlTable.ts"
import { quoteIdentifier } from "../BrowseSql.ts"
import type { ChildFailure } from "./Protocol.ts"

/** A failure the child reports with its kind (the driver maps it to its error classes). */
export class OpFailure extends Error {
  constructor(readonly failure: ChildFailure) {
    super(failure.kind)
  }
}

export interface TableRow {
  readonly name: string
  readonly type: "table" | "view"
  readonly sql: string | null
}

export interface ColumnRow {
  readonly name: string
  readonly type: string
  readonly notnull: number
  readonly dflt_value: string | null
  readonly pk: number
  readonly hidden: number
}

const USER_TABLES = "type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"

export const toJsonCount = (value: unknown): number => Number(value)

export const listTables = (db: Database.Database, includeRowCounts: boolean): Array<TableEntry> => {
  const tables = db.prepare(`SELECT name, type FROM sqlite_schema WHERE ${USER_TABLES} ORDER BY name`).all() as Array<
    TableRow
  >
  return tables.map((t) =>
    includeRowCounts && t.type === "table"
      ? { name: t.name, type: t.type, row_count: countAll(db, t.name) }
      : { name: t.name, type: t.type }
  )
}

export const describeTable = (db: Database.Database, name: string): TableDescription => {
  const table = findTable(db, name)
  const columns = columnRows(db, table.name)
  const approximate = statRowCount(db, table.name)
  const ddl = ddlOf(db, table)
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
    indexes: indexes(db, table.name),
    foreign_keys: foreignKeys(db, table.name),
    ...(ddl === "" ? {} : { ddl }),
    ...(approximate === undefined ? {} : { approximate_row_count: approximate })
  }
}

export const searchSchema = (db: Database.Database, term: string, limit: number): Array<SchemaMatch> => {
  const needle = term.toLowerCase()
  const matches: Array<SchemaMatch> = []
  const tables = db.prepare(`SELECT name, type FROM sqlite_schema WHERE ${USER_TABLES} ORDER BY name`).all() as Array<
    TableRow
  >
  for (const t of tables) {
    if (t.name.toLowerCase().includes(needle)) matches.push({ kind: "table", table: t.name, name: t.name })
  }
  for (const t of tables) {
    for (const c of columnRows(db, t.name)) {
      if (c.name.toLowerCase().includes(needle)) {
        matches.push({ kind: "column", table: t.name, name: c.name, data_type: c.type === "" ? "ANY" : c.type })
      }
    }
  }
  return matches.slice(0, limit)
}

/** A table of `main` by name, read as `tableReadings` reads it (`main.name`, any of SQLite's quotings, or as given). */
export const findTable = (db: Database.Database, name: string): TableRow => {
  const lookup = db.prepare(
    `SELECT name, type, sql FROM sqlite_schema WHERE ${USER_TABLES} AND name = ? COLLATE NOCASE`
  )
  for (const reading of tableReadings("sqlite", name)) {
    if (reading.schema !== undefined && reading.schema.toLowerCase() !== "main") continue
    const table = lookup.get(reading.name) as TableRow | undefined
    if (table !== undefined) return table
  }
  throw new OpFailure({ kind: "TableNotFound", table: name })
}

export const columnRows = (db: Database.Database, table: string): Array<ColumnRow> => {
  return (db.prepare("SELECT * FROM pragma_table_xinfo(?)").all(table) as Array<ColumnRow>).filter((c) =>
    c.hidden !== 1
  )
}

export const countAll = (db: Database.Database, table: string): number => {
  return toJsonCount(db.prepare(`SELECT count(*) FROM ${quoteIdentifier(table)}`).pluck().get())
}

export const statRowCount = (db: Database.Database, table: string): number | undefined => {
  const hasStat = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() !== undefined
  if (!hasStat) return undefined
  const stat = db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1").pluck().get(table) as
    | string
    | undefined
  const rows = stat === undefined ? NaN : Number.parseInt(stat, 10)
  return Number.isFinite(rows) ? rows : undefined
}

export const ddlOf = (db: Database.Database, table: TableRow): string => {
  const indexes = db.prepare(
    "SELECT sql FROM sqlite_schema WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL ORDER BY type, name"
  )
    .pluck().all(table.name) as Array<string>
  return [table.sql ?? "", ...indexes].filter((s) => s !== "").map((s) => `${s};`).join("\n")
}

export const indexes = (db: Database.Database, table: string): Array<IndexDescription> => {
  const list = db.prepare("SELECT name, \"unique\" AS is_unique, origin FROM pragma_index_list(?)").all(table) as Array<
    { name: string; is_unique: number; origin: string }
  >
  return list.map((index) => ({
    name: index.name,
    columns: db.prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno").pluck().all(index.name) as Array<
      string
    >,
    is_unique: index.is_unique === 1,
    is_primary: index.origin === "pk"
  }))
}

export const foreignKeys = (db: Database.Database, table: string): Array<ForeignKeyDescription> => {
  const rows = db.prepare("SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq").all(table) as Array<
    { id: number; table: string; from: string; to: string | null; on_update: string; on_delete: string }
  >
  const byId = new Map<number, Array<(typeof rows)[number]>>()
  for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row])
  return [...byId.values()].map((group) => {
    const first = group[0]!
    const referencedKey = columnRows(db, first.table).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk)
    return {
      columns: group.map((r) => r.from),
      referenced_table: first.table,
      referenced_columns: group.map((r, i) => r.to ?? referencedKey[i]?.name ?? ""),
      on_update: first.on_update,
      on_delete: first.on_delete
    }
  })
}
