import { Effect, ParseResult, Schema } from "effect"
import { BrowseFilter, BrowseQuery, FilterLogic } from "../../domain/SqlBrowse.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Continuations } from "../Continuations.ts"
import { Drivers } from "../Drivers.ts"
import { SettingsStore } from "../Settings.ts"
import { namespaceOf, requireName, withDriver } from "./SchemaTools.ts"
import { countGuard, guardedResult, resolveTarget, tableGuard } from "./Guards.ts"
import { keepOpened, withContinuation } from "./ContinuationTools.ts"
import { counting } from "./RowProgress.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, toolResult } from "./Tool.ts"
import { connectionId, countFilters, database, filters, integer, logic, schemaName, table } from "./ToolArguments.ts"

/** browse_table takes no timeout_seconds: its reads have the drivers' catalog deadline. */
const BROWSE_SECONDS = 30

const SortArgument = Schema.Struct({ column: Schema.String, direction: Schema.String })
const sort = Schema.Array(SortArgument).annotations({
  jsonSchema: { type: "array", description: "[{column, direction: asc|desc}]" }
})

const semantic = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError((error) =>
      toolFailure(
        "invalid_argument",
        `${what}: ${
          ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
            `${issue.path.join(".") || "value"} ${issue.message}`
          ).join("; ")
        }`
      )
    )
  )

export const DataTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const settings = yield* SettingsStore
  const search = yield* SearchToolRoutes
  const continuations = yield* Continuations

  const browseTable = defineTool({
    name: "browse_table",
    description: "Reads rows without SQL. Returns a result set.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      table,
      columns: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
      filters,
      logic,
      sort: Schema.optionalWith(sort, { exact: true }),
      limit: Schema.optionalWith(integer(), { exact: true }),
      offset: Schema.optionalWith(integer(), { exact: true }),
      database,
      schema: schemaName
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        yield* requireName(args.table, "table")
        const limits = (yield* settings.current).limits
        const limit = args.limit ?? limits.defaultRows
        if (!Number.isInteger(limit) || limit < 1 || limit > limits.maxRows) {
          return yield* toolFailure("invalid_argument", `limit must be a whole number from 1 to ${limits.maxRows}`)
        }
        const namespace = yield* namespaceOf(args)
        const query = yield* semantic(BrowseQuery, {
          ...args,
          limit,
          connection_id: undefined,
          table: undefined,
          database: undefined,
          schema: undefined
        }, "browse_table arguments")
        return yield* withDriver(access, drivers, context, args.connection_id, (driver, connection) =>
          Effect.flatMap(resolveTarget(driver, connection, args.table, namespace), (target) => {
            const guard = tableGuard(connection, target)
            return driver.openBrowseCursor === undefined
              ? Effect.map(driver.browse(target.table, query, target.namespace, limits, guard), guardedResult)
              // A cut page keeps the table's rows open for fetch_more, from the row after it.
              : driver.openBrowseCursor(target.table, query, {
                ...target.namespace,
                timeoutSeconds: BROWSE_SECONDS,
                idleSeconds: limits.continuationIdleSeconds,
                lifeSeconds: limits.continuationMaxSeconds,
                guard,
                maxRows: limit,
                limits
              }).pipe(
                Effect.flatMap((opened) =>
                  keepOpened(continuations, opened, {
                    caller: context.principal.key,
                    connectionId: connection.id,
                    database: target.namespace?.database,
                    maxRows: limit,
                    statement: `browse_table ${target.table}`
                  })
                ),
                Effect.map((answer) =>
                  guardedResult(withContinuation(answer))
                )
              )
          }), (connection) =>
          search.browse(connection, args.table, query, limits.defaultRows, context))
      })
  })

  const countRows = defineTool({
    name: "count_rows",
    description: "Returns a table's row_count, optionally filtered.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      table,
      filters: countFilters,
      logic,
      database,
      schema: schemaName
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        yield* requireName(args.table, "table")
        const parsedFilters = yield* semantic(Schema.Array(BrowseFilter), args.filters ?? [], "filters")
        const parsedLogic = yield* semantic(FilterLogic, args.logic ?? "and", "logic")
        const namespace = yield* namespaceOf(args)
        // D-94: 0 when the call starts, 0.3 once the database is reached, the seconds while it counts, 1 when done.
        const run = yield* withDriver(access, drivers, context, args.connection_id, (driver, connection) =>
          Effect.flatMap(resolveTarget(driver, connection, args.table, namespace), (target) =>
            counting(
              context.progress,
              Effect.map(
                driver.count(
                  target.table,
                  parsedFilters,
                  parsedLogic,
                  target.namespace,
                  countGuard(connection, target)
                ),
                (count) =>
                  toolResult({ ...count })
              )
            )), (connection) =>
          search.count(connection, args.table, parsedFilters, parsedLogic, context))
        return Effect.zipRight(
          context.progress(0, "Resolving connection"),
          Effect.tap(run, () =>
            context.progress(1, "Done"))
        )
      })
  })

  return [browseTable, countRows] as const
})
