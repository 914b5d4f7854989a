import { Schema } from "effect"

/** A table or view in `list_tables` (D-21). */
export const TableEntry = Schema.Struct({
  name: Schema.String,
  type: Schema.Literal("table", "view"),
  row_count: Schema.optionalWith(Schema.NonNegativeInt, { exact: true })
})
export type TableEntry = typeof TableEntry.Type

/** A column of `describe_table` (D-21). */
export const ColumnDescription = Schema.Struct({
  name: Schema.String,
  data_type: Schema.String,
  is_nullable: Schema.Boolean,
  is_primary_key: Schema.Boolean,
  default_value: Schema.optionalWith(Schema.String, { exact: true }),
  is_sortable: Schema.Boolean,
  comment: Schema.optionalWith(Schema.String, { exact: true })
})
export type ColumnDescription = typeof ColumnDescription.Type

export const IndexDescription = Schema.Struct({
  name: Schema.String,
  columns: Schema.Array(Schema.String),
  is_unique: Schema.Boolean,
  is_primary: Schema.Boolean
})
export type IndexDescription = typeof IndexDescription.Type

export const ForeignKeyDescription = Schema.Struct({
  columns: Schema.Array(Schema.String),
  referenced_table: Schema.String,
  referenced_columns: Schema.Array(Schema.String),
  on_update: Schema.optionalWith(Schema.String, { exact: true }),
  on_delete: Schema.optionalWith(Schema.String, { exact: true })
})
export type ForeignKeyDescription = typeof ForeignKeyDescription.Type

/** The result of `describe_table` (D-21). */
export const TableDescription = Schema.Struct({
  table: Schema.String,
  columns: Schema.Array(ColumnDescription),
  indexes: Schema.Array(IndexDescription),
  foreign_keys: Schema.Array(ForeignKeyDescription),
  ddl: Schema.optionalWith(Schema.String, { exact: true }),
  approximate_row_count: Schema.optionalWith(Schema.NonNegativeInt, { exact: true })
})
export type TableDescription = typeof TableDescription.Type

/** One match of `search_schema` (D-21). */
export const SchemaMatch = Schema.Struct({
  kind: Schema.Literal("table", "column"),
  table: Schema.String,
  name: Schema.String,
  data_type: Schema.optionalWith(Schema.String, { exact: true })
})
export type SchemaMatch = typeof SchemaMatch.Type
