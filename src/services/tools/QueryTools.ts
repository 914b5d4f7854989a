import { Effect, Schema } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { withheldError } from "../../domain/AnswerGate.ts"
import { costBudgetOf } from "../../domain/CostGuard.ts"
import type { Classification } from "../../domain/StatementClassifier.ts"
import { toolFailure, ToolFailure } from "../../domain/ToolErrors.ts"
import { ApprovalPreflight } from "../ApprovalPreflight.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Continuations } from "../Continuations.ts"
import { TOOL_SCOPES } from "../policy/StatementPolicy.ts"
import { Drivers } from "../Drivers.ts"
import { SettingsStore } from "../Settings.ts"
import { type ApprovalGate, StatementApproval } from "../StatementApproval.ts"
import { StatementRecorder } from "../StatementRecorder.ts"
import { checkCost, type OverBudget } from "./CostGuards.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { gateStatement, guardedResult } from "./Guards.ts"
import { namespaceOf } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { readContinued } from "./ContinuationTools.ts"
import { withRowProgress } from "./RowProgress.ts"
import { classifyForExecution, statementVerb } from "./StatementGates.ts"
import { defineTool, toolResult, type ToolRun } from "./Tool.ts"
import { connectionId, database, integer, schemaName, text } from "./ToolArguments.ts"

export { checkWriteGates, classifyForExecution, statementVerb } from "./StatementGates.ts"

