import { Effect, Schema } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Drivers } from "../Drivers.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { namespaceOf } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, toolResult } from "./Tool.ts"
import { connectionId, database } from "./ToolArguments.ts"

export const summarize = (connection: Connection, isConnected: boolean): JsonObject => ({
  id: connection.id,
  name: connection.name,
  type: connection.type,
  ...(connection.type === "sqlite" ? { database: connection.path } : {}),
  ...(connection.type === "postgresql"
    ? { host: connection.host, port: connection.port, database: connection.database }
    : {}),
  ...(connection.type === "mysql"
    ? {
      host: connection.host,
      port: connection.port,
      ...(connection.database === undefined ? {} : { database: connection.database })
    }
    : {}),
  ...(connection.type === "search" ? { host: connection.host, port: connection.port } : {}),
  is_connected: isConnected,
  external_access: connection.externalAccess,
  ai_policy: connection.aiPolicy,
  confirm_queries: connection.confirmQueries
})

export const ConnectionTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const search = yield* SearchToolRoutes

  const listConnections = defineTool({
    name: "list_connections",
    description: "Start here. Returns connections[]; pass an id as connection_id.",
    arguments: Schema.Struct({}),
    scopes: [],
    readOnly: true,
    prepare: (_args, context) =>
      Effect.succeed(
        Effect.map(access.visible(context.principal), (connections) =>
          toolResult({
            connections: connections.map((connection) => summarize(connection, connection.type === "sqlite"))
          }, false))
      )
  })

  const getConnectionStatus = defineTool({
    name: "get_connection_status",
    description: "Returns status, server_version.",
    arguments: Schema.Struct({ connection_id: connectionId }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.map(
        access.resolve(context.principal, args.connection_id, context.clientInfo?.name),
        (connection) =>
          connection.type === "search" ? search.status(connection, context) : Effect.gen(function*() {
            const driver = yield* drivers.forConnection(connection)
            const status = yield* driver.status()
            return toolResult({ ...status })
          })
      )
  })

  const listDatabases = defineTool({
    name: "list_databases",
    description: "Returns databases[], to pass as database.",
    arguments: Schema.Struct({ connection_id: connectionId }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.map(access.resolve(context.principal, args.connection_id, context.clientInfo?.name), (connection) => {
        if (connection.type === "search") {
          return Effect.fail(
            toolFailure(
              "unsupported",
              "a search-engine connection reaches one cluster and has no databases; call list_tables to see its collections"
            )
          )
        }
        return mapDriverFailure(Effect.gen(function*() {
          const driver = yield* drivers.forConnection(connection)
          return toolResult({ databases: [...(yield* driver.listDatabases())] })
        }))
      })
  })

  const listSchemas = defineTool({
    name: "list_schemas",
    description: "Returns schemas[] of a PostgreSQL database.",
    arguments: Schema.Struct({ connection_id: connectionId, database }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.map(
        access.resolve(context.principal, args.connection_id, context.clientInfo?.name),
        (connection) =>
          connection.type === "mysql"
            ? Effect.fail(
              toolFailure(
                "unsupported",
                `'${connection.name}' is a MySQL/MariaDB connection: a MySQL schema is a database, so call list_databases and pass one as database`
              )
            )
            : connection.type !== "postgresql"
            ? Effect.fail(
              toolFailure(
                "unsupported",
                `'${connection.name}' is a ${connection.type} connection, which has no schemas; call list_tables`
              )
            )
            : mapDriverFailure(Effect.gen(function*() {
              const driver = yield* drivers.forConnection(connection)
              if (driver.listSchemas === undefined) {
                return yield* toolFailure("unsupported", `'${connection.name}' cannot list schemas`)
              }
              return toolResult({ schemas: [...(yield* driver.listSchemas(yield* namespaceOf(args)))] })
            }))
      )
  })

  return [listConnections, getConnectionStatus, listDatabases, listSchemas] as const
})
