import type { UiCatalog, UiCatalogObject, UiCatalogObjects } from "../../../../domain/UiCatalog.ts"
import { call } from "../../../api.ts"
import { writeSession, readSession } from "../../../workspace/sessionState.ts"
import { emptyFilter, type FilterState } from "../FilterBar.tsx"

/**
 * The sidebar tree's catalog reads (D-98), shared by the tree and "open anything": the overview once per connection,
 * each schema's objects when first asked for. A reload (↻, or DDL run in the console) forgets the connection's reads.
 */
const overviews = new Map<string, Promise<UiCatalog>>()
const objects = new Map<string, Promise<UiCatalogObjects>>()

/**
 * The database the sidebar's switcher chose (D-98), as the UI API's `database` parameter: none for the connection's
 * own. The tree reads it, and a table or console tab opened now keeps it.
 */
export const chosenDatabase = (connectionId: string): { readonly database?: string } => {
  const database = readSession<string>(`database:${connectionId}`)
  return database === undefined || database === "" ? {} : { database }
}

/** A tab's `database` as the UI API's parameter. */
export const databaseParams = (
  database: string | undefined
): { readonly database?: string } => (database === undefined ? {} : { database })

const keyOf = (connectionId: string, schema: string | null) =>
  `${connectionId}\u0000${chosenDatabase(connectionId).database ?? ""}\u0000${schema ?? ""}`

export const loadOverview = (connectionId: string): Promise<UiCatalog> => {
  const key = keyOf(connectionId, null)
  let found = overviews.get(key)
  if (found === undefined) {
    found = call((client) =>
      client.catalog.overview({ path: { id: connectionId }, urlParams: chosenDatabase(connectionId) })
    )
    found.catch(() => overviews.delete(key))
    overviews.set(key, found)
  }
  return found
}

export const loadObjects = (connectionId: string, schema: string | null): Promise<UiCatalogObjects> => {
  const key = keyOf(connectionId, schema)
  let found = objects.get(key)
  if (found === undefined) {
    found = call((client) =>
      client.catalog.objects({
        path: { id: connectionId },
        urlParams: { ...chosenDatabase(connectionId), ...(schema === null ? {} : { schema }) }
      })
    )
    found.catch(() => objects.delete(key))
    objects.set(key, found)
  }
  return found
}

/** Every object of the connection: each schema's (loaded as the tree loads them), or the flat list. */
export const loadAllObjects = async (connectionId: string): Promise<ReadonlyArray<UiCatalogObject>> => {
  const overview = await loadOverview(connectionId)
  const schemas = overview.schemas.length === 0 ? [null] : overview.schemas
  const lists = await Promise.all(
    schemas.map((schema) => loadObjects(connectionId, schema).catch(() => ({ objects: [], note: null })))
  )
  return lists.flatMap((list) => list.objects)
}

export const forgetCatalog = (connectionId: string) => {
  for (const key of overviews.keys()) if (key.startsWith(`${connectionId}\u0000`)) overviews.delete(key)
  for (const key of objects.keys()) if (key.startsWith(`${connectionId}\u0000`)) objects.delete(key)
}

/** A function or procedure opens a console with its definition (PostgreSQL) or its CREATE statement (MySQL). */
export const definitionQuery = (dialect: string, object: UiCatalogObject): string => {
  if (dialect === "postgresql") {
    const quoted = `${object.schema === null ? "" : `"${object.schema.replaceAll("\"", "\"\"")}".`}"${
      object.label.replaceAll("\"", "\"\"")
    }"`
    return `SELECT pg_get_functiondef('${`${quoted}(${object.signature ?? ""})`.replaceAll("'", "''")}'::regprocedure);`
  }
  return `SHOW CREATE ${object.kind === "procedure" ? "PROCEDURE" : "FUNCTION"} \`${
    object.label.replaceAll("`", "``")
  }\`;`
}

/** The schema the sidebar's switcher chose (D-98), for the console's unqualified names; none when "All schemas". */
export const consoleSchema = (connectionId: string): { readonly schema?: string } => {
  const schema = readSession<string>(`schema:${connectionId}`)
  return schema === undefined || schema === "" ? {} : { schema }
}

const OPEN_TABLE = "dbdesk:open-table"
const OPEN_CONSOLE = "dbdesk:open-console"
const FILTER_REQUEST = "dbdesk:filter-request"

export interface OpenTableDetail {
  readonly connectionId: string
  readonly table: string
  /** Column = value rows the new tab's filter bar starts with (a foreign key's referenced row). */
  readonly equals?: ReadonlyArray<readonly [string, string | null]>
}

/** The grid tab's kept view of `table` with `equals` as its filter, applied, first page (what a DataTab reads at mount). */
const filteredView = (connectionId: string, table: string, equals: ReadonlyArray<readonly [string, string | null]>) => {
  const filter: FilterState = {
    ...emptyFilter,
    rows: equals.map(([column, value]) =>
      value === null ? { column, operator: "is_null", enabled: true } : { column, operator: "=", value, enabled: true }
    )
  }
  const key = `grid:${connectionId}:${table}:view`
  const kept = readSession<Record<string, unknown>>(key)
  const view = { sort: [], pageSize: 1000, countAlways: true, ...kept, filter, applied: filter, offset: 0 }
  writeSession(key, view)
  return { key, view }
}

/** Opens `table` in its tab on the connection (with a filter when `equals` is given); the connection's view acts on it. */
export const requestOpenTable = (detail: OpenTableDetail) => {
  if (detail.equals !== undefined) {
    const { key, view } = filteredView(detail.connectionId, detail.table, detail.equals)
    // a tab already open on the table takes the filter too (its state is in memory, not re-read from the session)
    window.dispatchEvent(new CustomEvent(FILTER_REQUEST, { detail: { key, view } }))
  }
  window.dispatchEvent(new CustomEvent<OpenTableDetail>(OPEN_TABLE, { detail }))
}

export const requestOpenConsole = (connectionId: string, text: string) =>
  window.dispatchEvent(new CustomEvent(OPEN_CONSOLE, { detail: { connectionId, text } }))

export const onOpenTable = (connectionId: string, f: (detail: OpenTableDetail) => void) => {
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<OpenTableDetail>).detail
    if (detail.connectionId === connectionId) f(detail)
  }
  window.addEventListener(OPEN_TABLE, listener)
  return () => window.removeEventListener(OPEN_TABLE, listener)
}

export const onOpenConsole = (connectionId: string, f: (text: string) => void) => {
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<{ connectionId: string; text: string }>).detail
    if (detail.connectionId === connectionId) f(detail.text)
  }
  window.addEventListener(OPEN_CONSOLE, listener)
  return () => window.removeEventListener(OPEN_CONSOLE, listener)
}

/** A grid tab's view replaced by a foreign-key jump: the tab whose session key is `key` listens (D-99). */
export const onFilterRequest = <V>(key: string, f: (view: V) => void) => {
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<{ key: string; view: V }>).detail
    if (detail.key === key) f(detail.view)
  }
  window.addEventListener(FILTER_REQUEST, listener)
  return () => window.removeEventListener(FILTER_REQUEST, listener)
}
