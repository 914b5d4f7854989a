import { Schema } from "effect"

/** Filter operators of `browse_table` and `count_rows` (D-21). */
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
  "is_not_null"
)
export type FilterOperator = typeof FilterOperator.Type

export const ScalarValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
export type ScalarValue = typeof ScalarValue.Type

export const FilterValue = Schema.Union(ScalarValue, Schema.Array(ScalarValue))
export type FilterValue = typeof FilterValue.Type

export const BrowseFilter = Schema.Struct({
  column: Schema.String,
  operator: FilterOperator,
  value: Schema.optionalWith(FilterValue, { exact: true }),
  second_value: Schema.optionalWith(ScalarValue, { exact: true })
})
export type BrowseFilter = typeof BrowseFilter.Type

export const FilterLogic = Schema.Literal("and", "or")
export type FilterLogic = typeof FilterLogic.Type

export const SortKey = Schema.Struct({
  column: Schema.String,
  direction: Schema.Literal("asc", "desc")
})
export type SortKey = typeof SortKey.Type

/** The arguments of `browse_table` after the connection and table (D-21). */
export const BrowseQuery = Schema.Struct({
  columns: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  filters: Schema.optionalWith(Schema.Array(BrowseFilter), { exact: true }),
  logic: Schema.optionalWith(FilterLogic, { exact: true }),
  sort: Schema.optionalWith(Schema.Array(SortKey), { exact: true }),
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), { exact: true }),
  offset: Schema.optionalWith(Schema.NonNegativeInt, { exact: true })
})
export type BrowseQuery = typeof BrowseQuery.Type

/**
 * Conditions only the UI's filter bar builds (D-85; `browse_table` keeps its own operator list: its arguments
 * decode to `BrowseFilter` and never to these). `like`/`ilike` take the user's own pattern (% and _ are wildcards);
 * `ends_with` escapes them as contains and starts_with do; `any_column` searches the named columns as text;
 * `raw_where` is a condition the server checked before (RawWhere.ts) and puts inside parentheses.
 */
export type GridFilter =
  | BrowseFilter
  | { readonly column: string; readonly operator: "ends_with" | "like" | "ilike"; readonly value: string }
  | {
    readonly column: ""
    readonly operator: "any_column"
    readonly columns: ReadonlyArray<string>
    readonly value: string
  }
  | { readonly column: ""; readonly operator: "raw_where"; readonly value: string }
  /** The filter bar's rows under Match Any, ANDed with the search box and the WHERE condition. */
  | { readonly column: ""; readonly operator: "any_of"; readonly filters: ReadonlyArray<GridFilter> }

/** `BrowseQuery` with the filter bar's conditions. */
export type GridQuery = Omit<BrowseQuery, "filters"> & { readonly filters?: ReadonlyArray<GridFilter> }
