import { Effect, Schema } from "effect"
import type { SearchConnection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import type { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { toolFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import type { MethodContext } from "../MethodContext.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Drivers } from "../Drivers.ts"
import type { DatabaseDriver, Namespace } from "../drivers/Driver.ts"
import { type DriverFailure, mapDriverFailure } from "./DriverFailures.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, described, toolResult, type ToolRun } from "./Tool.ts"

const connectionId = described(Schema.String, "Id of the connection, from list_connections")
const table = described(Schema.String, "Name of the table (or collection), from list_tables")
export const database = Schema.optionalWith(
  described(Schema.String, "Database on the connection's server, reached with the same credentials (default: the connection's own; list_databases names them; SQLite has only main)"),
  { exact: true }
)
export const schemaName = Schema.optionalWith(
  described(Schema.String, "Schema of the tables (PostgreSQL; default: every schema for listings, the search path for a table name; SQLite has only main)"),
  { exact: true }
)

export const requireName = (value: string, what: string) =>
  value.trim() === "" ? Effect.fail(toolFailure("invalid_argument", `${what} must not be empty`)) : Effect.void

/** The `database` and `schema` arguments of a call (issue 25): absent means the connection's defaults, empty is refused. */
export const namespaceOf = (args: { readonly database?: string; readonly schema?: string }): Effect.Effect<Namespace, ToolFailure> =>
  Effect.as(
    Effect.all([
      args.database === undefined ? Effect.void : requireName(args.database, "database"),
      args.schema === undefined ? Effect.void : requireName(args.schema, "schema")
    ]),
    { database: args.database, schema: args.schema }
  )

/**
 * Resolves the connection (gates before the response starts), then runs `use` with its driver, or `onSearch` for a
 * search-engine connection (product-decisions §3, search rows).
 */
export const withDriver = (
  access: ConnectionAccess,
  drivers: Drivers,
  context: MethodContext,
  connectionId: string,
  use: (driver: DatabaseDriver) => Effect.Effect<JsonObject, DriverFailure | ToolFailure | ProtocolError>,
  onSearch?: (connection: SearchConnection) => ToolRun
) =>
  Effect.map(access.resolve(context.principal, connectionId, context.clientInfo?.name), (connection): ToolRun =>
    connection.type === "search" && onSearch !== undefined
      ? onSearch(connection)
      : mapDriverFailure(Effect.flatMap(drivers.forConnection(connection), use)))

export const SchemaTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const search = yield* SearchToolRoutes

  const listTables = defineTool({
    name: "list_tables",
    title: "List tables",
    description: "Lists the tables and views of a connection (collections for a search connection), optionally with row counts.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      database,
      schema: schemaName,
      include_row_counts: Schema.optionalWith(described(Schema.Boolean, "Also count the rows of each table"), { exact: true })
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.flatMap(namespaceOf(args), (namespace) =>
        withDriver(access, drivers, context, args.connection_id, (driver) =>
          Effect.map(driver.listTables({ includeRowCounts: args.include_row_counts ?? false, ...namespace }), (tables) => toolResult({ tables: tables.map((entry) => ({ ...entry })) })),
          (connection) => search.listTables(connection, args.include_row_counts ?? false, context)))
  })

  const describeTable = defineTool({
    name: "describe_table",
    title: "Describe a table",
    description: "Returns the columns (types, nullability, primary key, sortability), indexes, foreign keys and DDL of a table. Call it before writing SQL or a filter.",
    arguments: Schema.Struct({ connection_id: connectionId, table, database, schema: schemaName }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.zipRight(requireName(args.table, "table"), Effect.flatMap(namespaceOf(args), (namespace) =>
        withDriver(access, drivers, context, args.connection_id, (driver) =>
          Effect.map(driver.describeTable(args.table, namespace), (description) => toolResult(JSON.parse(JSON.stringify(description)) as JsonObject)),
          (connection) => search.describeTable(connection, args.table, context))))
  })

  const getTableDdl = defineTool({
    name: "get_table_ddl",
    title: "Table DDL",
    description: "Returns the statement that creates a table (the collection schema JSON for a search connection).",
    arguments: Schema.Struct({ connection_id: connectionId, table, database, schema: schemaName }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.zipRight(requireName(args.table, "table"), Effect.flatMap(namespaceOf(args), (namespace) =>
        withDriver(access, drivers, context, args.connection_id, (driver) =>
          Effect.map(driver.tableDdl(args.table, namespace), (ddl) => toolResult({ ddl })),
          (connection) => search.tableDdl(connection, args.table, context))))
  })

  const searchSchema = defineTool({
    name: "search_schema",
    title: "Search the schema",
    description: "Finds tables and columns whose names contain a term.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      term: described(Schema.String, "Text to look for in table and column names"),
      limit: Schema.optionalWith(described(Schema.Number, "At most this many matches (1–500, default 50)"), { exact: true }),
      database,
      schema: schemaName
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) => {
      const limit = args.limit ?? 50
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) return Effect.fail(toolFailure("invalid_argument", "limit must be a whole number from 1 to 500"))
      return Effect.zipRight(requireName(args.term, "term"), Effect.flatMap(namespaceOf(args), (namespace) =>
        withDriver(access, drivers, context, args.connection_id, (driver) =>
          Effect.map(driver.searchSchema(args.term, limit, namespace), (matches) => toolResult({ matches: matches.map((match) => ({ ...match })) })))))
    }
  })

  return [listTables, describeTable, getTableDdl, searchSchema] as const
})
