import type { Json, JsonObject } from "../domain/Json.ts"
import { isJsonObject } from "../domain/Json.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { decodeHeaderValue } from "./HeaderValues.ts"

type Headers = Readonly<Record<string, string | undefined>>

const mismatch = (header: string, expected: string, message: string) =>
  ProtocolError.headerMismatch(message, { mismatch: { header, expected } })

/** D-41: `application/json` (parameters allowed) or any `+json` type. */
export const isJsonContentType = (value: string | undefined): boolean => {
  if (value === undefined) return false
  const essence = value.split(";")[0]!.trim().toLowerCase()
  return essence === "application/json" || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence)
}

export const checkContentType = (headers: Headers): ProtocolError | undefined =>
  isJsonContentType(headers["content-type"])
    ? undefined
    : ProtocolError.headerMismatch(
      `Content-Type must be application/json (or a +json type), got ${
        JSON.stringify(headers["content-type"] ?? "(missing)")
      }`,
      { mismatch: { header: "Content-Type", expected: "application/json" } }
    )

const readHeader = (headers: Headers, name: string): { value: string | undefined; error?: ProtocolError } => {
  const raw = headers[name]
  if (raw === undefined) return { value: undefined }
  const decoded = decodeHeaderValue(raw)
  if (!decoded.ok) {
    return {
      value: undefined,
      error: ProtocolError.headerMismatch(`Header ${name} ${decoded.reason}`, { header: name })
    }
  }
  return { value: decoded.value }
}

const requireEqual = (headers: Headers, name: string, expected: string): ProtocolError | undefined => {
  const { value, error } = readHeader(headers, name)
  if (error !== undefined) return error
  if (value === undefined) {
    return mismatch(name, expected, `Header ${name} is required and must equal ${JSON.stringify(expected)}`)
  }
  if (value !== expected) {
    return mismatch(
      name,
      expected,
      `Header ${name} is ${JSON.stringify(value)} but the body says ${JSON.stringify(expected)}`
    )
  }
  return undefined
}

/**
 * D-43: breadth-first, case-insensitive lookup; the
 * shallowest occurrence wins, ties in key order.
 */
export const findParamField = (root: JsonObject, field: string): { found: true; value: Json } | { found: false } => {
  const wanted = field.toLowerCase()
  let level: Array<JsonObject> = [root]
  while (level.length > 0) {
    const next: Array<JsonObject> = []
    for (const object of level) {
      for (const [key, value] of Object.entries(object)) {
        if (key.toLowerCase() === wanted) return { found: true, value }
      }
      for (const value of Object.values(object)) if (isJsonObject(value)) next.push(value)
    }
    level = next
  }
  return { found: false }
}

/** A decimal number as clients render one (`42`, `42.0`, `-1.5`, `1e+21`); hex, `+1`, `.5` and `5.` are not. */
const DECIMAL_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/

/** Wire contract §4.2: strings as text, numbers numerically, booleans `true`/`false`; arrays and objects never match. */
export const paramMatches = (headerValue: string, bodyValue: Json): boolean => {
  if (typeof bodyValue === "string") return headerValue === bodyValue
  if (typeof bodyValue === "number") return DECIMAL_NUMBER.test(headerValue) && Number(headerValue) === bodyValue
  if (typeof bodyValue === "boolean") return headerValue === String(bodyValue)
  return false
}

const checkParamHeaders = (headers: Headers, method: string, params: JsonObject): ProtocolError | undefined => {
  const args = method === "tools/call" ? params["arguments"] : params
  const root: JsonObject = isJsonObject(args) ? args : {}
  for (const name of Object.keys(headers)) {
    if (!name.startsWith("mcp-param-")) continue
    const field = name.slice("mcp-param-".length)
    const { value, error } = readHeader(headers, name)
    if (error !== undefined) return error
    const lookup = findParamField(root, field)
    if (!lookup.found || value === undefined || !paramMatches(value, lookup.value)) {
      return ProtocolError.headerMismatch(`Header Mcp-Param-${field} does not match the request body`, {
        mismatch: { header: `Mcp-Param-${field}`, body: lookup.found ? lookup.value : "(absent)" }
      })
    }
  }
  return undefined
}

/** Wire contract §4.2: header copies must agree with the body; any disagreement is -32020. */
export const checkModernHeaders = (
  headers: Headers,
  method: string,
  params: JsonObject,
  protocolVersion: string | undefined
): ProtocolError | undefined => {
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value !== undefined && name.startsWith("mcp-")) {
      const decoded = decodeHeaderValue(value)
      if (!decoded.ok) return ProtocolError.headerMismatch(`Header ${name} ${decoded.reason}`, { header: name })
    }
  }
  if (protocolVersion !== undefined) {
    const error = requireEqual(headers, "mcp-protocol-version", protocolVersion)
    if (error !== undefined) return error
  }
  const methodError = requireEqual(headers, "mcp-method", method)
  if (methodError !== undefined) return methodError
  const nameField = method === "tools/call" || method === "prompts/get"
    ? "name"
    : method === "resources/read"
    ? "uri"
    : undefined
  if (nameField !== undefined) {
    const bodyName = params[nameField]
    if (typeof bodyName === "string") {
      const error = requireEqual(headers, "mcp-name", bodyName)
      if (error !== undefined) return error
    } else if (headers["mcp-name"] !== undefined) {
      return mismatch(
        "mcp-name",
        `params.${nameField}`,
        `Header Mcp-Name is sent but the body has no string params.${nameField}`
      )
    }
  }
  return checkParamHeaders(headers, method, params)
}
