import type { DroppedSort, SortRequest } from "../domain/SearchFilter.ts"
import type { SearchColumn } from "../domain/SearchGrid.ts"

/** Engine limits (doc 2 §8): hits per search, searches per `multi_search`, sort fields, default page. */
export const maxHitsPerSearch = 250
export const maxSearchesPerCall = 50
export const maxSortFields = 3
export const defaultPageSize = 1000

export interface SortPlan {
  /** `col:asc,col:desc` or absent when nothing sortable was asked for. */
  readonly sortBy: string | undefined
  readonly kept: ReadonlyArray<SortRequest>
  readonly dropped: ReadonlyArray<DroppedSort>
}

/**
 * Sorts that reach the engine (doc 2 §4.1 points 2–3, S7-a): a sort on a column the schema does not mark sortable is
 * dropped first, then only the first three sortable ones are kept; every dropped sort is reported with its reason.
 * A repeated column keeps its first direction.
 */
export const planSorts = (
  sorts: ReadonlyArray<SortRequest>,
  columns: ReadonlyArray<Pick<SearchColumn, "name" | "isSortable">>
): SortPlan => {
  const sortable = new Set(columns.filter((column) => column.isSortable).map((column) => column.name))
  const kept: Array<SortRequest> = []
  const dropped: Array<DroppedSort> = []
  const seen = new Set<string>()
  for (const sort of sorts) {
    if (seen.has(sort.column)) continue
    seen.add(sort.column)
    if (!sortable.has(sort.column)) dropped.push({ ...sort, reason: "not_sortable" })
    else if (kept.length >= maxSortFields) dropped.push({ ...sort, reason: "too_many_sorts" })
    else kept.push(sort)
  }
  const sortBy = kept.length === 0 ? undefined : kept.map((sort) => `${sort.column}:${sort.direction}`).join(",")
  return { sortBy, kept, dropped }
}

/** Plain-language note naming the dropped sorts, for `browse_table`'s `status_message` and the grid. */
export const droppedSortsMessage = (dropped: ReadonlyArray<DroppedSort>): string | undefined => {
  if (dropped.length === 0) return undefined
  const unsortable = dropped.filter((sort) => sort.reason === "not_sortable").map((sort) => sort.column)
  const extra = dropped.filter((sort) => sort.reason === "too_many_sorts").map((sort) => sort.column)
  const parts: Array<string> = []
  if (unsortable.length > 0) {
    parts.push(`not sorted by ${unsortable.join(", ")}: the collection schema does not mark it sortable (sort: true)`)
  }
  if (extra.length > 0) parts.push(`not sorted by ${extra.join(", ")}: Typesense sorts by at most three fields`)
  return `${parts.join("; ")}.`
}

export interface SearchSlice {
  readonly offset: number
  readonly limit: number
}

/**
 * A page (offset, limit) as searches of at most 250 hits, batched at most 50 per `multi_search` call (doc 2 §4.1
 * point 1, S4-b): the default 1,000-row page is one call of four searches. A limit of 0 or less plans nothing.
 */
export const planPage = (offset: number, limit: number): ReadonlyArray<ReadonlyArray<SearchSlice>> => {
  const slices: Array<SearchSlice> = []
  for (let start = 0; start < limit; start += maxHitsPerSearch) {
    slices.push({ offset: offset + start, limit: Math.min(maxHitsPerSearch, limit - start) })
  }
  const batches: Array<ReadonlyArray<SearchSlice>> = []
  for (let index = 0; index < slices.length; index += maxSearchesPerCall) {
    batches.push(slices.slice(index, index + maxSearchesPerCall))
  }
  return batches
}
