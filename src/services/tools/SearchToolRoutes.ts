import { Duration, Effect } from "effect"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"
import type { SearchConnection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../../domain/SqlBrowse.ts"
import { toolFailure, ToolFailure } from "../../domain/ToolErrors.ts"
import type { MethodContext } from "../MethodContext.ts"
import type { CallOptions } from "../../search/SearchClient.ts"
import { ApprovalPreflight } from "../ApprovalPreflight.ts"
import { DriverRegistry, type StatementTier } from "../DriverRegistry.ts"
import type { SearchSession } from "../drivers/SearchDriver.ts"
import { SettingsStore } from "../Settings.ts"
import { StatementApproval } from "../StatementApproval.ts"
import { checkWriteGates, statementVerb } from "./StatementGates.ts"
import { guardedResult } from "./Guards.ts"
import { counting, withElapsedProgress } from "./RowProgress.ts"
import { toolResult, type ToolRun } from "./Tool.ts"

type SessionCall = (
  session: SearchSession,
  options: CallOptions
) => Effect.Effect<JsonObject, ToolFailure | ProtocolError>

/** The caller's trace context, forwarded as headers on every engine request of this call (C2.2-f). */
const optionsOf = (context: MethodContext): CallOptions => ({ trace: context.envelope?.traceContext })

const json = (value: unknown): JsonObject => JSON.parse(JSON.stringify(value)) as JsonObject

/** dbdesk's own statement deadline is the JSON-RPC error -33003 (D-18). */
const withDeadline = (seconds: number) => <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.timeoutFail(effect, {
    duration: Duration.seconds(seconds),
    onTimeout: () =>
      ProtocolError.of(-33003, `The request ran past its ${seconds} s deadline and was stopped`, {
        deadline: "statement",
        seconds
      })
  })

/** A lost or unreachable engine names the connection, as every driver's connection failure does (D-73). */
const namingConnection =
  (connection: SearchConnection) => <A, R>(effect: Effect.Effect<A, ToolFailure | ProtocolError, R>) =>
    Effect.mapError(
      effect,
      (error) =>
        error instanceof ToolFailure && error.code === "not_connected"
          ? toolFailure("not_connected", `'${connection.name}': ${error.detail}`)
          : error
    )

/** How many import lines the approval shows before "… and N more" (D-26). */
const shownRows = 10

/** D-26: for a search-engine request the statement shown is the method, path and body. */
export const importApprovalText = (
  collection: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
) => {
  const lines = rows.slice(0, shownRows).map((row) =>
    JSON.stringify(Object.fromEntries(columns.map((name, index) => [name, row[index] ?? null])))
  )
  const more = rows.length > shownRows ? [`… and ${rows.length - shownRows} more documents`] : []
  return [`POST /collections/${encodeURIComponent(collection)}/documents/import?action=create`, ...lines, ...more].join(
    "\n"
  )
}

/**
 * The search-engine branch of each MCP tool (D-21, search rows): the session comes from the driver
 * registry, which enables the search driver on the first use of a saved connection (S1-b). Interrupting a run aborts
 * its HTTP request.
 */
export class SearchToolRoutes extends Effect.Service<SearchToolRoutes>()("dbdesk/services/tools/SearchToolRoutes", {
  effect: Effect.gen(function*() {
    const registry = yield* DriverRegistry
    const approval = yield* StatementApproval
    const preflight = yield* ApprovalPreflight
    const settings = yield* SettingsStore
    /** The answer caps are read at call time, so a settings change applies to the next call. */
    const answerLimits = Effect.map(settings.current, ({ limits }): AnswerLimits => limits)

    // A tool without timeout_seconds gets limits.queryTimeoutSeconds: a stalled engine socket cannot hold a call (D-73).
    const withSession = (connection: SearchConnection, context: MethodContext, use: SessionCall): ToolRun =>
      Effect.flatMap(
        settings.current,
        (current) =>
          Effect.flatMap(registry.openSearch(connection), ({ session }) => use(session, optionsOf(context))).pipe(
            withDeadline(current.limits.queryTimeoutSeconds),
            namingConnection(connection)
          )
      )

    const listTables = (connection: SearchConnection, includeRowCounts: boolean, context: MethodContext) =>
      withSession(
        connection,
        context,
        (session, options) =>
          Effect.map(session.listTables(includeRowCounts, options), (tables) => toolResult({ tables: json(tables) }))
      )

    const describeTable = (connection: SearchConnection, table: string, context: MethodContext) =>
      withSession(
        connection,
        context,
        (session, options) =>
          Effect.map(session.describeTable(table, options), (description) => toolResult(json(description)))
      )

    const tableDdl = (connection: SearchConnection, table: string, context: MethodContext) =>
      withSession(
        connection,
        context,
        (session, options) =>
          Effect.map(session.describeTable(table, options), (description) => toolResult({ ddl: description.ddl ?? "" }))
      )

    const browse = (
      connection: SearchConnection,
      table: string,
      query: BrowseQuery,
      defaultRows: number,
      context: MethodContext
    ) =>
      withSession(
        connection,
        context,
        (session, options) =>
          Effect.flatMap(answerLimits, (limits) =>
            Effect.map(
              session.browse(table, query, defaultRows, options, limits, connection.maskingRules),
              guardedResult
            ))
      )

    const count = (
      connection: SearchConnection,
      table: string,
      filters: ReadonlyArray<BrowseFilter>,
      logic: FilterLogic,
      context: MethodContext
    ) =>
      withSession(
        connection,
        context,
        (session, options) =>
          counting(
            context.progress,
            Effect.map(session.count(table, filters, logic, options), (result) => toolResult({ ...result }))
          )
      )

    const status = (connection: SearchConnection, context: MethodContext) =>
      withSession(
        connection,
        context,
        (session, options) => Effect.map(session.status(options), (result) => toolResult({ ...result }))
      )

    const search = (
      connection: SearchConnection,
      request: Parameters<SearchSession["search"]>[0],
      context: MethodContext
    ) =>
      withSession(
        connection,
        context,
        (session, options) =>
          Effect.flatMap(
            answerLimits,
            (limits) => Effect.map(session.search(request, options, limits, connection.maskingRules), guardedResult)
          )
      )

    /**
     * `execute_query` with console text (D-22), after the statement policy passed it (D-70 item
     * 3): safe requests run, writes are approved; the policy refused DELETE already.
     */
    const execute = Effect.fn("SearchToolRoutes.execute")(function*(
      connection: SearchConnection,
      args: {
        readonly query: string
        readonly maxRows: number
        readonly timeoutSeconds: number
        readonly tier: StatementTier
        readonly needsApproval: boolean
      },
      context: MethodContext
    ) {
      const { needsApproval, tier } = args
      const gate = needsApproval
        ? yield* approval.gate(context, {
          connection,
          what: statementVerb(args.query),
          statement: args.query.trim(),
          ...(tier === "safe" ? {} : { preflight: preflight.search(connection, args.query, optionsOf(context)) })
        })
        : undefined
      if (gate?.kind === "input_required") return Effect.succeed(gate.result)
      const run: ToolRun = Effect.gen(function*() {
        yield* context.progress(0, "Resolving connection")
        if (gate !== undefined) yield* gate.askApp
        const { session } = yield* registry.openSearch(connection)
        yield* context.progress(0.3, "Executing")
        // D-94: the engine answers a request whole (one response, however many searches it holds): no rows so far to
        // tell, so the seconds it has been waiting.
        const result = yield* session.execute(
          args.query,
          args.maxRows,
          optionsOf(context),
          yield* answerLimits,
          connection.maskingRules
        ).pipe(
          withDeadline(args.timeoutSeconds),
          (reading) => withElapsedProgress(context.progress, "waiting for the engine", reading)
        )
        yield* context.progress(1, "Done")
        return guardedResult(result)
      }).pipe(namingConnection(connection))
      return run
    })

    /** `confirm_destructive_operation`: only a `DELETE` request (the statement policy checked it), and consent is always asked. */
    const confirmDestructive = Effect.fn("SearchToolRoutes.confirmDestructive")(function*(
      connection: SearchConnection,
      args: { readonly query: string; readonly timeoutSeconds: number },
      context: MethodContext
    ) {
      const gate = yield* approval.gate(context, {
        connection,
        what: statementVerb(args.query),
        statement: args.query.trim(),
        warning: "destroys data and cannot be undone",
        destructive: true,
        preflight: preflight.search(connection, args.query, optionsOf(context))
      })
      if (gate.kind === "input_required") return Effect.succeed(gate.result)
      const run: ToolRun = Effect.gen(function*() {
        yield* gate.askApp
        const { session } = yield* registry.openSearch(connection)
        const result = yield* session.execute(
          args.query,
          1,
          optionsOf(context),
          yield* answerLimits,
          connection.maskingRules
        ).pipe(withDeadline(args.timeoutSeconds))
        return guardedResult(result)
      }).pipe(namingConnection(connection))
      return run
    })

    /** `insert_rows` into a collection: one approved import call; failed rows are reported (D-21). */
    const insertRows = Effect.fn("SearchToolRoutes.insertRows")(function*(
      connection: SearchConnection,
      args: {
        readonly table: string
        readonly columns: ReadonlyArray<string>
        readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
      },
      context: MethodContext
    ) {
      yield* checkWriteGates("write", connection, context)
      const gate = yield* approval.gate(context, {
        connection,
        what: `an import of ${args.rows.length} document${args.rows.length === 1 ? "" : "s"} into ${args.table}`,
        statement: importApprovalText(args.table, args.columns, args.rows),
        preflight: preflight.searchInsert(connection, args.table, optionsOf(context))
      })
      if (gate.kind === "input_required") return Effect.succeed(gate.result)
      const run: ToolRun = Effect.gen(function*() {
        yield* gate.askApp
        const { session } = yield* registry.openSearch(connection)
        const result = yield* session.insertRows(args.table, args.columns, args.rows, optionsOf(context))
        return toolResult(json(result))
      }).pipe(namingConnection(connection))
      return run
    })

    return {
      listTables,
      describeTable,
      tableDdl,
      browse,
      count,
      status,
      search,
      execute,
      confirmDestructive,
      insertRows
    } as const
  })
}) {}
