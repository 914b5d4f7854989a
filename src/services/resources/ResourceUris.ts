import { Either } from "effect"
import { HISTORY_LIMIT } from "../QueryHistory.ts"

/** The six `dbdesk://` resources of D-47. */
export type ResourceRef =
  | { readonly kind: "connections" }
  | { readonly kind: "schema"; readonly connectionId: string }
  | { readonly kind: "tables"; readonly connectionId: string }
  | { readonly kind: "table"; readonly connectionId: string; readonly table: string }
  | { readonly kind: "ddl"; readonly connectionId: string; readonly table: string }
  | { readonly kind: "history"; readonly connectionId: string; readonly limit: number }

export type ResourceKind = ResourceRef["kind"]

/** D-47: `ttlMs` of each resource (wire contract §4.4 clamps them to 5000–300000). */
export const RESOURCE_TTL_MS: Readonly<Record<ResourceKind, number>> = {
  connections: 15_000,
  schema: 60_000,
  tables: 60_000,
  table: 60_000,
  ddl: 300_000,
  history: 5_000
}

const ROOT = "dbdesk://connections"
const segment = (value: string) => encodeURIComponent(value)

export const connectionsUri = ROOT
export const schemaUri = (connectionId: string) => `${ROOT}/${segment(connectionId)}/schema`
export const tablesUri = (connectionId: string) => `${ROOT}/${segment(connectionId)}/tables`
export const tableUri = (connectionId: string, table: string) =>
  `${ROOT}/${segment(connectionId)}/tables/${segment(table)}`
export const ddlUri = (connectionId: string, table: string) => `${tableUri(connectionId, table)}/ddl`
export const historyUri = (connectionId: string, limit?: number) =>
  `${ROOT}/${segment(connectionId)}/history${limit === undefined ? "" : `?limit=${limit}`}`

/** The templates of `resources/templates/list` (RFC 6570), with the variables completion knows. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${ROOT}/{connection_id}/schema`,
    name: "connection_schema",
    title: "Connection schema",
    description:
      "Tables of a connection with their columns (at most 100 tables, then truncated: true). Subscribable through subscriptions/listen."
  },
  {
    uriTemplate: `${ROOT}/{connection_id}/tables`,
    name: "connection_tables",
    title: "Tables",
    description: "The tables and views of a connection, as the list_tables tool returns them."
  },
  {
    uriTemplate: `${ROOT}/{connection_id}/tables/{table}`,
    name: "table_description",
    title: "Table description",
    description: "Columns, indexes, foreign keys and DDL of one table, as the describe_table tool returns them."
  },
  {
    uriTemplate: `${ROOT}/{connection_id}/tables/{table}/ddl`,
    name: "table_ddl",
    title: "Table DDL",
    description: "The statement that creates a table, as the get_table_ddl tool returns it."
  },
  {
    uriTemplate: `${ROOT}/{connection_id}/history{?limit}`,
    name: "connection_history",
    title: "Query history",
    description:
      `The last queries run on a connection, newest first: text, duration, rows, outcome and source (limit 1–${HISTORY_LIMIT.max}, default ${HISTORY_LIMIT.default}).`
  }
] as const

const decodeSegment = (raw: string): string | undefined => {
  try {
    const decoded = decodeURIComponent(raw)
    return decoded.trim() === "" ? undefined : decoded
  } catch {
    return undefined
  }
}

const parseLimit = (query: string | undefined): Either.Either<number, string> => {
  if (query === undefined) return Either.right(HISTORY_LIMIT.default)
  const match = /^limit=(\d{1,4})$/.exec(query)
  const limit = match === null ? Number.NaN : Number(match[1])
  return Number.isInteger(limit) && limit >= 1 && limit <= HISTORY_LIMIT.max
    ? Either.right(limit)
    : Either.left(`the history resource takes only ?limit=1…${HISTORY_LIMIT.max}`)
}

/**
 * Reads a `dbdesk://` URI; Left is a message for -32602 (wire contract §7.1: an unknown resource is
 * invalid params). Segments are percent-decoded, so table names may hold any character.
 */
export const parseResourceUri = (uri: string): Either.Either<ResourceRef, string> => {
  const unknown = Either.left(
    `unknown resource ${JSON.stringify(uri)}; call resources/list or resources/templates/list`
  )
  if (!uri.startsWith(ROOT)) return unknown
  const [path = "", query, ...more] = uri.slice(ROOT.length).split("?")
  if (more.length > 0) return unknown
  if (path === "") return query === undefined ? Either.right({ kind: "connections" }) : unknown
  const [empty, rawId, kind, rawTable, tail, ...rest] = path.split("/")
  if (empty !== "" || rawId === undefined || rest.length > 0) return unknown
  const connectionId = decodeSegment(rawId)
  const table = rawTable === undefined ? undefined : decodeSegment(rawTable)
  if (connectionId === undefined || (rawTable !== undefined && table === undefined)) return unknown
  if (kind === "history" && rawTable === undefined) {
    return Either.map(parseLimit(query), (limit) => ({ kind: "history", connectionId, limit }))
  }
  if (query !== undefined) return unknown
  if (kind === "schema" && rawTable === undefined) return Either.right({ kind: "schema", connectionId })
  if (kind !== "tables") return unknown
  if (table === undefined) return Either.right({ kind: "tables", connectionId })
  if (tail === undefined) return Either.right({ kind: "table", connectionId, table })
  return tail === "ddl" ? Either.right({ kind: "ddl", connectionId, table }) : unknown
}
