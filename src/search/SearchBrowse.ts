import { Effect, Schema } from "effect"
import type { SearchFilterRequest, SortRequest } from "../domain/SearchFilter.ts"
import { SearchEngineError } from "../domain/SearchErrors.ts"
import type { SearchColumn, SearchPage } from "../domain/SearchGrid.ts"
import { deriveColumns, type EngineCollection } from "./CollectionSchema.ts"
import { compileFilter, precheckFilter } from "./FilterCompiler.ts"
import { formatConsoleRequest } from "./ConsoleRequest.ts"
import { documentRow } from "./Flatten.ts"
import { defaultPageSize, planPage, planSorts } from "./ReadPlan.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"

/** One slot of a `multi_search` answer: a result, or `{code, error}` (typesense-reference §1.3). */
const SearchSlot = Schema.Struct({
  code: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  found: Schema.optional(Schema.Number),
  search_time_ms: Schema.optional(Schema.Number),
  hits: Schema.optional(
    Schema.Array(Schema.Struct({ document: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }))
  )
})
const MultiSearchResult = Schema.Struct({ results: Schema.Array(SearchSlot) })

export type SearchParams = Record<string, string | number>

/**
 * `POST /multi_search` (S4-b); a slot holding an `error` fails the whole read with the engine's message verbatim and
 * its code as the status (typesense-reference §7.3).
 */
export const multiSearch = Effect.fn("SearchBrowse.multiSearch")(function*(
  client: SearchClient,
  searches: ReadonlyArray<SearchParams>,
  options?: CallOptions
) {
  const json = yield* client.call("POST", "/multi_search", { _tag: "Json", value: { searches } }, options)
  const { results } = yield* client.decode(MultiSearchResult, json)
  for (const slot of results) {
    if (slot.error !== undefined) {
      return yield* new SearchEngineError(
        slot.code === undefined
          ? { reason: "Status", message: slot.error }
          : { reason: "Status", message: slot.error, status: slot.code }
      )
    }
  }
  return results
})

export interface ReadPageRequest {
  readonly collection: string
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly filter?: SearchFilterRequest | undefined
  readonly sort?: ReadonlyArray<SortRequest> | undefined
  /** The collection's columns when the structure is already loaded; otherwise the schema is read first. */
  readonly columns?: ReadonlyArray<SearchColumn> | undefined
  /** Text searched for (`q`) in the collection's indexed text fields (`query_by`, D-101); absent or blank: every document. */
  readonly query?: string | undefined
}

/** D-101: the fields a text search reads — every indexed `string` / `string[]` field of the schema (never `id`). */
export const textFields = (schema: Pick<EngineCollection, "fields">): Array<string> =>
  schema.fields.filter((field) =>
    (field.type === "string" || field.type === "string[]") && field.index !== false && field.name !== "id" &&
    !field.name.includes(".*")
  )
    .map((field) => field.name)

const noFilter: SearchFilterRequest = { filters: [], logic: "and" }

/** The columns of a collection, read from its schema (`GET /collections/:c`); a reload re-reads it (S2.2-e). */
export const describeCollection = Effect.fn("SearchBrowse.describeCollection")(function*(
  client: SearchClient,
  collection: string,
  options?: CallOptions
) {
  const schema = yield* client.getCollection(collection, options)
  return { schema, columns: deriveColumns(schema) }
})

/**
 * The searches of one grid page (doc 2 §4.1): filters refused before any request (S7-e), unsortable sorts and a
 * fourth sort dropped and reported (S4.1-b/c, S7-a), searches of ≤ 250 hits batched ≤ 50 per `multi_search` call.
 * The grid reads them (readPage) and "Open in console" writes them as the console request (D-87).
 */
