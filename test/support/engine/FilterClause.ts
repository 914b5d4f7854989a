import { baseType, type Field } from "./Fields.ts"
import { failure } from "./Http.ts"
import { splitList } from "./FilterTokenizer.ts"
import type { EngineState } from "./State.ts"

export interface StringValue {
  readonly text: string
  readonly prefix: boolean
}

export type NumberItem =
  | { readonly op: "=" | "<" | "<=" | ">" | ">="; readonly value: number }
  | { readonly op: ".."; readonly low: number; readonly high: number }

export type Clause =
  | { readonly kind: "none" }
  | { readonly kind: "id"; readonly negate: boolean; readonly ids: ReadonlyArray<string> | "all" }
  | {
    readonly kind: "string"
    readonly field: string
    readonly exact: boolean
    readonly negate: boolean
    readonly values: ReadonlyArray<StringValue>
  }
  | {
    readonly kind: "number"
    readonly field: string
    readonly negate: boolean
    readonly items: ReadonlyArray<NumberItem>
  }
  | { readonly kind: "bool"; readonly field: string; readonly negate: boolean; readonly values: ReadonlyArray<boolean> }

const isList = (value: string): boolean => value.startsWith("[") && value.endsWith("]")
const stripBackticks = (value: string): string =>
  value.length >= 2 && value.startsWith("`") && value.endsWith("`") ? value.slice(1, -1) : value

const INTEGER = /^-?\d+$/
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** One number checked against the field type, with the §2.4 messages. */
const parseNumber = (field: Field, text: string): number => {
  const type = baseType(field.type)
  const valid = type === "float" ? DECIMAL.test(text) : INTEGER.test(text)
  if (!valid) {
    const expected = type === "int32" ? "Not an int32." : type === "int64" ? "Not an int64." : "Not a float."
    return failure(400, `Error with filter field \`${field.name}\`: ${expected}`)
  }
  const value = Number(text)
  if (type === "int32" && (value > 2147483647 || value < -2147483648)) {
    return failure(400, `Error with filter field \`${field.name}\`: \`${text}\` exceeds the range of an int32.`)
  }
  return value
}

/**
 * `filter::extract_num_comparator`: a plain number is an equality, else a leading comparator is
 * required, else "invalid comparator" (this is what a backticked number hits).
 */
const parseNumberItem = (field: Field, item: string): NumberItem => {
  const text = item.trim()
  const range = text.indexOf("..")
  if (range !== -1) {
    return {
      op: "..",
      low: parseNumber(field, text.slice(0, range).trim()),
      high: parseNumber(field, text.slice(range + 2).trim())
    }
  }
  if (DECIMAL.test(text)) return { op: "=", value: parseNumber(field, text) }
  const comparator = /^(<=|>=|<|>|=)/.exec(text)?.[0]
  if (comparator === undefined) {
    return failure(400, `Error with filter field \`${field.name}\`: Numerical field has an invalid comparator.`)
  }
  return {
    op: comparator as "=" | "<" | "<=" | ">" | ">=",
    value: parseNumber(field, text.slice(comparator.length).trim())
  }
}

const parseNumeric = (field: Field, raw: string): Clause => {
  let value = raw
  let negate = false
  if (value.startsWith("!=")) {
    negate = true
    value = value.slice(2).trim()
  } else if (value.startsWith("=")) {
    value = value.slice(1).trim()
  }
  const items = isList(value)
    ? splitList(value.slice(1, -1)).map((item) => parseNumberItem(field, item))
    : [parseNumberItem(field, value)]
  return { kind: "number", field: field.name, negate, items }
}

