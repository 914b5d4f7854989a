import { Effect } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { UiCatalog, UiCatalogObject, UiCatalogObjects, UiObjectKind } from "../../domain/UiCatalog.ts"
import type { SearchClient } from "../../search/SearchClient.ts"
import type { DatabaseDriver, Namespace } from "../../services/drivers/Driver.ts"
import { searchTables } from "./SearchViews.ts"

const CATALOG_SECONDS = 30
/** More objects than this in one schema are cut (the tree is for finding, the console for listing everything). */
const MAX_OBJECTS = 5_000

/** The name the UI API's table paths take: bare in `public`, qualified elsewhere (as the PostgreSQL table list names it). */
const pathName = (schema: string, name: string) => (schema === "public" ? name : `${schema}.${name}`)

/** Materialized views and routines of one schema (PostgreSQL), or of the connection's database (MySQL). */
const ROUTINES_SQL = {
  postgresql: `SELECT c.relname AS name, 'materializedView' AS kind, NULL AS signature
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'm'
     UNION ALL
     SELECT p.proname, CASE p.prokind WHEN 'p' THEN 'procedure' ELSE 'function' END, pg_get_function_identity_arguments(p.oid)
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.prokind IN ('f', 'p')
     ORDER BY 1, 3`,
  mysql:
    `SELECT ROUTINE_NAME AS name, CASE ROUTINE_TYPE WHEN 'PROCEDURE' THEN 'procedure' ELSE 'function' END AS kind, NULL AS signature
       FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() ORDER BY 1`
} as const

const order: Record<UiObjectKind, number> = {
  table: 0,
  collection: 0,
  view: 1,
  materializedView: 2,
  function: 3,
  procedure: 4
}

const sorted = (objects: ReadonlyArray<UiCatalogObject>) =>
  [...objects].sort((a, b) => order[a.kind] - order[b.kind] || a.label.localeCompare(b.label))

/** `namespace.database`: the database chosen in the switcher, whose schemas are listed; absent: the connection's own. */
export const catalogOverview = (connection: Connection, driver: DatabaseDriver, namespace?: Namespace) =>
  Effect.gen(function*() {
    const databases = yield* driver.listDatabases()
    const schemas = driver.dialect === "postgresql" && driver.listSchemas !== undefined
      ? yield* driver.listSchemas(namespace)
      : []
    const database = namespace?.database ??
      (connection.type === "postgresql" || connection.type === "mysql" ? connection.database ?? null : null)
    const overview: UiCatalog = {
      databases,
      database,
      schemas,
      defaultSchema: schemas.includes("public") ? "public" : schemas[0] ?? null,
      note: null
    }
    return overview
  })

export const searchOverview: UiCatalog = { databases: [], database: null, schemas: [], defaultSchema: null, note: null }

/**
 * One schema's objects: tables and views with their row counts from the table list, plus materialized views,
 * functions and procedures from the engine's catalog (PostgreSQL's table list counts a materialized view as a view).
 */
export const catalogObjects = (driver: DatabaseDriver, schema: string | undefined, namespace?: Namespace) =>
  Effect.gen(function*() {
    const tables = yield* driver.listTables({
      includeRowCounts: true,
      ...namespace,
      ...(schema === undefined ? {} : { schema })
    })
    const dialect = driver.dialect
    const extra = dialect === "postgresql" && schema === undefined
      ? []
      : dialect === "postgresql" || dialect === "mysql"
      ? (yield* driver.execute(ROUTINES_SQL[dialect], {
        maxRows: MAX_OBJECTS,
        timeoutSeconds: CATALOG_SECONDS,
        access: "readonly",
        ...namespace,
        ...(dialect === "postgresql" ? { params: [schema] } : {})
      })).rows.map((row) => ({
        name: String(row[0]),
        kind: String(row[1]) as UiObjectKind,
        signature: row[2] === null || row[2] === undefined ? null : String(row[2])
      }))
      : []
    const materialized = new Set(
      extra.filter((object) => object.kind === "materializedView").map((object) => object.name)
    )
    const qualify = (name: string) => (dialect === "postgresql" && schema !== undefined ? pathName(schema, name) : name)
    const objects: Array<UiCatalogObject> = [
      ...tables.map((table): UiCatalogObject => ({
        name: qualify(table.name),
        label: table.name,
        schema: schema ?? null,
        kind: materialized.has(table.name) ? "materializedView" : table.type,
        rowCount: table.row_count ?? null,
        signature: null
      })),
      ...extra.filter((object) => object.kind !== "materializedView").map((object): UiCatalogObject => ({
        name: qualify(object.name),
        label: object.name,
        schema: schema ?? null,
        kind: object.kind,
        rowCount: null,
        signature: object.signature
      }))
    ]
    const result: UiCatalogObjects = {
      objects: sorted(objects).slice(0, MAX_OBJECTS),
      note: objects.length === 0
        ? (schema === undefined ? "This database has no tables yet." : "This schema is empty.")
        : null
    }
    return result
  })

export const searchObjects = (client: SearchClient) =>
  Effect.map(searchTables(client), (list): UiCatalogObjects => ({
    objects: list.tables.map((table) => ({
      name: table.name,
      label: table.name,
      schema: null,
      kind: "collection",
      rowCount: table.rowCount,
      signature: null
    })),
    note: list.note
  }))
