import { Schema } from "effect"

/** Filter operators of `browse_table` and `count_rows` (product-decisions §3). */
export const FilterOperator = Schema.Literal(
  "=", "!=", ">", ">=", "<", "<=", "between", "in", "not_in", "contains", "not_contains", "starts_with", "is_null",
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

/** The arguments of `browse_table` after the connection and table (product-decisions §3). */
export const BrowseQuery = Schema.Struct({
  columns: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  filters: Schema.optionalWith(Schema.Array(BrowseFilter), { exact: true }),
  logic: Schema.optionalWith(FilterLogic, { exact: true }),
  sort: Schema.optionalWith(Schema.Array(SortKey), { exact: true }),
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), { exact: true }),
  offset: Schema.optionalWith(Schema.NonNegativeInt, { exact: true })
})
export type BrowseQuery = typeof BrowseQuery.Type
