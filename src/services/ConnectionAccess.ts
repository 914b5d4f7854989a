import { Effect } from "effect"
import type { Principal } from "../domain/Principal.ts"
import { toolFailure } from "../domain/ToolErrors.ts"
import type { MethodContext } from "./MethodContext.ts"
import { ConnectionGrants } from "./ConnectionGrants.ts"
import { Connections } from "./Connections.ts"
import {
  decideStatement,
  hiddenReason,
  hiddenRefusal,
  type PolicyTool,
  STATEMENT_GATES
} from "./policy/StatementPolicy.ts"
import { declaresFormElicitation } from "./StatementApproval.ts"

export { type HiddenReason, hiddenReason } from "./policy/StatementPolicy.ts"

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

    /** The connection an argument names, before any gate. */
    const lookup = Effect.fnUntraced(function*(connectionId: string) {
      if (connectionId.trim() === "") {
        return yield* toolFailure(
          "invalid_argument",
          "connection_id must not be empty; call list_connections for the ids"
        )
      }
      const connection = yield* connections.get(connectionId)
      if (connection === undefined) {
        return yield* toolFailure(
          "not_found",
          `no connection has the id ${JSON.stringify(connectionId)}; call list_connections for the ids`
        )
      }
      return connection
    })

    /** `client` names the caller in the access dialog of AI policy askEachTime (D-29). */
    const resolve = Effect.fnUntraced(function*(principal: Principal, connectionId: string, client?: string) {
      const connection = yield* lookup(connectionId)
      const reason = hiddenReason(principal, connection)
      if (reason !== undefined) return yield* hiddenRefusal(reason, connectionId)
      yield* grants.ensure(principal, connection, client)
      return connection
    })

    /**
     * `execute_query` and `confirm_destructive_operation` (D-70): the statement policy decides, and its
     * steps are enacted in order — a refusal fails the call, the access dialog is asked where the policy asks it —
     * up to the approval, which the tool asks. The policy explainer prints the same decision.
     */
    const statement = Effect.fnUntraced(
      function*(context: MethodContext, connectionId: string, tool: PolicyTool, text: string, database?: string) {
        const connection = yield* lookup(connectionId)
        const { grant, mode } = yield* grants.snapshot(context.principal, connection)
        const decision = decideStatement(
          {
            tool,
            principal: context.principal,
            connection,
            statement: text,
            elicitation: declaresFormElicitation(context),
            connectionApproval: mode,
            grant,
            database
          },
          STATEMENT_GATES
        )
        for (const step of decision.steps) {
          if (step.verdict.kind === "refuse") return yield* step.verdict.error
          if (step.id === "access_dialog" && step.verdict.kind === "ask") {
            yield* grants.ensure(context.principal, connection, context.clientInfo?.name, text)
          }
        }
        return { connection, decision } as const
      }
    )

    return { visible, lookup, resolve, statement } as const
  })
}) {}
