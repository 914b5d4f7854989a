import { Effect } from "effect"
import type { Connection } from "../domain/Connection.ts"
import type { Principal } from "../domain/Principal.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { toolFailure } from "../domain/ToolErrors.ts"
import { ConnectionGrants } from "./ConnectionGrants.ts"
import { Connections } from "./Connections.ts"

export type HiddenReason = "external_access_blocked" | "ai_policy_never" | "token_allowlist"

/** product-decisions §2: blocked, AI policy `never`, or outside the token's allowlist hide a connection. */
export const hiddenReason = (principal: Principal, connection: Connection): HiddenReason | undefined => {
  if (connection.externalAccess === "blocked") return "external_access_blocked"
  if (connection.aiPolicy === "never") return "ai_policy_never"
  if (principal.connections !== "all" && !principal.connections.includes(connection.id)) return "token_allowlist"
  return undefined
}

const reasonText: Record<HiddenReason, string> = {
  external_access_blocked: "its external access is set to blocked",
  ai_policy_never: "its AI policy is set to never",
  token_allowlist: "this token is not allowed to use it"
}

/** Wire contract §5 point 8: the connection gates, answering -33007 with `data.reason`. */
export class ConnectionAccess extends Effect.Service<ConnectionAccess>()("dbdesk/services/ConnectionAccess", {
  effect: Effect.gen(function*() {
    const connections = yield* Connections
    const grants = yield* ConnectionGrants

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const visible = Effect.fnUntraced(function*(principal: Principal) {
      const all = yield* connections.list
      return all.filter((connection) => hiddenReason(principal, connection) === undefined)
    })

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    /** `client` names the caller in the access dialog of AI policy askEachTime (product-decisions §3.2). */
    const resolve = Effect.fnUntraced(function*(principal: Principal, connectionId: string, client?: string) {
      if (connectionId.trim() === "") return yield* toolFailure("invalid_argument", "connection_id must not be empty; call list_connections for the ids")
      const connection = yield* connections.get(connectionId)
      if (connection === undefined) {
        return yield* toolFailure("not_found", `no connection has the id ${JSON.stringify(connectionId)}; call list_connections for the ids`)
      }
      const reason = hiddenReason(principal, connection)
      if (reason !== undefined) {
        return yield* ProtocolError.of(-33007, `The user does not allow AI clients to use this connection: ${reasonText[reason]}`, { reason, connectionId })
      }
      yield* grants.ensure(principal, connection, client)
      return connection
    })

    return { visible, resolve } as const
  })
}) {}
