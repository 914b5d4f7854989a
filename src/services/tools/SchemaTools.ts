import { Effect, Schema } from "effect"
import type { Connection, SearchConnection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import type { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { toolFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import type { MethodContext } from "../MethodContext.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Drivers } from "../Drivers.ts"
import type { DatabaseDriver, Namespace } from "../drivers/Driver.ts"
import { type DriverFailure, mapDriverFailure } from "./DriverFailures.ts"
import { listable, resolveTarget } from "./Guards.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, toolResult, type ToolRun } from "./Tool.ts"
import { connectionId, database, integer, schemaName, table, text } from "./ToolArguments.ts"

export const requireName = (value: string, what: string) =>
  value.trim() === "" ? Effect.fail(toolFailure("invalid_argument", `${what} must not be empty`)) : Effect.void

/** The `database` and `schema` arguments of a call (D-72): absent means the connection's defaults, empty is refused. */
export const namespaceOf = (
  args: { readonly database?: string; readonly schema?: string }
): Effect.Effect<Namespace, ToolFailure> =>
  Effect.as(
    Effect.all([
      args.database === undefined ? Effect.void : requireName(args.database, "database"),
      args.schema === undefined ? Effect.void : requireName(args.schema, "schema")
    ]),
    { database: args.database, schema: args.schema }
  )

/**
 * Resolves the connection (gates before the response starts), then runs `use` with its driver, or `onSearch` for a
 * search-engine connection (D-21, search rows).
 */
export const withDriver = (
  access: ConnectionAccess,
  drivers: Drivers,
  context: MethodContext,
  connectionId: string,
  use: (
    driver: DatabaseDriver,
    connection: Connection
  ) => Effect.Effect<JsonObject, DriverFailure | ToolFailure | ProtocolError>,
  onSearch?: (connection: SearchConnection) => ToolRun
) =>
  Effect.map(
    access.resolve(context.principal, connectionId, context.clientInfo?.name),
    (connection): ToolRun =>
      connection.type === "search" && onSearch !== undefined
        ? onSearch(connection)
        : mapDriverFailure(Effect.flatMap(drivers.forConnection(connection), (driver) => use(driver, connection)))
  )

export const SchemaTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const search = yield* SearchToolRoutes

  const listTables = defineTool({
    name: "list_tables",
    description: "Returns tables[] {name, type, row_count?} (search: collections).",
    arguments: Schema.Struct({
      connection_id: connectionId,
      database,
      schema: schemaName,
      include_row_counts: Schema.optionalWith(Schema.Boolean, { exact: true })
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.flatMap(
        namespaceOf(args),
        (namespace) =>
          withDriver(access, drivers, context, args.connection_id, (driver, connection) =>
            Effect.map(
              driver.listTables({ includeRowCounts: args.include_row_counts ?? false, ...namespace }),
              (tables) =>
                toolResult({
                  tables: tables.filter((entry) => listable(connection, namespace)(entry.name)).map((entry) => ({
                    ...entry
                  }))
                })
            ), (connection) => search.listTables(connection, args.include_row_counts ?? false, context))
      )
  })

  const describeTable = defineTool({
    name: "describe_table",
    description: "Returns columns, indexes, foreign keys, DDL. Read before writing SQL.",
    arguments: Schema.Struct({ connection_id: connectionId, table, database, schema: schemaName }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.zipRight(
        requireName(args.table, "table"),
        Effect.flatMap(namespaceOf(args), (namespace) =>
          withDriver(access, drivers, context, args.connection_id, (driver, connection) =>
            Effect.flatMap(resolveTarget(driver, connection, args.table, namespace), (target) =>
              Effect.map(driver.describeTable(target.table, target.namespace), (description) =>
                toolResult(JSON.parse(JSON.stringify(description)) as JsonObject))), (connection) =>
            search.describeTable(connection, args.table, context)))
      )
  })

  const getTableDdl = defineTool({
    name: "get_table_ddl",
    description: "Returns ddl: a table's CREATE statement (search: schema).",
    arguments: Schema.Struct({ connection_id: connectionId, table, database, schema: schemaName }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.zipRight(
        requireName(args.table, "table"),
        Effect.flatMap(namespaceOf(args), (namespace) =>
          withDriver(access, drivers, context, args.connection_id, (driver, connection) =>
            Effect.flatMap(resolveTarget(driver, connection, args.table, namespace), (target) =>
              Effect.map(driver.tableDdl(target.table, target.namespace), (ddl) =>
                toolResult({ ddl }))), (connection) =>
            search.tableDdl(connection, args.table, context)))
      )
  })

  const searchSchema = defineTool({
    name: "search_schema",
    description: "Returns matches[]: tables and columns whose names contain term.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      term: text(),
      limit: Schema.optionalWith(integer(), { exact: true }),
      database,
      schema: schemaName
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) => {
      const limit = args.limit ?? 50
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
        return Effect.fail(toolFailure("invalid_argument", "limit must be a whole number from 1 to 500"))
      }
      return Effect.zipRight(
        requireName(args.term, "term"),
        Effect.flatMap(
          namespaceOf(args),
          (namespace) =>
            withDriver(
              access,
              drivers,
              context,
              args.connection_id,
              (driver, connection) =>
                Effect.map(driver.searchSchema(args.term, limit, namespace), (matches) =>
                  toolResult({
                    matches: matches.filter((match) => listable(connection, namespace)(match.table)).map((match) => ({
                      ...match
                    }))
                  }))
            )
        )
      )
    }
  })

  return [listTables, describeTable, getTableDdl, searchSchema] as const
})
