import { Clock, Effect, Either } from "effect"
import {
  AnswerBudget,
  type AnswerHints,
  type AnswerLimits,
  DEFAULT_ANSWER_LIMITS,
  SEARCH_HINTS
} from "../domain/AnswerBudget.ts"
import { capAnswerText } from "../domain/JsonBudget.ts"
import { type AppliedRule, keptNames, projectRow } from "../domain/AnswerGate.ts"
import { maskedCell, type MaskingRuleSpec } from "../domain/ColumnGuard.ts"
import { columnActions } from "../domain/DocumentGuard.ts"
import type { ResultSet } from "../domain/ResultSet.ts"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../domain/SqlBrowse.ts"
import type { TableDescription, TableEntry } from "../domain/SqlTable.ts"
import { ToolFailure } from "../domain/ToolErrors.ts"
import type { ColumnFilter } from "../domain/SearchFilter.ts"
import { searchErrorCode } from "../domain/SearchErrors.ts"
import type {
  SearchConsoleRefused,
  SearchEditRefused,
  SearchEngineError,
  SearchFilterRefused,
  SearchPathRefused
} from "../domain/SearchErrors.ts"
import { classifyConsoleText, parseConsoleInput } from "./ConsoleRequest.ts"
import type { RequestTier } from "./ConsoleRequest.ts"
import { countRows, describeCollection, readPage } from "./SearchBrowse.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"
import { runConsoleRequest } from "./SearchConsole.ts"
import { listCollections } from "./SearchServer.ts"
import { droppedSortsMessage } from "./ReadPlan.ts"
import { aliasesOf, guardResponseBody } from "./SearchGuard.ts"

/** A result set with the masking rules that changed it (D-65; noted in the activity log, never sent). */
export type GuardedResultSet = ResultSet & { readonly applied?: ReadonlyArray<AppliedRule> }

type SearchError =
  | SearchEngineError
  | SearchFilterRefused
  | SearchConsoleRefused
  | SearchPathRefused
  | SearchEditRefused

/** A search failure as an MCP tool error (D-58, Errors row); the engine's message stays verbatim. */
export const toToolFailure = (error: SearchError): ToolFailure =>
  new ToolFailure({
    code: error._tag === "SearchEngineError" ? searchErrorCode(error) : "invalid_argument",
    detail: error.message
  })

const asTool = <A, E extends SearchError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (error) => toToolFailure(error))

const scalarText = (value: string | number | boolean | null) => (value === null ? "" : String(value))

/** A `browse_table` / `count_rows` filter for the search compiler (D-21: the grid's rules apply). */
export const columnFilterOf = (filter: BrowseFilter): ColumnFilter => {
  const value = filter.value === undefined
    ? undefined
    : Array.isArray(filter.value)
    ? filter.value.map(scalarText)
    : scalarText(filter.value as string | number | boolean | null)
  return {
    column: filter.column,
    operator: filter.operator,
    ...(value === undefined ? {} : { value }),
    ...(filter.second_value === undefined ? {} : { second_value: scalarText(filter.second_value) })
  }
}

/**
 * `list_tables` on a search connection: collections with `num_documents`. A key that may not list collections is a
 * `denied` tool error carrying the engine's reason (the sidebar shows the same reason with an empty list).
 */
export const searchListTables = (client: SearchClient, includeRowCounts: boolean, options?: CallOptions) =>
  asTool(listCollections(client, options)).pipe(
    Effect.flatMap((listing) =>
      listing.unavailableReason !== undefined
        ? Effect.fail(new ToolFailure({ code: "denied", detail: listing.unavailableReason }))
        : Effect.succeed(listing.collections.map((collection): TableEntry => ({
          name: collection.name,
          type: "table",
          ...(includeRowCounts ? { row_count: Math.max(0, Math.trunc(collection.num_documents)) } : {})
        })))
    )
  )

/** `describe_table`: doc 2 §2.2 columns, `ddl` = the collection schema JSON (D-21). */
export const searchDescribeTable = (client: SearchClient, table: string, options?: CallOptions) =>
  asTool(describeCollection(client, table, options)).pipe(
    Effect.map(({ columns, schema }): TableDescription => ({
      table,
      columns: columns.map((column) => ({
        name: column.name,
        data_type: column.type,
        is_nullable: column.isNullable,
        is_primary_key: column.isPrimaryKey,
        is_sortable: column.isSortable
      })),
      indexes: [],
      foreign_keys: [],
      ddl: JSON.stringify(schema, null, 2),
      approximate_row_count: Math.max(0, Math.trunc(schema.num_documents))
    }))
  )

/**
 * `browse_table` on a search connection: the grid's read path (doc 2 §4), with dropped sorts named in
 * `status_message`. `columns` limits the returned columns; an unknown one is an `invalid_argument`. Fields are cut at
 * `limits.maxCellBytes` and rows stop at `limits.maxAnswerBytes`, and `status_message` says so.
 */
