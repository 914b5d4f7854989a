import { Schema } from "effect"
import type { SearchColumn } from "../domain/SearchGrid.ts"

/** One field of a collection schema as the engine reports it (typesense-reference §1.1, §1.6). */
export const EngineField = Schema.Struct({
  name: Schema.String,
  type: Schema.String,
  optional: Schema.optionalWith(Schema.Boolean, { exact: true }),
  sort: Schema.optionalWith(Schema.Boolean, { exact: true }),
  facet: Schema.optionalWith(Schema.Boolean, { exact: true }),
  index: Schema.optionalWith(Schema.Boolean, { exact: true }),
  infix: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type EngineField = typeof EngineField.Type

/** A collection summary from `GET /collections` or `GET /collections/:c`. */
export const EngineCollection = Schema.Struct({
  name: Schema.String,
  num_documents: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  fields: Schema.optionalWith(Schema.Array(EngineField), { default: () => [] }),
  default_sorting_field: Schema.optionalWith(Schema.String, { exact: true }),
  enable_nested_fields: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type EngineCollection = typeof EngineCollection.Type

const isObjectType = (type: string) => type === "object" || type === "object[]"

/** A schema entry that is a pattern for learned fields (`.*`, `num_.*`), not a column (doc 2 §2.2). */
const isFieldPattern = (name: string) => name.includes(".*")

const idColumn: SearchColumn = {
  name: "id",
  type: "string",
  isPrimaryKey: true,
  isReadOnly: true,
  isNullable: false,
  isSortable: false,
  isFacet: false
}

/**
 * Columns of a collection shown as a table (doc 2 §2.2): `id` first, primary key, read-only and never sortable
 * (S2.2-b, S2.2-f); then the schema's fields sorted case-insensitively, without field patterns and without an
 * object parent that has dotted leaves (S2.2-c). Sortable exactly when the schema marks `sort: true` (product-decisions
 * §8) on an indexed field. Learned auto-schema fields appear once the schema is re-read (S2.2-e).
 */
export const deriveColumns = (collection: Pick<EngineCollection, "fields">): ReadonlyArray<SearchColumn> => {
  const fields = collection.fields.filter((field) => field.name !== "id" && !isFieldPattern(field.name))
  const names = new Set(fields.map((field) => field.name))
  const hasLeaves = (name: string) => [...names].some((other) => other.startsWith(`${name}.`))
  const seen = new Set<string>()
  const columns = fields
    .filter((field) => !(isObjectType(field.type) && hasLeaves(field.name)))
    .filter((field) => (seen.has(field.name) ? false : (seen.add(field.name), true)))
    .map(
      (field): SearchColumn => ({
        name: field.name,
        type: field.type,
        isPrimaryKey: false,
        isReadOnly: false,
        isNullable: field.optional === true,
        isSortable: field.sort === true && field.index !== false,
        isFacet: field.facet === true
      })
    )
    .sort((a, b) => {
      const x = a.name.toLowerCase()
      const y = b.name.toLowerCase()
      return x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    })
  return [idColumn, ...columns]
}
