import { Cause, Clock, Effect, Exit } from "effect"
import type { ProtocolError } from "../domain/ProtocolErrors.ts"
import type { ToolFailure } from "../domain/ToolErrors.ts"
import { QueryHistory, type HistoryOutcome } from "./QueryHistory.ts"
import { Subscriptions } from "./Subscriptions.ts"

const SCHEMA_VERBS = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(create|alter|drop|rename)\b/i

/** A statement that changes the schema, so `…/schema` subscribers hear of it (D-50). */
export const changesSchema = (statement: string): boolean => SCHEMA_VERBS.test(statement)

const outcomeOf = (exit: Exit.Exit<unknown, ToolFailure | ProtocolError>): HistoryOutcome => {
  if (Exit.isSuccess(exit)) return "success"
  if (Cause.isInterruptedOnly(exit.cause)) return "cancelled"
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some") {
    const error = failure.value
    if (error._tag === "ProtocolError") {
      return error.code === -33003
        ? "timeout"
        : error.code === -33002
        ? "cancelled"
        : "error"
    }
    if (error.code === "denied") return "denied"
    if (error.code === "timeout") return "timeout"
  }
  return "error"
}

/**
 * What follows a statement run through MCP: the query history entry (when `mcp.logQueries` is on)
 * and, after DDL, `resources/updated` for the connection's schema subscribers.
 */
export class StatementRecorder extends Effect.Service<StatementRecorder>()("dbdesk/services/StatementRecorder", {
  effect: Effect.gen(function*() {
    const history = yield* QueryHistory
    const subscriptions = yield* Subscriptions

    const observe = <A extends { readonly row_count?: number }, R>(
      connectionId: string,
      statement: string,
      run: Effect.Effect<A, ToolFailure | ProtocolError, R>
    ) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const exit = yield* Effect.exit(run)
        const finished = yield* Clock.currentTimeMillis
        const rowCount = Exit.isSuccess(exit) && typeof exit.value.row_count === "number" ? exit.value.row_count : null
        yield* history.record({
          connectionId,
          text: statement,
          durationMs: finished - started,
          rowCount,
          outcome: outcomeOf(exit),
          source: "mcp"
        }).pipe(Effect.ignore)
        if (Exit.isSuccess(exit) && changesSchema(statement)) {
          yield* subscriptions.schemaChanged(connectionId).pipe(Effect.ignore)
        }
        return yield* exit
      })

    return { observe } as const
  })
}) {}
