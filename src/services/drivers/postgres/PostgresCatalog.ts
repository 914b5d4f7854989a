// Reads of the PostgreSQL catalog for list_schemas, list_tables, describe_table, get_table_ddl and search_schema
// (D-21). Every read is one round trip inside `BEGIN READ ONLY` (PostgresRunner.ts); arrays come
// back as json. A `schema` argument (D-72) limits listings to it and resolves table names in it.
import { NamespaceNotFound, TableNotFound } from "../Driver.ts"
import type {
  ColumnDescription,
  ForeignKeyDescription,
  IndexDescription,
  SchemaMatch,
  TableDescription,
  TableEntry
} from "../../../domain/SqlTable.ts"
import { tableReadings } from "../../../domain/TableReference.ts"
import { quoteIdentifier } from "../BrowseSql.ts"
import type { Db } from "./PostgresRunner.ts"

/** A table found by name: `schema.name`, or a bare name resolved through the search path. */
export interface ResolvedTable {
  readonly oid: number
  readonly schema: string
  readonly name: string
  readonly kind: string
}

/** The databases of the server the role may connect to (templates and closed databases left out). */
export const DATABASES_SQL =
  "SELECT datname AS name FROM pg_database WHERE datallowconn AND NOT datistemplate AND has_database_privilege(datname, 'CONNECT') ORDER BY datname"

const USER_SCHEMAS = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
const RELATIONS = "c.relkind IN ('r', 'p', 'v', 'm', 'f')"

/** The name shown to the model: bare in `public`, qualified elsewhere, so it resolves back the same way. */
export const displayName = (schema: string, name: string): string => (schema === "public" ? name : `${schema}.${name}`)

export const qualifiedName = (table: ResolvedTable): string =>
  `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`

export const listSchemas = async (db: Db): Promise<Array<string>> => {
  const rows = await db.rows<{ name: string }>(
    `SELECT n.nspname AS name FROM pg_namespace n WHERE ${USER_SCHEMAS} ORDER BY 1`
  )
  return rows.map((row) => row.name)
}

/** Fails with NamespaceNotFound when a schema named in the arguments does not exist (rather than finding nothing). */
const requireSchema = async (db: Db, schema: string | undefined): Promise<void> => {
  if (schema === undefined) return
  const rows = await db.rows("SELECT 1 AS found FROM pg_namespace WHERE nspname = $1", [schema])
  if (rows.length === 0) {
    throw new NamespaceNotFound({
      message: `the schema ${JSON.stringify(schema)} does not exist in this database; call list_schemas for the names`
    })
  }
}

/**
 * A table by name, read as `tableReadings` reads it (the one reading the table gate decides on): with `schema`, a
 * name inside that schema; without, `schema.name` in any quoting or a bare name resolved through the search path. Fails with TableNotFound (or NamespaceNotFound for a missing schema).
 */
export const findTable = async (db: Db, table: string, schema?: string, exact?: boolean): Promise<ResolvedTable> => {
  for (const reading of tableReadings("postgresql", table, schema, exact)) {
    const [inSchema, name] = [reading.schema ?? null, reading.name]
    const rows = await db.rows<ResolvedTable>(
      `SELECT c.oid::int AS oid, n.nspname AS schema, c.relname AS name, c.relkind AS kind
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE ${RELATIONS} AND c.relname = $1 AND ($2::text IS NULL AND pg_table_is_visible(c.oid) OR n.nspname = $2::text)
        LIMIT 1`,
      [name, inSchema]
    )
    if (rows[0] !== undefined) return rows[0]
  }
  await requireSchema(db, schema)
  throw new TableNotFound({ table: schema === undefined ? table : `${schema}.${table}` })
}

export const columnNames = async (db: Db, oid: number): Promise<Array<string>> => {
  const rows = await db.rows<{ name: string }>(
    "SELECT attname AS name FROM pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
    [oid]
  )
  return rows.map((row) => row.name)
}

