// Reads of information_schema for list_databases, list_tables, describe_table, get_table_ddl and search_schema on
// MySQL and MariaDB (D-75). Every function runs inside `START TRANSACTION READ ONLY` in the selected database.
import type {
  ColumnDescription,
  ForeignKeyDescription,
  IndexDescription,
  SchemaMatch,
  TableDescription,
  TableEntry
} from "../../../domain/SqlTable.ts"
import { tableReadings } from "../../../domain/TableReference.ts"
import type { Session } from "./MysqlRunner.ts"

export const quoteName = (name: string): string => `\`${name.replace(/`/g, "``")}\``

const SYSTEM_DATABASES = "('information_schema', 'performance_schema', 'mysql', 'sys')"

export interface ResolvedTable {
  readonly database: string
  readonly name: string
  readonly type: string
  readonly rows: number | null
}

export const qualifiedName = (table: ResolvedTable): string => `${quoteName(table.database)}.${quoteName(table.name)}`

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

export const listDatabases = async (session: Session): Promise<Array<string>> => {
  const outcome = await session.query(
    `SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN ${SYSTEM_DATABASES} ORDER BY 1`
  )
  return outcome.rows.map((row) => String(row[0]))
}

/** MySQL 8 caches table statistics for a day by default; the estimates should be today's. */
const freshStatistics = (session: Session) =>
  session.flavor === "mysql"
    ? session.query("SET SESSION information_schema_stats_expiry = 0")
    : Promise.resolve(undefined)

/** Tables and views of the selected database; row counts are the engine's estimates, never `COUNT(*)` per table. */
export const listTables = async (session: Session, includeRowCounts: boolean): Promise<Array<TableEntry>> => {
  if (includeRowCounts) await freshStatistics(session)
  const outcome = await session.query(
    "SELECT TABLE_NAME, TABLE_TYPE, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME"
  )
  return outcome.rows.map((row) => {
    const type = /VIEW/.test(String(row[1])) ? "view" as const : "table" as const
    const rows = row[2] === null ? undefined : Number(row[2])
    return includeRowCounts && type === "table" && rows !== undefined
      ? { name: String(row[0]), type, row_count: rows }
      : { name: String(row[0]), type }
  })
}

/**
 * A table by name, read as `tableReadings` reads it (the one reading the table gate decides on): in the selected
 * database `current`, or `db.name` in any quoting for another database the account may read; with `exact`, the stored
 * name in `current`, as resolved before. The database is always a parameter: MariaDB keeps the value DATABASE() had
 * when a statement was prepared, so a cached lookup would search the database of an earlier call.
 */
export const findTable = async (
  session: Session,
  table: string,
  current: string,
  exact?: boolean
): Promise<ResolvedTable | undefined> => {
  for (const reading of tableReadings("mysql", table, exact === true ? current : undefined, exact)) {
    const { rows } = await session.query(
      "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
      [reading.schema ?? current, reading.name]
    )
    const row = rows[0]
    if (row !== undefined) {
      return {
        database: String(row[0]),
        name: String(row[1]),
        type: String(row[2]),
        rows: row[3] === null ? null : Number(row[3])
      }
    }
  }
  return undefined
}

export const columnNames = async (session: Session, table: ResolvedTable): Promise<Array<string>> =>
  (await session.query(
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
    [table.database, table.name]
  )).rows.map((row) => String(row[0]))

/** Types MySQL cannot order meaningfully (JSON documents, geometries). */
const UNSORTABLE =
  /^(json|geometry|point|linestring|polygon|multipoint|multilinestring|multipolygon|geometrycollection)$/i

/** MariaDB writes a default as an SQL expression ('text', NULL); MySQL as the bare value. */
const defaultOf = (value: unknown): string | undefined => {
  const raw = text(value)
  return raw === null || raw === "NULL" ? undefined : raw
}