export const searchBrowseTable = Effect.fn("SearchTools.browseTable")(function*(
  client: SearchClient,
  table: string,
  query: BrowseQuery,
  defaultRows: number,
  options?: CallOptions,
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
  rules: ReadonlyArray<MaskingRuleSpec> = []
) {
  const started = yield* Clock.currentTimeMillis
  const offset = query.offset ?? 0
  const limit = query.limit ?? defaultRows
  const page = yield* asTool(readPage(client, {
    collection: table,
    offset,
    limit,
    filter: { filters: (query.filters ?? []).map(columnFilterOf), logic: query.logic ?? "and" },
    sort: query.sort ?? []
  }, options))
  const names = page.columns.map((column) => column.name)
  const wanted = query.columns ?? names
  const missing = wanted.filter((name) => !names.includes(name))
  if (missing.length > 0) {
    return yield* new ToolFailure({ code: "invalid_argument", detail: `${table} has no column ${missing.join(", ")}` })
  }
  const picks = wanted.map((name) => names.indexOf(name))
  const budget = new AnswerBudget(limit, limits, SEARCH_HINTS)
  // D-65: the collection's masking rules on its (flattened) fields, for MCP callers.
  const applied: Array<AppliedRule> = []
  const actions = columnActions(wanted, table, rules, applied)
  const columns = budget.header(keptNames(wanted, actions))
  for (const row of page.rows) {
    if (!budget.add(projectRow(picks.map((index) => row[index] ?? null), actions, maskedCell))) break
  }
  const more = budget.stoppedBy === undefined && page.found > offset + budget.rows.length
  const result = budget.resultSet(columns, {
    executionMs: Math.max(0, (yield* Clock.currentTimeMillis) - started),
    statusMessage: joined(
      droppedSortsMessage(page.droppedSorts),
      more
        ? `showing ${budget.rows.length} of ${page.found} documents from offset ${offset}; ${SEARCH_HINTS.rows}`
        : undefined
    )
  })
  return {
    ...result,
    is_truncated: result.is_truncated || more,
    ...(applied.length === 0 ? {} : { applied })
  } satisfies GuardedResultSet
})

const joined = (...parts: ReadonlyArray<string | undefined>): string | undefined => {
  const present = parts.filter((part): part is string => part !== undefined)
  return present.length === 0 ? undefined : present.join(" ")
}

/** `count_rows`: an exact count through `per_page=0` (typesense-reference §7.3). */
export const searchCountRows = (
  client: SearchClient,
  table: string,
  filters: ReadonlyArray<BrowseFilter>,
  logic: FilterLogic,
  options?: CallOptions
) =>
  asTool(countRows(client, table, { filters: filters.map(columnFilterOf), logic }, undefined, options)).pipe(
    Effect.map((count) => ({ row_count: count, is_approximate: false }))
  )

/**
 * The approval tier of `execute_query` console text on a search connection (D-22); SQL-like or
 * unparseable text is refused before any approval is asked.
 */
export const classifySearchConsoleText: (text: string) => Either.Either<RequestTier, SearchConsoleRefused> =
  classifyConsoleText

/** A console answer that is not a grid is one JSON text (S4.3-d): cut like any cell, with advice that fits it. */
const JSON_RESPONSE_HINTS: AnswerHints = {
  ...SEARCH_HINTS,
  cells: "ask the engine for less: one collection, a smaller per_page or limit, include_fields or exclude_fields",
  readPart: "ask the engine for less"
}

/**
 * `execute_query` on a search connection: console text run and rendered by the console rules (doc 2 §4.3), within the
 * answer caps: cells (grid fields, or the one JSON response) are cut at `limits.maxCellBytes` and rows stop at
 * `limits.maxAnswerBytes`.
 */
export const searchExecute = Effect.fn("SearchTools.execute")(function*(
  client: SearchClient,
  text: string,
  maxRows: number,
  options?: CallOptions,
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
  rules: ReadonlyArray<MaskingRuleSpec> = []
) {
  const started = yield* Clock.currentTimeMillis
  const request = yield* asTool(parseConsoleInput(text))
  const applied: Array<AppliedRule> = []
  const aliases = rules.length === 0 ? undefined : yield* aliasesOf(client, options)
  const guardBody = aliases === undefined
    ? undefined
    : (body: string) => guardResponseBody(body, request, aliases, rules, applied)
  const output = yield* runConsoleRequest(client, request, options, guardBody).pipe(
    Effect.mapError((error) => (error instanceof ToolFailure ? error : toToolFailure(error)))
  )
  const budget = new AnswerBudget(maxRows, limits, output._tag === "Grid" ? SEARCH_HINTS : JSON_RESPONSE_HINTS)
  const columns = budget.header(output._tag === "Grid" ? output.columns : ["response"])
  for (const row of output._tag === "Grid" ? output.rows : [[output.text]]) if (!budget.add(row)) break
  const result = budget.resultSet(columns, { executionMs: Math.max(0, (yield* Clock.currentTimeMillis) - started) })
  return applied.length === 0 ? result : { ...result, applied }
})

/**
 * The UI console's JSON view (S4.3-d) is a page of its own, not a cell: it is cut only where it alone would pass
 * `limits.maxAnswerBytes`.
 */
export const capJsonResponse = (
  text: string,
  limits: AnswerLimits
): { readonly text: string; readonly note?: string } => {
  const capped = capAnswerText(text, limits, "ask the engine for less")
  if (!capped.cut) return { text }
  return {
    text: capped.text,
    note:
      `the response was cut at limits.maxAnswerBytes (${limits.maxAnswerBytes} bytes); ask the engine for less: one collection, a smaller per_page or limit, include_fields or exclude_fields`
  }
}