/** Tables and views; with `schema` only its own, named as they are inside it. Row counts in one round trip. */
export const listTables = async (db: Db, includeRowCounts: boolean, schema?: string): Promise<Array<TableEntry>> => {
  const rows = await db.rows<{ schema: string; name: string; kind: string }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${RELATIONS} AND ${USER_SCHEMAS} AND ($1::text IS NULL OR n.nspname = $1::text) ORDER BY 1, 2`,
    [schema ?? null]
  )
  if (rows.length === 0) await requireSchema(db, schema)
  const tables = rows.map((row) => ({
    row,
    name: schema === undefined ? displayName(row.schema, row.name) : row.name,
    type: row.kind === "v" || row.kind === "m" ? "view" as const : "table" as const
  }))
  const counts = new Map<string, number>()
  const counted = includeRowCounts ? tables.filter((table) => table.type === "table") : []
  if (counted.length > 0) {
    await db.read(counted.map((table) => ({
      text: `SELECT count(*) FROM ${quoteIdentifier(table.row.schema)}.${quoteIdentifier(table.row.name)}`,
      rows: {
        limit: 0,
        sink: {
          fields: () => {},
          row: (values: ReadonlyArray<string | null>) => {
            counts.set(table.name, Number(values[0] ?? 0))
            return "more" as const
          }
        }
      }
    })))
  }
  return tables.map((table) => {
    const count = counts.get(table.name)
    return count === undefined
      ? { name: table.name, type: table.type }
      : { name: table.name, type: table.type, row_count: count }
  })
}

interface ColumnRow {
  readonly name: string
  readonly data_type: string
  readonly not_null: boolean
  readonly default_value: string | null
  readonly comment: string | null
  readonly is_primary_key: boolean
  readonly is_sortable: boolean
}

const columnRows = (db: Db, oid: number) =>
  db.rows<ColumnRow>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS data_type, a.attnotnull AS not_null,
            pg_get_expr(d.adbin, d.adrelid) AS default_value, col_description(a.attrelid, a.attnum) AS comment,
            EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS is_primary_key,
            (t.typcategory IN ('A', 'E') OR EXISTS (
              SELECT 1 FROM pg_opclass oc JOIN pg_am am ON am.oid = oc.opcmethod
               WHERE am.amname = 'btree' AND oc.opcdefault AND oc.opcintype IN (t.oid, t.typbasetype))) AS is_sortable
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [oid]
  )

const indexes = (db: Db, oid: number) =>
  db.rows<IndexDescription & { columns: Array<string> }>(
    `SELECT ic.relname AS name, i.indisunique AS is_unique, i.indisprimary AS is_primary,
            to_json(ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k ORDER BY k)) AS columns
       FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = $1 ORDER BY ic.relname`,
    [oid]
  )

const ACTIONS: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" }

const foreignKeys = async (db: Db, oid: number): Promise<Array<ForeignKeyDescription>> => {
  const rows = await db.rows<
    { columns: Array<string>; schema: string; table: string; referenced: Array<string>; upd: string; del: string }
  >(
    `SELECT to_json(ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(n, o)
                    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o)) AS columns,
            rn.nspname AS schema, rc.relname AS table,
            to_json(ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(n, o)
                    JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o)) AS referenced,
            k.confupdtype AS upd, k.confdeltype AS del
       FROM pg_constraint k JOIN pg_class rc ON rc.oid = k.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
      WHERE k.conrelid = $1 AND k.contype = 'f' ORDER BY k.conname`,
    [oid]
  )
  return rows.map((row) => ({
    columns: row.columns,
    referenced_table: displayName(row.schema, row.table),
    referenced_columns: row.referenced,
    ...(ACTIONS[row.upd] === undefined ? {} : { on_update: ACTIONS[row.upd]! }),
    ...(ACTIONS[row.del] === undefined ? {} : { on_delete: ACTIONS[row.del]! })
  }))
}

/** A reconstructed `CREATE TABLE` (columns, constraints, then the indexes no constraint owns), or the view's definition. */
export const tableDdl = async (db: Db, table: ResolvedTable): Promise<string> => {
  const name = qualifiedName(table)
  if (table.kind === "v" || table.kind === "m") {
    const [view] = await db.rows<{ definition: string }>("SELECT pg_get_viewdef($1::oid, true) AS definition", [
      table.oid
    ])
    return `CREATE ${table.kind === "m" ? "MATERIALIZED " : ""}VIEW ${name} AS\n${view?.definition ?? ""}`
  }
  const columns = (await columnRows(db, table.oid)).map((c) =>
    `  ${quoteIdentifier(c.name)} ${c.data_type}${c.default_value === null ? "" : ` DEFAULT ${c.default_value}`}${
      c.not_null ? " NOT NULL" : ""
    }`
  )
  const constraints = await db.rows<{ name: string; definition: string }>(
    "SELECT conname AS name, pg_get_constraintdef(oid, true) AS definition FROM pg_constraint WHERE conrelid = $1 AND contype IN ('p', 'u', 'f', 'c', 'x') ORDER BY contype = 'p' DESC, conname",
    [table.oid]
  )
  const ownIndexes = await db.rows<{ definition: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i
      WHERE i.indrelid = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
      ORDER BY 1`,
    [table.oid]
  )
  const body = [...columns, ...constraints.map((k) => `  CONSTRAINT ${quoteIdentifier(k.name)} ${k.definition}`)].join(
    ",\n"
  )
  return [`CREATE TABLE ${name} (\n${body}\n);`, ...ownIndexes.map((index) => `${index.definition};`)].join("\n")
}

