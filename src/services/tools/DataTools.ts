import { Effect, ParseResult, Schema } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { BrowseFilter, BrowseQuery, FilterLogic, FilterValue, ScalarValue } from "../../domain/SqlBrowse.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Drivers } from "../Drivers.ts"
import { SettingsStore } from "../Settings.ts"
import { database, namespaceOf, requireName, schemaName, withDriver } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, described, toolResult } from "./Tool.ts"

const connectionId = described(Schema.String, "Id of the connection, from list_connections")
const table = described(Schema.String, "Name of the table (or collection), from list_tables")

/** JSON shape only; operator names and value rules are checked after, as `invalid_argument`. */
const FilterArgument = Schema.Struct({
  column: Schema.String,
  operator: described(Schema.String, "= != > >= < <= between in not_in contains not_contains starts_with is_null is_not_null"),
  value: Schema.optionalWith(FilterValue, { exact: true }),
  second_value: Schema.optionalWith(ScalarValue, { exact: true })
})
const filters = Schema.optionalWith(described(Schema.Array(FilterArgument), "Row filters"), { exact: true })
const logic = Schema.optionalWith(described(Schema.String, "and (every filter) or or (any filter); default and"), { exact: true })

const semantic = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError((error) => toolFailure("invalid_argument", `${what}: ${ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.path.join(".") || "value"} ${issue.message}`).join("; ")}`))
  )

export const DataTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const settings = yield* SettingsStore
  const search = yield* SearchToolRoutes

  const browseTable = defineTool({
    name: "browse_table",
    title: "Browse a table",
    description: "Reads rows of a table with optional column choice, filters, sort and paging. Values are bound, never interpolated.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      table,
      columns: Schema.optionalWith(described(Schema.Array(Schema.String), "Columns to return (default: all)"), { exact: true }),
      filters,
      logic,
      sort: Schema.optionalWith(described(Schema.Array(Schema.Struct({ column: Schema.String, direction: Schema.String })), "Sort keys; direction asc or desc"), { exact: true }),
      limit: Schema.optionalWith(described(Schema.Number, "Rows to return (default limits.defaultRows, at most limits.maxRows)"), { exact: true }),
      offset: Schema.optionalWith(described(Schema.Number, "Rows to skip"), { exact: true }),
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
        const query = yield* semantic(BrowseQuery, { ...args, limit, connection_id: undefined, table: undefined, database: undefined, schema: undefined }, "browse_table arguments")
        return yield* withDriver(access, drivers, context, args.connection_id, (driver) =>
          Effect.map(driver.browse(args.table, query, namespace, limits), (resultSet) => toolResult(resultSet as unknown as JsonObject)),
          (connection) => search.browse(connection, args.table, query, limits.defaultRows, context))
      })
  })

  const countRows = defineTool({
    name: "count_rows",
    title: "Count rows",
    description: "Counts the rows of a table, optionally only those matching filters.",
    arguments: Schema.Struct({ connection_id: connectionId, table, filters, logic, database, schema: schemaName }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        yield* requireName(args.table, "table")
        const parsedFilters = yield* semantic(Schema.Array(BrowseFilter), args.filters ?? [], "filters")
        const parsedLogic = yield* semantic(FilterLogic, args.logic ?? "and", "logic")
        const namespace = yield* namespaceOf(args)
        return yield* withDriver(access, drivers, context, args.connection_id, (driver) =>
          Effect.map(driver.count(args.table, parsedFilters, parsedLogic, namespace), (count) => toolResult({ ...count })),
          (connection) => search.count(connection, args.table, parsedFilters, parsedLogic, context))
      })
  })

  return [browseTable, countRows] as const
})
