import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { tokenPrincipal } from "../../domain/Principal.ts"
import { UiApi } from "../../domain/UiApi.ts"
import { UiError, type UiNodeHealth, UiNotFound } from "../../domain/UiSchemas.ts"
import { ConnectionGrants } from "../../services/ConnectionGrants.ts"
import { Connections } from "../../services/Connections.ts"
import { explainStatement } from "../../services/policy/PolicyExplain.ts"
import { Tokens } from "../../services/Tokens.ts"
import { searchPageText } from "./SearchViews.ts"
import { databaseOf, sqlPageText } from "./SqlViews.ts"
import { forUi } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

/**
 * D-70: the MCP settings' policy explainer (item 3), the statement policy the tools enact with the running
 * server's own memory of the access dialog (a grant or a refusal of the last 60 s), which runs nothing; and a Data
 * view's page as the console request that gives exactly its rows (item 2).
 */
export const InsightHandlers = HttpApiBuilder.group(UiApi, "insight", (handlers) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const connections = yield* Connections
    const grants = yield* ConnectionGrants
    const sessions = yield* UiSessions
    return handlers.handle("explain", ({ payload }) =>
      forUi(Effect.gen(function*() {
        const token = (yield* tokens.list()).find((candidate) => candidate.id === payload.tokenId)
        if (token === undefined) {
          return yield* new UiNotFound({ message: "That token no longer exists; choose another in the list." })
        }
        const connection = yield* connections.get(payload.connectionId)
        if (connection === undefined) {
          return yield* new UiNotFound({ message: "That connection no longer exists; choose another in the list." })
        }
        const { grant, mode } = yield* grants.snapshot(tokenPrincipal(token), connection)
        return explainStatement(token, connection, {
          tool: payload.tool ?? "execute_query",
          sql: payload.sql,
          elicitation: payload.elicitation ?? false,
          connectionApproval: mode,
          grant,
          now: yield* Clock.currentTimeMillis
        })
      }))).handle("consoleRequest", ({ path, payload, urlParams }) =>
        forUi(Effect.gen(function*() {
          const connection = yield* sessions.connection(path.id)
          const namespace = databaseOf(urlParams)
          if (connection.type === "search" && namespace !== undefined) {
            return yield* new UiError({ message: "A search connection has no other databases to open." })
          }
          const text = connection.type === "search"
            ? yield* Effect.flatMap(
              sessions.search(connection),
              (client) => searchPageText(client, path.table, payload)
            )
            : yield* Effect.flatMap(
              sessions.sql(connection),
              (driver) => sqlPageText(driver, path.table, payload, namespace)
            )
          return { text }
        }))).handle("nodes", ({ path }) =>
        forUi(Effect.gen(function*() {
          const connection = yield* sessions.connection(path.id)
          if (connection.type !== "search") {
            return yield* new UiError({
              message: `'${connection.name}' is not a search connection: only those have nodes.`
            })
          }
          const client = yield* sessions.search(connection)
          const nodes = yield* client.probeNodes()
          return nodes.map((node): UiNodeHealth => ({
            label: node.label,
            url: node.origin,
            healthy: node.healthy,
            checkedAt: node.lastAccess === 0 ? null : new Date(node.lastAccess).toISOString(),
            lastError: node.healthy ? null : node.lastError ?? null,
            probe: node.probe
          }))
        })))
  }))