export const describeTable = async (db: Db, table: ResolvedTable): Promise<TableDescription> => {
  const columns = await columnRows(db, table.oid)
  const [estimate] = await db.rows<{ n: number }>("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1", [
    table.oid
  ])
  const approximate = estimate === undefined || estimate.n < 0 ? undefined : Math.round(estimate.n)
  return {
    table: displayName(table.schema, table.name),
    columns: columns.map((c): ColumnDescription => ({
      name: c.name,
      data_type: c.data_type,
      is_nullable: !c.not_null,
      is_primary_key: c.is_primary_key,
      ...(c.default_value === null ? {} : { default_value: c.default_value }),
      is_sortable: c.is_sortable,
      ...(c.comment === null ? {} : { comment: c.comment })
    })),
    indexes: (await indexes(db, table.oid)).map((index) => ({ ...index })),
    foreign_keys: await foreignKeys(db, table.oid),
    ddl: await tableDdl(db, table),
    ...(approximate === undefined ? {} : { approximate_row_count: approximate })
  }
}

/** Tables and columns whose names contain `term`; with `schema` only its own, named as they are inside it. */
export const searchSchema = async (
  db: Db,
  term: string,
  limit: number,
  schema?: string
): Promise<Array<SchemaMatch>> => {
  await requireSchema(db, schema)
  const named = (inSchema: string, name: string) => (schema === undefined ? displayName(inSchema, name) : name)
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const rows = await db.rows<
    { kind: "table" | "column"; schema: string; table: string; name: string; data_type: string | null }
  >(
    `SELECT * FROM (
       SELECT 'table' AS kind, n.nspname AS schema, c.relname AS table, c.relname AS name, NULL AS data_type
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${RELATIONS} AND ${USER_SCHEMAS} AND c.relname ILIKE $1 AND ($3::text IS NULL OR n.nspname = $3::text)
       UNION ALL
       SELECT 'column', n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE ${RELATIONS} AND ${USER_SCHEMAS} AND a.attnum > 0 AND NOT a.attisdropped AND a.attname ILIKE $1
          AND ($3::text IS NULL OR n.nspname = $3::text)
     ) m ORDER BY kind DESC, schema, "table", name LIMIT $2`,
    [pattern, limit, schema ?? null]
  )
  return rows.map((row) => ({
    kind: row.kind,
    table: named(row.schema, row.table),
    name: row.kind === "table" ? named(row.schema, row.name) : row.name,
    ...(row.data_type === null ? {} : { data_type: row.data_type })
  }))
}
