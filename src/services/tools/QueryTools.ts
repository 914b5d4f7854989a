import { Effect, Schema } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import type { Classification, StatementTier } from "../../domain/StatementClassifier.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import type { MethodContext } from "../../http/McpMethod.ts"
import { ApprovalPreflight } from "../ApprovalPreflight.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { dialectOf, type PolicyFacts, sqlVerdict, TOOL_SCOPES, writeGateRefusal } from "../policy/StatementPolicy.ts"
import { Drivers } from "../Drivers.ts"
import { SettingsStore } from "../Settings.ts"
import { StatementApproval } from "../StatementApproval.ts"
import { StatementRecorder } from "../StatementRecorder.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { database, namespaceOf } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, described, toolResult, type ToolRun } from "./Tool.ts"

const connectionId = described(Schema.String, "Id of the connection, from list_connections")

/**
 * product-decisions §3.1 for `explain_query`: one statement per call; files/code refused for every external caller
 * (the statement policy's SQL classifier gate, issue 28 item 3; a search connection is refused later, as unsupported).
 */
export const classifyForExecution = (query: string, connection: Connection) =>
  Effect.suspend(() => {
    const facts: PolicyFacts = {}
    const verdict = sqlVerdict(query, dialectOf(connection), facts)
    return verdict.kind === "refuse" ? Effect.fail(verdict.error) : Effect.succeed(facts.classification ?? { tier: facts.tier ?? "write", reachesFilesOrCode: false, statementCount: 1 })
  })

/** Wire contract §5 point 8 / product-decisions §2: the policy's write gates (scope, external access) for a built statement. */
export const checkWriteGates = (tier: StatementTier, connection: Connection, context: MethodContext) =>
  Effect.suspend(() => {
    const refusal = writeGateRefusal({ principal: context.principal, connection }, tier)
    return refusal === undefined ? Effect.void : Effect.fail(refusal)
  })

/** The leading keyword of a statement, for the approval question ("Allow UPDATE on 'Sample'?"). */
export const statementVerb = (query: string): string => {
  // An executable comment (MySQL `/*! … */`, `/*M! … */`) is code, not a comment to skip (issue 34).
  const match = /^(?:\s|--[^\n]*\n|\/\*(?!M?!)[\s\S]*?\*\/)*([A-Za-z]+)/.exec(query)
  return match?.[1]?.toUpperCase() ?? "this statement"
}

export const QueryTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const settings = yield* SettingsStore
  const approval = yield* StatementApproval
  const preflight = yield* ApprovalPreflight
  const recorder = yield* StatementRecorder
  const search = yield* SearchToolRoutes

  const executeQuery = defineTool({
    name: "execute_query",
    title: "Run a query",
    description: "Runs one SQL statement (on a search-engine connection: a REST request, METHOD /path then an optional JSON body) and returns a result set. Reads run at once; writes are confirmed by the user; DROP, TRUNCATE and DELETE requests go through confirm_destructive_operation.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      query: described(Schema.String, "One SQL statement, or for a search-engine connection METHOD /path and an optional JSON body"),
      max_rows: Schema.optionalWith(described(Schema.Number, "Rows to return at most (default limits.defaultRows, 1 to limits.maxRows)"), { exact: true }),
      timeout_seconds: Schema.optionalWith(described(Schema.Number, "Statement deadline in seconds (1–300, default limits.queryTimeoutSeconds)"), { exact: true }),
      database,
      schema: Schema.optionalWith(described(Schema.String, "Schema put first on the search path for this statement (PostgreSQL; SQLite has only main)"), { exact: true })
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
        // Issue 28 item 3: the statement policy decides (gates in order, the access dialog asked where it says).
        const { connection, decision } = yield* access.statement(context, args.connection_id, "execute_query", args.query)
        // product-decisions §3.2: approval for every non-safe statement, and for every statement on a confirm-all connection.
        const needsApproval = decision.outcome.kind === "runs" && decision.outcome.asks.includes("approval")
        if (connection.type === "search") return yield* search.execute(connection, { query: args.query, maxRows, timeoutSeconds, tier: decision.facts.tier ?? "write", needsApproval }, context)
        const classification: Classification = decision.facts.classification ?? { tier: "write", reachesFilesOrCode: false, statementCount: 1 }
        const handle = classification.tier === "safe" ? "readonly" : "readwrite"
        const gate = needsApproval
          ? yield* approval.gate(context, {
            connection,
            what: statementVerb(args.query),
            statement: args.query,
            preflight: preflight.sql(connection, args.query, handle, namespace),
            ...(classification.approvalHint === undefined ? {} : { warning: classification.approvalHint })
          })
          : undefined
        if (gate?.kind === "input_required") return Effect.succeed(gate.result)
        const run = mapDriverFailure(Effect.gen(function*() {
          yield* context.progress(0, "Resolving connection")
          if (gate !== undefined) yield* gate.askApp
          const driver = yield* drivers.forConnection(connection)
          yield* context.progress(0.3, "Executing")
          const resultSet = yield* driver.execute(args.query, { maxRows, timeoutSeconds, access: handle, ...namespace, limits })
          yield* context.progress(1, "Done")
          return resultSet
        }))
        return Effect.map(recorder.observe(connection.id, args.query, run), (resultSet) => toolResult(resultSet as unknown as JsonObject))
      })
  })

  const explainQuery = defineTool({
    name: "explain_query",
    title: "Explain a query",
    description: "Shows the plan of one statement. analyze runs it (PostgreSQL, safe statements only); SQLite shows EXPLAIN QUERY PLAN.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      query: described(Schema.String, "One SQL statement"),
      analyze: Schema.optionalWith(described(Schema.Boolean, "Run the statement to measure it (PostgreSQL, safe statements only)"), { exact: true })
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        const connection = yield* access.resolve(context.principal, args.connection_id, context.clientInfo?.name)
        const classification = yield* classifyForExecution(args.query, connection)
        if (args.analyze === true && classification.tier !== "safe") {
          return yield* toolFailure("denied", "analyze runs the statement, so it is only allowed for a statement that reads")
        }
        const { limits } = yield* settings.current
        const run: ToolRun = mapDriverFailure(Effect.flatMap(drivers.forConnection(connection), (driver) =>
          Effect.map(driver.explain(args.query, args.analyze ?? false, limits), (resultSet) => toolResult(resultSet as unknown as JsonObject))))
        return run
      })
  })

  return [executeQuery, explainQuery] as const
})