export const QueryTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const settings = yield* SettingsStore
  const approval = yield* StatementApproval
  const preflight = yield* ApprovalPreflight
  const recorder = yield* StatementRecorder
  const search = yield* SearchToolRoutes
  const continuations = yield* Continuations

  const executeQuery = defineTool({
    name: "execute_query",
    description:
      "Runs one statement (search: METHOD /path JSON). Writes ask the user; DROP/TRUNCATE: confirm_destructive_operation. Returns a result set.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      query: text(),
      max_rows: Schema.optionalWith(integer(), { exact: true }),
      timeout_seconds: Schema.optionalWith(integer(), { exact: true }),
      database,
      schema: schemaName
    }),
    scopes: TOOL_SCOPES.execute_query,
    readOnly: false,
    prepare: (args, context) =>
      Effect.gen(function*() {
        const limits = (yield* settings.current).limits
        const maxRows = args.max_rows ?? limits.defaultRows
        const timeoutSeconds = args.timeout_seconds ?? limits.queryTimeoutSeconds
        if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > limits.maxRows) {
          return yield* toolFailure("invalid_argument", `max_rows must be a whole number from 1 to ${limits.maxRows}`)
        }
        if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 300) {
          return yield* toolFailure("invalid_argument", "timeout_seconds must be a whole number from 1 to 300")
        }
        const namespace = yield* namespaceOf(args)
        // D-70: the statement policy decides (gates in order, the access dialog asked where it says).
        const { connection, decision } = yield* access.statement(
          context,
          args.connection_id,
          "execute_query",
          args.query,
          namespace.database
        )
        // D-26: approval for every non-safe statement, and for every statement on a confirm-all connection.
        const needsApproval = decision.outcome.kind === "runs" && decision.outcome.asks.includes("approval")
        if (connection.type === "search") {
          return yield* search.execute(connection, {
            query: args.query,
            maxRows,
            timeoutSeconds,
            tier: decision.facts.tier ?? "write",
            needsApproval
          }, context)
        }
        const classification: Classification = decision.facts.classification ??
          { tier: "write", reachesFilesOrCode: false, statementCount: 1 }
        const handle = classification.tier === "safe" ? "readonly" : "readwrite"
        // D-64: the policy's AI-settings gate refused what they forbid; what it found guards the answer.
        const guard = decision.facts.guard
        const subject = (over?: OverBudget) => ({
          connection,
          what: statementVerb(args.query),
          statement: args.query,
          // D-95: the estimate is the question's preview; the planner compiled the statement already.
          preflight: over === undefined
            ? preflight.sql(connection, args.query, handle, namespace)
            : { check: Effect.void, preview: Effect.succeed(over.preview) },
          ...(over !== undefined
            ? { warning: "reads more than this connection's cost budget allows" }
            : classification.approvalHint === undefined
            ? {}
            : { warning: classification.approvalHint })
        })
        const runWith = (gate: ApprovalGate | undefined) => {
          const run = mapDriverFailure(Effect.gen(function*() {
            yield* context.progress(0, "Resolving connection")
            if (gate?.kind === "proceed") yield* gate.askApp
            const driver = yield* drivers.forConnection(connection)
            yield* context.progress(0.3, "Executing")
            // A safe read is opened as a held cursor where the driver can: a capped answer then continues with fetch_more.
            const continued = handle === "readonly"
              ? yield* withRowProgress(context.progress, maxRows, (onRows) =>
                readContinued(
                  continuations,
                  driver,
                  args.query,
                  {
                    caller: context.principal.key,
                    connectionId: connection.id,
                    maxRows,
                    timeoutSeconds,
                    limits,
                    guard,
                    onRows,
                    ...namespace
                  },
                  limits.continuationIdleSeconds,
                  limits.continuationMaxSeconds
                ))
              : undefined
            const resultSet = continued?.resultSet ??
              (yield* driver.execute(args.query, {
                maxRows,
                timeoutSeconds,
                access: handle,
                ...namespace,
                limits,
                guard
              }))
            yield* context.progress(1, "Done")
            return continued?.handle === undefined
              ? resultSet
              : { ...resultSet, continuation: { handle: continued.handle } }
          }))
          return Effect.map(recorder.observe(connection.id, args.query, run), guardedResult)
        }
        const budget = handle === "readonly" ? costBudgetOf(connection) : undefined
        if (budget === undefined) {
          const gate = needsApproval ? yield* approval.gate(context, subject()) : undefined
          if (gate?.kind === "input_required") {
            return Effect.succeed(gate.result)
          }
          return runWith(gate)
        }
        // D-95: the estimate runs inside the response, under the call's deadline and cancel; above the budget the
        // call asks (the same dialog or form as a write, the estimate shown) or is refused with advice.
        return Effect.gen(function*() {
          const over = yield* checkCost(drivers, connection, args.query, budget, {
            seconds: timeoutSeconds,
            ...namespace
          })
          if (over !== undefined && budget.mode === "refuse") {
            return yield* over.refusal
          }
          const gate = needsApproval || over !== undefined ? yield* approval.gate(context, subject(over)) : undefined
          if (gate?.kind === "input_required") return gate.result
          return yield* runWith(gate)
        })
      })
  })

  const explainQuery = defineTool({
    name: "explain_query",
    description: "Returns a plan; analyze runs it (reads only).",
    arguments: Schema.Struct({
      connection_id: connectionId,
      query: text(),
      analyze: Schema.optionalWith(Schema.Boolean, { exact: true })
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        const connection = yield* access.resolve(context.principal, args.connection_id, context.clientInfo?.name)
        const classification = yield* classifyForExecution(args.query, connection)
        const guard = yield* gateStatement(args.query, connection)
        if (args.analyze === true && classification.tier !== "safe") {
          return yield* toolFailure(
            "denied",
            "analyze runs the statement, so it is only allowed for a statement that reads"
          )
        }
        const { limits } = yield* settings.current
        const explained: ToolRun = mapDriverFailure(Effect.flatMap(drivers.forConnection(connection), (driver) =>
          Effect.map(driver.explain(args.query, args.analyze ?? false, limits), (resultSet) =>
            toolResult(resultSet as unknown as JsonObject))))
        // D-95: analyze runs the statement, so on a guarded connection it is estimated first, like execute_query's read.
        const budget = args.analyze === true ? costBudgetOf(connection) : undefined
        const run: ToolRun = budget === undefined ? explained : Effect.gen(function*() {
          const over = yield* checkCost(drivers, connection, args.query, budget, {
            seconds: limits.queryTimeoutSeconds
          })
          if (over === undefined) {
            return yield* explained
          }
          if (budget.mode === "refuse") {
            return yield* over.refusal
          }
          const gate = yield* approval.gate(context, {
            connection,
            what: `EXPLAIN ANALYZE of ${statementVerb(args.query)}`,
            statement: args.query,
            warning: "reads more than this connection's cost budget allows",
            preflight: { check: Effect.void, preview: Effect.succeed(over.preview) }
          })
          if (gate.kind === "input_required") {
            return gate.result
          }
          yield* gate.askApp
          return yield* explained
        })
        // D-64: analyze runs the statement, and an error while it reads rows may quote a guarded value.
        return guard === undefined || args.analyze !== true ?
          run :
          Effect.mapError(run, (error) =>
            error instanceof ToolFailure && error.code === "query_failed"
              ? toolFailure(
                "query_failed",
                `${
                  withheldError(undefined)
                }; without analyze the statement does not run, and the planner's own message is shown`
              )
              : error)
      })
  })

  return [executeQuery, explainQuery] as const
})
