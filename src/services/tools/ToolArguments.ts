import { Schema } from "effect"
import { FilterValue, ScalarValue } from "../../domain/SqlBrowse.ts"

/**
 * The arguments several tools share, defined once (D-67: tools/list is read into the model's context at
 * every session, so each name and description is as short as it can be while still saying what to pass). The JSON
 * shape only: value rules (ranges, operator names) are checked by the tools and answered `invalid_argument`.
 */
const listed = <S extends Schema.Schema.Any>(schema: S, jsonSchema: object) =>
  schema.annotations({ jsonSchema }) as unknown as S
const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const text = (description?: string) =>
  description === undefined ? Schema.String : listed(Schema.String, { type: "string", description })
/** A whole number in the listing; decoded as a number so a fraction is an `invalid_argument` naming its range. */
export const integer = (description?: string) =>
  listed(Schema.Number, { type: "integer", ...(description === undefined ? {} : { description }) })

export const connectionId = Schema.String
export const table = Schema.String
export const database = optional(Schema.String)
export const schemaName = optional(Schema.String)

/** A browse_table / count_rows filter: operator names are checked after decoding. */
const FilterArgument = Schema.Struct({
  column: Schema.String,
  operator: Schema.String,
  value: optional(FilterValue),
  second_value: optional(ScalarValue)
})
const filterList = (description: string) =>
  optional(listed(Schema.Array(FilterArgument), { type: "array", description }))
export const filters = filterList(
  "[{column, operator, value, second_value}]; = != > >= < <= between in not_in [not_]contains starts_with is_[not_]null"
)
/** count_rows says where the operators are listed rather than repeating them. */
export const countFilters = filterList("As in browse_table")
export const logic = optional(text("and|or"))