export const planRead = Effect.fn("SearchBrowse.planRead")(function*(
  client: SearchClient,
  request: ReadPageRequest,
  options?: CallOptions
) {
  const filter = request.filter ?? noFilter
  yield* precheckFilter(filter)
  const query = request.query?.trim() ?? ""
  const described = request.columns === undefined || query !== ""
    ? yield* describeCollection(client, request.collection, options)
    : undefined
  const columns = request.columns ?? described?.columns ?? []
  const filterBy = yield* compileFilter(filter, columns)
  const queryBy = described === undefined ? [] : textFields(described.schema)
  if (query !== "" && queryBy.length === 0) {
    return yield* new SearchEngineError({
      reason: "Status",
      status: 400,
      message: `Nothing to search in: '${request.collection}' has no indexed text field. Use a filter instead.`
    })
  }
  const sorts = planSorts(request.sort ?? [], columns)
  const offset = Math.max(0, Math.trunc(request.offset ?? 0))
  const limit = Math.trunc(request.limit ?? defaultPageSize)
  const batches = planPage(offset, limit).map((batch) =>
    batch.map((slice): SearchParams => ({
      collection: request.collection,
      q: query === "" ? "*" : query,
      ...(query === "" ? {} : { query_by: queryBy.join(",") }),
      offset: slice.offset,
      limit: slice.limit,
      ...(filterBy === undefined ? {} : { filter_by: filterBy }),
      ...(sorts.sortBy === undefined ? {} : { sort_by: sorts.sortBy })
    }))
  )
  return { columns, filterBy, sorts, batches }
})

/** Reads one page of a collection (doc 2 §4.1): the default 1,000-row page in one round trip (S4.1-a); reading stops at the first short search. */
export const readPage = Effect.fn("SearchBrowse.readPage")(function*(
  client: SearchClient,
  request: ReadPageRequest,
  options?: CallOptions
) {
  const { batches, columns, filterBy, sorts } = yield* planRead(client, request, options)
  const names = columns.map((column) => column.name)
  const rows: Array<SearchPage["rows"][number]> = []
  let found = 0
  for (const searches of batches) {
    const results = yield* multiSearch(client, searches, options)
    found = results[0]?.found ?? found
    let short = results.length < searches.length
    searches.forEach((search, index) => {
      const hits = results[index]?.hits ?? []
      if (short) return
      hits.forEach((hit) => rows.push(documentRow(hit.document, names)))
      if (hits.length < Number(search["limit"])) short = true
    })
    if (short) break
  }
  const page: SearchPage = {
    columns,
    rows,
    found,
    droppedSorts: sorts.dropped,
    ...(filterBy === undefined ? {} : { filterBy }),
    ...(sorts.sortBy === undefined ? {} : { sortBy: sorts.sortBy })
  }
  return page
})

/**
 * D-87: the grid's page as console text, `POST /multi_search` with exactly the searches readPage sends;
 * a page needing more than one call (over 50 searches of 250 hits) cannot be one console request.
 */
export const pageConsoleText = Effect.fn("SearchBrowse.pageConsoleText")(function*(
  client: SearchClient,
  request: ReadPageRequest,
  options?: CallOptions
) {
  const { batches } = yield* planRead(client, request, options)
  if (batches.length > 1) {
    return yield* new SearchEngineError({
      reason: "Status",
      status: 400,
      message:
        `This page needs ${batches.length} multi_search calls (at most 50 searches of 250 hits each): it cannot be one console request.`
    })
  }
  return formatConsoleRequest({
    method: "POST",
    path: "/multi_search",
    body: { _tag: "Json", value: { searches: batches[0] ?? [] } }
  })
})

/** Rows matching a filter: one search with `per_page=0`, reading `found` (typesense-reference §7.3). */
export const countRows = Effect.fn("SearchBrowse.countRows")(function*(
  client: SearchClient,
  collection: string,
  filter?: SearchFilterRequest,
  columns?: ReadonlyArray<SearchColumn>,
  options?: CallOptions
) {
  const request = filter ?? noFilter
  yield* precheckFilter(request)
  const known = columns ?? (request.filters.length === 0
    ? []
    : (yield* describeCollection(client, collection, options)).columns)
  const filterBy = yield* compileFilter(request, known)
  const search: SearchParams = {
    collection,
    q: "*",
    per_page: 0,
    ...(filterBy === undefined ? {} : { filter_by: filterBy })
  }
  const results = yield* multiSearch(client, [search], options)
  return results[0]?.found ?? 0
})
