import { Effect } from "effect"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { policyFailure, toolFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import type {
  LockTimeout,
  PolicyRefusal,
  ReachFailure,
  StatementTimeout,
  TableNotFound,
  Unsupported
} from "../drivers/Driver.ts"

export type DriverFailure = ReachFailure | TableNotFound | Unsupported | StatementTimeout | LockTimeout | PolicyRefusal

/**
 * Wire contract §7.2 and D-18: driver failures become tool errors,
 * except dbdesk's own statement deadline, which is the JSON-RPC error -33003.
 */
export const mapDriverFailure = <A, R>(effect: Effect.Effect<A, DriverFailure | ToolFailure | ProtocolError, R>) =>
  Effect.catchAll(effect, (error): Effect.Effect<never, ToolFailure | ProtocolError> => {
    switch (error._tag) {
      case "DriverError":
        return Effect.fail(toolFailure("query_failed", error.message))
      case "TableNotFound":
        return Effect.fail(
          toolFailure(
            "not_found",
            `the table ${JSON.stringify(error.table)} does not exist; call list_tables for the names`
          )
        )
      case "NotConnected":
        return Effect.fail(toolFailure("not_connected", error.message))
      case "NamespaceNotFound":
        return Effect.fail(toolFailure("not_found", error.message))
      case "InvalidArgument":
        return Effect.fail(toolFailure("invalid_argument", error.message))
      case "Unsupported":
        return Effect.fail(toolFailure("unsupported", error.message))
      case "LockTimeout":
        return Effect.fail(toolFailure("timeout", error.message))
      case "PolicyRefusal":
        return Effect.fail(policyFailure(error.refusal))
      case "StatementTimeout":
        return Effect.fail(
          ProtocolError.of(-33003, `The statement ran past its ${error.seconds} s deadline and was stopped`, {
            deadline: "statement",
            seconds: error.seconds
          })
        )
      default:
        return Effect.fail(error)
    }
  })
