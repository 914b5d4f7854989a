import { Schema } from "effect"
import { DroppedSort } from "./SearchFilter.ts"

/** A column of a collection shown as a table (doc 2 §2.2, S2.2-a…f). */
export const SearchColumn = Schema.Struct({
  name: Schema.String,
  /** The engine's field type (`string`, `int32`, `object[]`, …); `id` is `string`. */
  type: Schema.String,
  isPrimaryKey: Schema.Boolean,
  isReadOnly: Schema.Boolean,
  isNullable: Schema.Boolean,
  isSortable: Schema.Boolean,
  isFacet: Schema.Boolean
})
export type SearchColumn = typeof SearchColumn.Type

/** A grid cell: arrays and objects arrive as JSON text (S2.2-d); a missing value is `null`. */
export const SearchCell = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
export type SearchCell = typeof SearchCell.Type

export const SearchGrid = Schema.Struct({
  columns: Schema.Array(Schema.String),
  rows: Schema.Array(Schema.Array(SearchCell))
})
export type SearchGrid = typeof SearchGrid.Type

/** One page of a collection read through `POST /multi_search` (doc 2 §4.1). */
export const SearchPage = Schema.Struct({
  columns: Schema.Array(SearchColumn),
  rows: Schema.Array(Schema.Array(SearchCell)),
  /** Documents matching the filter, whatever the paging. */
  found: Schema.Int,
  filterBy: Schema.optionalWith(Schema.String, { exact: true }),
  sortBy: Schema.optionalWith(Schema.String, { exact: true }),
  droppedSorts: Schema.Array(DroppedSort)
})
export type SearchPage = typeof SearchPage.Type

/** Console output (doc 2 §4.3): a grid, or one pretty JSON cell in a `response` column. */
export const ConsoleOutput = Schema.Union(
  Schema.TaggedStruct("Grid", { columns: Schema.Array(Schema.String), rows: Schema.Array(Schema.Array(SearchCell)) }),
  Schema.TaggedStruct("Json", { text: Schema.String })
)
export type ConsoleOutput = typeof ConsoleOutput.Type
