import { Schema } from "effect"

export { toCell } from "./SqlCell.ts"

/** One cell of a result set (D-20). */
export const CellValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
export type CellValue = typeof CellValue.Type

/** The result set every SQL tool returns (D-20). */
export const ResultSet = Schema.Struct({
  columns: Schema.Array(Schema.String),
  rows: Schema.Array(Schema.Array(CellValue)),
  row_count: Schema.NonNegativeInt,
  rows_affected: Schema.NonNegativeInt,
  execution_time_ms: Schema.NonNegative,
  is_truncated: Schema.Boolean,
  status_message: Schema.optionalWith(Schema.String, { exact: true })
})
export type ResultSet = typeof ResultSet.Type
