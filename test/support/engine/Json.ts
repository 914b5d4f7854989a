/** A number written with a fraction or exponent whose value is integral (`1965.0`); nlohmann keeps it a float. */
export class JsonFloat {
  constructor(readonly value: number) {}
}

export type Json = null | boolean | number | string | JsonFloat | Array<Json> | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export class JsonParseError extends Error {}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonFloat)

export const isNumber = (value: unknown): value is number | JsonFloat =>
  typeof value === "number" || value instanceof JsonFloat

export const numberValue = (value: number | JsonFloat): number => (typeof value === "number" ? value : value.value)

/** An integer in nlohmann's sense: written without fraction/exponent. */
export const isInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value)

/** Parses JSON like nlohmann: integral floats stay distinguishable from integers. */
export const parseJson = (text: string): Json => {
  let at = 0
  const fail = (what: string): never => {
    const line = text.slice(0, at).split("\n").length
    const column = at - text.lastIndexOf("\n", at - 1)
    const lastRead = text.slice(Math.max(0, at - 10), at + 1)
    throw new JsonParseError(
      `[json.exception.parse_error.101] parse error at line ${line}, column ${column}: syntax error while parsing value - ${what}; last read: '${lastRead}'`
    )
  }
  const skipSpace = () => {
    while (at < text.length && " \t\r\n".includes(text[at]!)) at++
  }
  const value = (): Json => {
    skipSpace()
    const c = text[at]
    if (c === undefined) return fail("unexpected end of input")
    if (c === "{") return object()
    if (c === "[") return array()
    if (c === "\"") return string()
    if (c === "-" || (c >= "0" && c <= "9")) return number()
    for (const [word, result] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, at)) {
        at += word.length
        return result
      }
    }
    return fail("invalid literal")
  }
  const object = (): JsonObject => {
    at++
    const result: JsonObject = {}
    skipSpace()
    if (text[at] === "}") {
      at++
      return result
    }
    for (;;) {
      skipSpace()
      if (text[at] !== "\"") return fail("object key expected")
      const key = string()
      skipSpace()
      if (text[at] !== ":") return fail("':' expected")
      at++
      result[key] = value()
      skipSpace()
      if (text[at] === ",") {
        at++
        continue
      }
      if (text[at] === "}") {
        at++
        return result
      }
      return fail("'}' expected")
    }
  }
  const array = (): Array<Json> => {
    at++
    const result: Array<Json> = []
    skipSpace()
    if (text[at] === "]") {
      at++
      return result
    }
    for (;;) {
      result.push(value())
      skipSpace()
      if (text[at] === ",") {
        at++
        continue
      }
      if (text[at] === "]") {
        at++
        return result
      }
      return fail("']' expected")
    }
  }
  const string = (): string => {
    const match = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(at))
    if (match === null) return fail("invalid string")
    at += match[0].length
    return JSON.parse(match[0]) as string
  }
  const number = (): number | JsonFloat => {
    const match = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at))
    if (match === null) return fail("invalid number literal")
    at += match[0].length
    const parsed = Number(match[0])
    const isFloat = match[1] !== undefined || match[2] !== undefined
    return isFloat && Number.isInteger(parsed) ? new JsonFloat(parsed) : parsed
  }
  const result = value()
  skipSpace()
  if (at < text.length) fail("unexpected trailing characters")
  return result
}

/** Converts integral floats back to plain numbers. */
export const plain = (value: Json): unknown => {
  if (value instanceof JsonFloat) return value.value
  if (Array.isArray(value)) return value.map(plain)
  if (isObject(value)) {
    const result: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) result[key] = plain(item)
    return result
  }
  return value
}

const sortKeys = (value: unknown): unknown => {
  if (value instanceof JsonFloat) return value.value
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    const result: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort(compareBytes)) {
      const item = (value as Record<string, unknown>)[key]
      if (item !== undefined) result[key] = sortKeys(item)
    }
    return result
  }
  return value
}

export const compareBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

/** nlohmann serialisation: keys in ascending byte order, compact (reference §0.1). */
export const dump = (value: unknown): string => JSON.stringify(sortKeys(value))

/** `/metrics.json` and `/stats.json` are pretty-printed with a 2-space indent (reference §0.1). */
export const dumpPretty = (value: unknown): string => JSON.stringify(sortKeys(value), null, 2)
