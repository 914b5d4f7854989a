import { baseType, detectType, dynamicMatches, type Field, isArrayType, isDynamicName, makeField } from "./Fields.ts"
import { failure } from "./Http.ts"
import { isInteger, isNumber, isObject, numberValue, plain, type JsonObject } from "./Json.ts"
import type { Collection, Doc } from "./State.ts"

export type DirtyValues = "reject" | "coerce_or_reject" | "coerce_or_drop" | "drop"

export const dirtyValuesOf = (param: string | undefined, collection: Collection): DirtyValues => {
  const normalised = param?.toLowerCase()
  if (
    normalised === "reject" || normalised === "coerce_or_reject" || normalised === "coerce_or_drop" ||
    normalised === "drop"
  ) {
    return normalised
  }
  return collection.hasDynamicFields ? "coerce_or_reject" : "reject"
}

const INT32_MAX = 2147483647
const INT32_MIN = -2147483648
const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/

const NO_VALUE = Symbol("no value")
type Checked = unknown | typeof NO_VALUE

/** One scalar checked (and coerced when allowed) against a scalar type; NO_VALUE when it does not fit. */
const checkScalar = (type: string, value: unknown, coerce: boolean): Checked => {
  switch (type) {
    case "string":
      if (typeof value === "string") return value
      if (coerce && isNumber(value)) return String(numberValue(value))
      if (coerce && typeof value === "boolean") return String(value)
      return NO_VALUE
    case "int32":
    case "int64":
      if (isInteger(value)) return value
      if (!coerce) return NO_VALUE
      if (isNumber(value)) return Math.trunc(numberValue(value))
      if (typeof value === "string" && NUMERIC_TEXT.test(value)) return Math.trunc(Number(value))
      if (typeof value === "boolean") return value ? 1 : 0
      return NO_VALUE
    case "float":
      if (isNumber(value)) return numberValue(value)
      if (coerce && typeof value === "string" && NUMERIC_TEXT.test(value)) return Number(value)
      if (coerce && typeof value === "boolean") return value ? 1 : 0
      return NO_VALUE
    case "bool":
      if (typeof value === "boolean") return value
      if (coerce && typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true"
      if (coerce && isNumber(value) && (numberValue(value) === 0 || numberValue(value) === 1)) {
        return numberValue(value) === 1
      }
      return NO_VALUE
    case "geopoint":
      return Array.isArray(value) && value.length === 2 && value.every(isNumber) ? plain(value) : NO_VALUE
    case "object":
      return isObject(value) ? value : NO_VALUE
    default:
      return value
  }
}

const SCALAR_ARTICLE: Record<string, string> = {
  string: "a string",
  int32: "an int32",
  int64: "an int64",
  float: "a float",
  bool: "a bool",
  geopoint: "a geopoint",
  object: "an object"
}
/** §1.2.1, including the (sic) "a array of bool" / "a array of float". */
const ARRAY_ARTICLE: Record<string, string> = {
  string: "an array of string",
  int32: "an array of int32",
  int64: "an array of int64",
  float: "a array of float",
  bool: "a array of bool",
  geopoint: "an array of geopoint",
  object: "an array of objects"
}

const typeMessage = (name: string, type: string): string =>
  isArrayType(type)
    ? `Field \`${name}\` must be ${ARRAY_ARTICLE[baseType(type)] ?? `an array of ${baseType(type)}`}.`
    : `Field \`${name}\` must be ${SCALAR_ARTICLE[type] ?? `a ${type}`}.`

const exceedsInt32 = (type: string, value: unknown): boolean => {
  if (baseType(type) !== "int32") return false
  const values = Array.isArray(value) ? value : [value]
  return values.some((v) => typeof v === "number" && (v > INT32_MAX || v < INT32_MIN))
}

/** Checks one field value; returns the value to store, or NO_VALUE to drop it; throws the §1.2.1 message. */
const checkValue = (field: Field, value: unknown, dirty: DirtyValues): Checked => {
  const type = field.type === "string*" ? (Array.isArray(value) ? "string[]" : "string") : field.type
  if (type === "auto" || type === "image" || type === "geopolygon") return value
  const coerce = dirty === "coerce_or_reject" || dirty === "coerce_or_drop"
  const drop = dirty === "drop" || dirty === "coerce_or_drop"
  let checked: Checked
  if (isArrayType(type)) {
    if (!Array.isArray(value)) {
      if (drop) return NO_VALUE
      return failure(400, `Field \`${field.name}\` must be an array.`)
    }
    const elements = value.map((element) => checkScalar(baseType(type), element, coerce))
    checked = elements.includes(NO_VALUE) ? NO_VALUE : elements
  } else {
    checked = checkScalar(type, value, coerce)
  }
  if (checked === NO_VALUE) {
    if (drop) return NO_VALUE
    return failure(400, typeMessage(field.name, type))
  }
  if (exceedsInt32(type, checked)) {
    if (drop && field.optional) return NO_VALUE
    return failure(400, `Field \`${field.name}\` exceeds maximum value of int32.`)
  }
  return checked
}

/** Reads a possibly dotted field: a verbatim dotted key first, else a walk through nested objects and arrays. */
export const lookup = (doc: Doc, name: string): unknown => {
  if (name in doc) return doc[name]
  const parts = name.split(".")
  if (parts.length === 1) return undefined
  const walk = (value: unknown, index: number): unknown => {
    if (index === parts.length) return value
    if (Array.isArray(value)) {
      const collected = value.map((element) => walk(element, index)).filter((v) => v !== undefined)
      return collected.length === 0 ? undefined : collected.flat()
    }
    if (isObject(value) || (typeof value === "object" && value !== null)) {
      return walk((value as Doc)[parts[index]!], index + 1)
    }
    return undefined
  }
  return walk(doc, 0)
}

const learnedField = (dynamic: Field, name: string, value: unknown, nested: boolean): Field | undefined => {
  const type = dynamic.type === "auto"
    ? detectType(value, nested)
    : dynamic.type === "string*"
    ? (Array.isArray(value) ? "string[]" : "string")
    : dynamic.type
  if (type === undefined) return undefined
  return makeField(name, type, { optional: true, facet: dynamic.facet, index: dynamic.index })
}

/** Dotted leaves of an object value (§1.6): leaves under an array of objects become array types. */
const objectLeaves = (prefix: string, value: unknown, inArray: boolean, nested: boolean, into: Map<string, string>) => {
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) objectLeaves(`${prefix}.${key}`, item, inArray, nested, into)
  } else if (Array.isArray(value) && value.length > 0 && value.every(isObject)) {
    for (const element of value) objectLeaves(prefix, element, true, nested, into)
  } else if (!into.has(prefix)) {
    const type = detectType(value, nested)
    if (type !== undefined) into.set(prefix, inArray && !isArrayType(type) ? `${type}[]` : type)
  }
}

