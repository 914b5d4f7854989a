import { failure } from "./Http.ts"
import { isObject, JsonFloat, type JsonObject } from "./Json.ts"

export interface Field {
  name: string
  type: string
  facet: boolean
  optional: boolean
  index: boolean
  sort: boolean
  infix: boolean
  locale: string
  stem: boolean
  store: boolean
  range_index: boolean
}

export const FIELD_TYPES = [
  "string",
  "string[]",
  "int32",
  "int32[]",
  "int64",
  "int64[]",
  "float",
  "float[]",
  "bool",
  "bool[]",
  "geopoint",
  "geopoint[]",
  "geopolygon",
  "object",
  "object[]",
  "string*",
  "image",
  "auto"
]

/** §1.6: sortable by default. */
const SORT_BY_DEFAULT = new Set(["int32", "int64", "float", "bool", "geopoint", "geopoint[]", "geopolygon"])
const SORT_ALLOWED = new Set([...SORT_BY_DEFAULT, "string"])
const BOOLEAN_PROPERTIES = ["facet", "optional", "index", "sort", "infix", "store", "stem", "range_index"] as const

export const NUMERIC_TYPES = new Set(["int32", "int64", "float"])
export const baseType = (type: string): string => (type.endsWith("[]") ? type.slice(0, -2) : type)
export const isArrayType = (type: string): boolean => type.endsWith("[]")

/** Dynamic (regex / `.*`) field names (§1.6). */
export const isDynamicName = (name: string): boolean => name.includes(".*")

export const dynamicMatches = (pattern: string, name: string): boolean => {
  if (pattern === ".*") return true
  try {
    return new RegExp(`^(?:${pattern})$`).test(name)
  } catch {
    return false
  }
}

const FORMAT_MESSAGE =
  "Wrong format for `fields`. It should be an array of objects containing `name`, `type`, `optional` and `facet` properties."

export const makeField = (name: string, type: string, overrides: Partial<Field> = {}): Field => ({
  name,
  type,
  facet: false,
  optional: isDynamicName(name),
  index: true,
  sort: SORT_BY_DEFAULT.has(type),
  infix: false,
  locale: "",
  stem: false,
  store: true,
  range_index: false,
  ...overrides
})

/** Field definition → field with defaults (`field::add_default_json_values`), with the §1.6 messages. */
export const parseField = (definition: unknown, nestedEnabled: boolean): Field => {
  if (!isObject(definition)) return failure(400, FORMAT_MESSAGE)
  const { name, type } = definition
  if (typeof name !== "string" || typeof type !== "string") return failure(400, FORMAT_MESSAGE)
  if (name === "") return failure(400, "Field name cannot be empty.")
  for (const property of BOOLEAN_PROPERTIES) {
    const value = definition[property]
    if (value !== undefined && typeof value !== "boolean") {
      failure(400, `The \`${property}\` property of the field \`${name}\` should be a boolean.`)
    }
  }
  if (!FIELD_TYPES.includes(type)) {
    if (name === ".*") return failure(400, "The `type` of field `.*` is invalid.")
    return failure(400, `Field \`${name}\` has an invalid data type \`${type}\`, see docs for supported data types.`)
  }
  if ((type === "object" || type === "object[]") && !nestedEnabled) {
    failure(
      400,
      "Type `object` or `object[]` can be used only when nested fields are enabled by setting` enable_nested_fields` to true."
    )
  }
  const field = makeField(name, type)
  for (const property of BOOLEAN_PROPERTIES) {
    const value = definition[property]
    if (typeof value === "boolean") field[property] = value
  }
  if (typeof definition["locale"] === "string") field.locale = definition["locale"]
  if (name === ".*") {
    if (!field.optional) failure(400, "Field `.*` must be an optional field.")
    if (field.facet) failure(400, "Field `.*` cannot be a facet field.")
    if (!field.index) failure(400, "Field `.*` must be an index field.")
  }
  if (field.sort && !SORT_ALLOWED.has(type) && definition["sort"] === true) {
    failure(400, `Field \`${name}\` cannot be a sortable field.`)
  }
  return field
}

export interface SchemaFields {
  readonly fields: Array<Field>
  readonly defaultSortingField: string
}

/** The `fields` array and `default_sorting_field` of a create request (§1.6). */
export const parseSchemaFields = (body: JsonObject, nestedEnabled: boolean): SchemaFields => {
  const definitions = body["fields"]
  if (!Array.isArray(definitions)) return failure(400, FORMAT_MESSAGE)
  const fields = definitions.map((definition) => parseField(definition, nestedEnabled)).filter((f) => f.name !== "id")
  if (fields.filter((f) => f.name === ".*").length > 1) failure(400, "There can be only one field named `.*`.")
  const names = new Set(fields.map((f) => f.name))
  if (names.size !== fields.length) failure(400, "There are duplicate field names in the schema.")
  const defaultSortingField = body["default_sorting_field"] ?? ""
  if (typeof defaultSortingField !== "string") return failure(400, "`default_sorting_field` should be a string.")
  if (defaultSortingField !== "") {
    if (defaultSortingField === "id") failure(400, "Invalid `default_sorting_field` value: cannot be `id`.")
    const field = fields.find((f) => f.name === defaultSortingField)
    if (field === undefined) {
      failure(400, `Default sorting field is defined as \`${defaultSortingField}\` but is not found in the schema.`)
    } else if (!(NUMERIC_TYPES.has(field.type) || field.type === "string" || field.type === "bool")) {
      failure(400, `Default sorting field \`${defaultSortingField}\` is not a sortable type.`)
    } else if (field.optional) {
      failure(400, `Default sorting field \`${defaultSortingField}\` cannot be an optional field.`)
    }
  }
  return { fields, defaultSortingField }
}

/** A field as reported in a collection summary (§1.1); version 29 adds `store` and `stem_dictionary`. */
export const renderField = (field: Field, version: 26 | 29): Record<string, unknown> => ({
  name: field.name,
  type: field.type,
  facet: field.facet,
  optional: field.optional,
  index: field.index,
  sort: field.sort,
  infix: field.infix,
  locale: field.locale,
  stem: field.stem,
  ...(version >= 27 ? { store: field.store, stem_dictionary: "" } : {}),
  ...(field.range_index ? { range_index: true } : {})
})

/** Type detected for an auto-schema field (§1.6); `undefined` when nothing can be detected. */
export const detectType = (value: unknown, nestedEnabled: boolean): string | undefined => {
  if (typeof value === "string") return "string"
  if (typeof value === "boolean") return "bool"
  if (value instanceof JsonFloat) return "float"
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float"
  if (Array.isArray(value)) {
    const first = value[0]
    if (first === undefined || first === null || Array.isArray(first)) return undefined
    const element = detectType(first, nestedEnabled)
    return element === undefined ? undefined : `${element}[]`
  }
  if (typeof value === "object" && value !== null) return nestedEnabled ? "object" : undefined
  return undefined
}