const columns = async (session: Session, table: ResolvedTable): Promise<Array<ColumnDescription>> => {
  const outcome = await session.query(
    `SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, COLUMN_DEFAULT, COLUMN_COMMENT, DATA_TYPE
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
    [table.database, table.name]
  )
  return outcome.rows.map((row) => {
    const defaultValue = defaultOf(row[4])
    const comment = text(row[5])
    return {
      name: String(row[0]),
      data_type: String(row[1]),
      is_nullable: row[2] === "YES",
      is_primary_key: row[3] === "PRI",
      ...(defaultValue === undefined ? {} : { default_value: defaultValue }),
      is_sortable: !UNSORTABLE.test(String(row[6])),
      ...(comment === null || comment === "" ? {} : { comment })
    }
  })
}

const indexes = async (session: Session, table: ResolvedTable): Promise<Array<IndexDescription>> => {
  const outcome = await session.query(
    `SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
    [table.database, table.name]
  )
  const byName = new Map<string, { name: string; columns: Array<string>; is_unique: boolean; is_primary: boolean }>()
  for (const row of outcome.rows) {
    const name = String(row[0])
    const entry = byName.get(name) ??
      { name, columns: [], is_unique: Number(row[1]) === 0, is_primary: name === "PRIMARY" }
    entry.columns.push(String(row[2] ?? ""))
    byName.set(name, entry)
  }
  return [...byName.values()]
}

const foreignKeys = async (session: Session, table: ResolvedTable): Promise<Array<ForeignKeyDescription>> => {
  const outcome = await session.query(
    `SELECT k.CONSTRAINT_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_SCHEMA, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME,
            r.UPDATE_RULE, r.DELETE_RULE
       FROM information_schema.KEY_COLUMN_USAGE k
       JOIN information_schema.REFERENTIAL_CONSTRAINTS r
         ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
      WHERE k.TABLE_SCHEMA = ? AND k.TABLE_NAME = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL
      ORDER BY k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    [table.database, table.name]
  )
  const byName = new Map<
    string,
    ForeignKeyDescription & { columns: Array<string>; referenced_columns: Array<string> }
  >()
  for (const row of outcome.rows) {
    const name = String(row[0])
    const referencedDatabase = String(row[2])
    const entry = byName.get(name) ?? {
      columns: [],
      referenced_table: referencedDatabase === table.database
        ? String(row[3])
        : `${referencedDatabase}.${String(row[3])}`,
      referenced_columns: [],
      on_update: String(row[5]),
      on_delete: String(row[6])
    }
    entry.columns.push(String(row[1]))
    entry.referenced_columns.push(String(row[4]))
    byName.set(name, entry)
  }
  return [...byName.values()]
}

/** `SHOW CREATE TABLE` (views answer their `CREATE VIEW`). */
export const tableDdl = async (session: Session, table: ResolvedTable): Promise<string> => {
  const outcome = await session.query(`SHOW CREATE TABLE ${qualifiedName(table)}`)
  return String(outcome.rows[0]?.[1] ?? "")
}

/** The name shown to the model: bare in the selected database, qualified elsewhere, so it resolves back the same way. */
const displayName = (
  table: ResolvedTable,
  selected: string
): string => (table.database === selected ? table.name : `${table.database}.${table.name}`)

export const describeTable = async (
  session: Session,
  table: ResolvedTable,
  selected: string
): Promise<TableDescription> => ({
  table: displayName(table, selected),
  columns: await columns(session, table),
  indexes: await indexes(session, table),
  foreign_keys: await foreignKeys(session, table),
  ddl: await tableDdl(session, table),
  ...(table.rows === null || /VIEW/.test(table.type) ? {} : { approximate_row_count: table.rows })
})

/** Tables and columns of `database` (the selected one, bound: a prepared DATABASE() may keep an earlier call's value). */
export const searchSchema = async (
  session: Session,
  term: string,
  limit: number,
  database: string
): Promise<Array<SchemaMatch>> => {
  const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const outcome = await session.query(
    `SELECT kind, tbl, name, data_type FROM (
       SELECT 'table' AS kind, TABLE_NAME AS tbl, TABLE_NAME AS name, NULL AS data_type
         FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND LOWER(TABLE_NAME) LIKE ?
       UNION ALL
       SELECT 'column', TABLE_NAME, COLUMN_NAME, COLUMN_TYPE
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND LOWER(COLUMN_NAME) LIKE ?
     ) m ORDER BY kind DESC, tbl, name LIMIT ${Math.trunc(limit)}`,
    [database, pattern, database, pattern]
  )
  return outcome.rows.map((row) => ({
    kind: row[0] === "table" ? "table" as const : "column" as const,
    table: String(row[1]),
    name: String(row[2]),
    ...(row[3] === null ? {} : { data_type: String(row[3]) })
  }))
}

export const currentDatabase = async (session: Session): Promise<string | null> =>
  text((await session.query("SELECT DATABASE()")).rows[0]?.[0])
