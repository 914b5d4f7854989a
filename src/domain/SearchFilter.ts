import { Schema } from "effect"

/** Operators of the filter bar and of `browse_table` (D-21, doc 2 §4.2). */
export const FilterOperator = Schema.Literal(
  "=",
  "!=",
  ">",
  ">=",
  "<",
  "<=",
  "between",
  "in",
  "not_in",
  "contains",
  "not_contains",
  "starts_with",
  "is_null",
  "is_not_null",
  "is_empty",
  "is_not_empty",
  "matches_regex",
  "ends_with"
)
export type FilterOperator = typeof FilterOperator.Type

/** Operators the engine has no equivalent for; refused with a message (doc 2 §4.2 point 4, S4.2-d). */
export const refusedFilterOperators: ReadonlyArray<FilterOperator> = [
  "is_null",
  "is_not_null",
  "is_empty",
  "is_not_empty",
  "matches_regex",
  "ends_with"
]

/**
 * One row of the filter bar. `value` is the text typed in the grid (a comma-separated list for `in` / `not in`), or a
 * list of values as `browse_table` may send them.
 */
export const ColumnFilter = Schema.Struct({
  column: Schema.String,
  operator: FilterOperator,
  value: Schema.optionalWith(Schema.Union(Schema.String, Schema.Array(Schema.String)), { exact: true }),
  second_value: Schema.optionalWith(Schema.String, { exact: true })
})
export type ColumnFilter = typeof ColumnFilter.Type

/** `and` is the filter bar's All (`&&`), `or` its Any (`||`) (doc 2 §4.2 point 1). */
export const FilterLogic = Schema.Literal("and", "or")
export type FilterLogic = typeof FilterLogic.Type

/**
 * A filter request: column filters joined by `logic`, and the Raw filter column, which is sent verbatim as
 * `filter_by` (doc 2 §4.2 point 2). `caseSensitive: true` is refused: the engine always ignores case (S4.2-c).
 */
export const SearchFilterRequest = Schema.Struct({
  filters: Schema.optionalWith(Schema.Array(ColumnFilter), { default: () => [] }),
  logic: Schema.optionalWith(FilterLogic, { default: () => "and" as const }),
  raw: Schema.optionalWith(Schema.String, { exact: true }),
  caseSensitive: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type SearchFilterRequest = typeof SearchFilterRequest.Type

/** The filter bar's case control is dimmed and labelled with this (S4.2-c). */
export const caseControlLabel = "Typesense always ignores case; case-sensitive matching is not supported."

export const SortDirection = Schema.Literal("asc", "desc")
export type SortDirection = typeof SortDirection.Type

export const SortRequest = Schema.Struct({ column: Schema.String, direction: SortDirection })
export type SortRequest = typeof SortRequest.Type

/** Why a requested sort did not reach the engine (doc 2 §4.1 points 2–3). */
export const DroppedSort = Schema.Struct({
  column: Schema.String,
  direction: SortDirection,
  reason: Schema.Literal("not_sortable", "too_many_sorts")
})
export type DroppedSort = typeof DroppedSort.Type