const parseBool = (field: Field, raw: string): Clause => {
  let value = raw
  let negate = false
  if (value.startsWith("!=")) {
    negate = true
    value = value.slice(2).trim()
  } else if (value.startsWith("=")) {
    value = value.slice(1).trim()
  }
  if (isList(value)) {
    const values = splitList(value.slice(1, -1)).map((item) => {
      if (item !== "true" && item !== "false") {
        failure(400, `Values of filter field \`${field.name}\`: must be \`true\` or \`false\`.`)
      }
      return item === "true"
    })
    return { kind: "bool", field: field.name, negate, values }
  }
  if (value !== "true" && value !== "false") {
    failure(400, `Value of filter field \`${field.name}\` must be \`true\` or \`false\`.`)
  }
  return { kind: "bool", field: field.name, negate, values: [value === "true"] }
}

const parseString = (field: Field, raw: string, version: number): Clause => {
  let value = raw
  let exact = false
  let negate = false
  if (value.startsWith("!=")) {
    exact = negate = true
    value = value.slice(2).trim()
  } else if (value.startsWith("=")) {
    exact = true
    value = value.slice(1).trim()
  } else if (value.startsWith("!") && value.length >= 2) {
    negate = true
    value = value.slice(1).trim()
  }
  // §8: the exact-prefix form `:=` + `*` exists from v27; v26 only has the contains prefix.
  const prefixAllowed = !exact || version >= 27
  const parseValue = (item: string): StringValue => {
    let text = item.trim()
    let prefix = false
    if (prefixAllowed && text.endsWith("*") && !(text.startsWith("`") && text.endsWith("`"))) {
      prefix = true
      text = text.slice(0, -1)
    }
    text = stripBackticks(text)
    if (text.trim() === "") failure(400, `Error with filter field \`${field.name}\`: Filter value cannot be empty.`)
    return { text, prefix }
  }
  if (isList(value)) {
    const inner = value.slice(1, -1)
    if (inner.trim() === "") {
      if (version <= 26) failure(400, `Error with filter field \`${field.name}\`: Filter value array cannot be empty.`)
      return { kind: "string", field: field.name, exact, negate, values: [] }
    }
    return { kind: "string", field: field.name, exact, negate, values: splitList(inner).map(parseValue) }
  }
  return { kind: "string", field: field.name, exact, negate, values: [parseValue(value)] }
}

const parseId = (raw: string): Clause => {
  let value = raw
  let negate = false
  if (value.startsWith("!=")) {
    negate = true
    value = value.slice(2).trim()
  } else if (value.startsWith("=")) {
    value = value.slice(1).trim()
  }
  if (value === "*") return { kind: "id", negate, ids: "all" }
  const ids = isList(value) ? splitList(value.slice(1, -1)).map(stripBackticks) : [stripBackticks(value)]
  return { kind: "id", negate, ids }
}

/** One clause `field:predicate` (§2.2), checked against the schema. */
export const parseClause = (
  state: EngineState,
  fields: ReadonlyArray<Field>,
  text: string,
  validateFieldNames: boolean
): Clause => {
  if (text.startsWith("$") || text.startsWith("!$")) {
    const name = text.slice(text.indexOf("$") + 1, text.indexOf("("))
    if (state.resolve(name) === undefined) failure(400, `Referenced collection \`${name}\` not found.`)
    return failure(400, "Join filters are not supported by the test engine.")
  }
  const colon = text.indexOf(":")
  if (colon === -1) return failure(400, "Could not parse the filter query.")
  const name = text.slice(0, colon).trim()
  const raw = text.slice(colon + 1).trim()
  if (name === "id") return parseId(raw)
  const field = fields.find((f) => f.name === name && !f.name.includes(".*"))
  if (field === undefined) {
    if (!validateFieldNames && state.version >= 28) return { kind: "none" }
    return failure(404, `Could not find a filter field named \`${name}\` in the schema.`)
  }
  const type = baseType(field.type)
  if (type === "int32" || type === "int64" || type === "float") return parseNumeric(field, raw)
  if (type === "bool") return parseBool(field, raw)
  if (type === "string") return parseString(field, raw, state.version)
  return failure(400, `Filtering on a field of type \`${field.type}\` is not supported by the test engine.`)
}
