import { Effect } from "effect"
import type { Connection, SearchConnection } from "../../domain/Connection.ts"
import { connect } from "../../search/SearchServer.ts"
import { Connections } from "../../services/Connections.ts"
import { DriverRegistry } from "../../services/DriverRegistry.ts"
import { Drivers } from "../../services/Drivers.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import type { ToolFailure } from "../../domain/ToolErrors.ts"
import type { SearchClient } from "../../search/SearchClient.ts"
import type { DatabaseDriver } from "../../services/drivers/Driver.ts"
import { notFound, uiMessage } from "./UiErrors.ts"

/**
 * The UI's way to a connection: the shared SQL drivers and the search driver's clients, one per search connection for
 * the whole server (replaced when the connection changes), so a cluster's node health is one view whether the MCP
 * tools or the UI met a failing node (D-59). Opening a saved search connection enables its driver without
 * asking (S1-b).
 */
export class UiSessions extends Effect.Service<UiSessions>()("dbdesk/http/ui/UiSessions", {
  scoped: Effect.gen(function*() {
    const connections = yield* Connections
    const drivers = yield* Drivers
    const registry = yield* DriverRegistry

    const connection = (id: string) =>
      Effect.flatMap(
        connections.get(id),
        (found) => (found === undefined ? Effect.fail(notFound("This connection")) : Effect.succeed(found))
      )

    const sql = (found: Connection): Effect.Effect<DatabaseDriver, UiError | ToolFailure> =>
      found.type === "search"
        ? Effect.fail(new UiError({ message: `'${found.name}' is a search connection.` }))
        : drivers.forConnection(found)

    const search = (found: SearchConnection): Effect.Effect<SearchClient, unknown> =>
      Effect.map(registry.openSearch(found), ({ session }) => session.client)

    const status = (found: Connection): Effect.Effect<{ readonly ok: boolean; readonly message: string }> =>
      (found.type === "search"
        ? Effect.flatMap(search(found), (client) => connect(client)).pipe(
          Effect.map((info) => ({
            ok: true,
            message: `Connected to Typesense ${info.version ?? "(version unknown)"}. ${info.warnings.join(" ")}`.trim()
          }))
        )
        : Effect.flatMap(sql(found), (driver) => driver.status()).pipe(
          Effect.map((status) => ({
            ok: status.status === "connected",
            message: status.status === "connected"
              ? `Connected${status.server_version === undefined ? "" : ` (${status.server_version})`}.`
              : status.error ?? status.status
          }))
        )).pipe(Effect.catchAll((error) => Effect.succeed({ ok: false, message: uiMessage(error) })))

    return { connection, sql, search, status } as const
  })
}) {}