export interface Validated {
  readonly doc: Doc
  readonly removed: ReadonlyArray<string>
  readonly newFields: ReadonlyArray<Field>
}

/**
 * Validates a document against the schema (§1.2.1). `partial` is an update: absent fields are fine and
 * `null` on an optional field removes it. Learned auto-schema fields are returned, not yet added.
 */
export const validateDocument = (
  collection: Collection,
  input: JsonObject,
  partial: boolean,
  dirty: DirtyValues
): Validated => {
  const doc: Doc = {}
  const removed: Array<string> = []
  for (const [key, value] of Object.entries(input)) doc[key] = value
  const dsf = collection.defaultSortingField
  if (!partial && dsf !== "" && lookup(doc, dsf) === undefined) {
    failure(400, `Field \`${dsf}\` has been declared as a default sorting field, but is not found in the document.`)
  }
  for (const field of collection.fields) {
    if (isDynamicName(field.name)) continue
    const value = lookup(doc, field.name)
    if (value === undefined) {
      if (!partial && !field.optional && !field.name.includes(".")) {
        failure(400, `Field \`${field.name}\` has been declared in the schema, but is not found in the document.`)
      }
      continue
    }
    if (!(field.name in doc)) continue
    if (value === null) {
      if (!field.optional) failure(400, typeMessage(field.name, field.type))
      delete doc[field.name]
      removed.push(field.name)
      continue
    }
    const checked = checkValue(field, value, dirty)
    if (checked === NO_VALUE) delete doc[field.name]
    else doc[field.name] = checked
  }
  const newFields: Array<Field> = []
  const dynamicFields = collection.fields.filter((f) => isDynamicName(f.name))
  const ordered = [...dynamicFields.filter((f) => f.name !== ".*"), ...dynamicFields.filter((f) => f.name === ".*")]
  for (const [key, value] of Object.entries(doc)) {
    if (key === "id" || value === null || collection.field(key) !== undefined) continue
    const dynamic = ordered.find((f) => dynamicMatches(f.name, key))
    if (dynamic === undefined) continue
    const learned = learnedField(dynamic, key, value, collection.nested)
    if (learned === undefined) continue
    const checked = checkValue(learned, value, dirty)
    if (checked === NO_VALUE) delete doc[key]
    else {
      doc[key] = checked
      newFields.push(learned)
    }
  }
  if (collection.nested) {
    const leaves = new Map<string, string>()
    for (const field of [...collection.fields, ...newFields]) {
      if (field.type !== "object" && field.type !== "object[]") continue
      const value = doc[field.name]
      if (value !== undefined && value !== null) {
        objectLeaves(field.name, value, field.type === "object[]", true, leaves)
      }
    }
    for (const [name, type] of leaves) {
      if (collection.field(name) === undefined && !newFields.some((f) => f.name === name)) {
        newFields.push(makeField(name, type, { optional: true }))
      }
    }
  }
  return { doc: plain(doc as JsonObject) as Doc, removed, newFields }
}
