import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { Json, JsonObject } from "../../src/domain/Json.ts"
import { checkModernHeaders, isJsonContentType } from "../../src/http/HeaderChecks.ts"
import { decodeHeaderValue, wrapHeaderValue } from "../../src/http/HeaderValues.ts"

const anyText = FastCheck.oneof(
  FastCheck.string(),
  FastCheck.string({ unit: "binary" }),
  FastCheck.string({ unit: FastCheck.constantFrom(" ", "\t", "\u0000", "\u007f", "é", "=", "?", "b", "😀") }),
  FastCheck.constantFrom("=?base64?x?=", "=?base64??=", " padded ", "", "Zürich")
)

describe("header value wrapping (wire contract §4.2)", () => {
  it.prop("C4.2-f wrapping then decoding gives back any string", [anyText], ([text]) => {
    expect(decodeHeaderValue(wrapHeaderValue(text))).toStrictEqual({ ok: true, value: text })
  })

  it.prop(
    "C4.2-f a wrapped value is printable ASCII without edge spaces; a plain one is sent as is",
    [anyText],
    ([text]) => {
      const wire = wrapHeaderValue(text)
      expect(wire).toMatch(/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$|^$/)
      const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !text.startsWith("=?base64?")
      expect(wire === text).toBe(plain)
    }
  )

  it("C4.2-f the official client's captured wrappings decode to the values it sent (interop §2.5)", () => {
    const captured: Array<[string, string]> = [
      ["=?base64?WsO8cmljaA==?=", "Zürich"],
      ["=?base64?IHBhZGRlZCA=?=", " padded "],
      ["=?base64?PT9iYXNlNjQ/eD89?=", "=?base64?x?="],
      ["=?base64??=", ""],
      ["=?base64?ZmlsZTovLy90bXAvw7xuw68gY2ZnLnR4dA==?=", "file:///tmp/ünï cfg.txt"],
      ["us-west1", "us-west1"]
    ]
    for (const [wire, value] of captured) expect(decodeHeaderValue(wire)).toStrictEqual({ ok: true, value })
  })

  it("C4.2-g malformed wrappers and control characters are refused", () => {
    for (
      const wire of [
        "=?base64?WsO8cmljaA=?=",
        "=?base64?WsO8cmljaA==",
        "=?base64?not base64!?=",
        "=?base64?/w==?=",
        "=?base64?WsO8cmljaA==?=x",
        "=?base64?Zg?=",
        "a\tb",
        "a\u0001b",
        "x\u007f"
      ]
    ) {
      expect(decodeHeaderValue(wire).ok, JSON.stringify(wire)).toBe(false)
    }
  })

  it("C4.2-a JSON content types: application/json with parameters or any +json type; nothing else", () => {
    for (
      const value of [
        "application/json",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/json;charset=UTF-8",
        "application/vnd.dbdesk+json",
        "application/problem+json; q=1"
      ]
    ) {
      expect(isJsonContentType(value), value).toBe(true)
    }
    for (
      const value of [
        undefined,
        "",
        "text/plain",
        "text/json",
        "application/json-seq",
        "application/jsonx",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "+json",
        "application/+json"
      ]
    ) {
      expect(isJsonContentType(value), String(value)).toBe(false)
    }
  })
})

/** Plain reference for §4.2 / D-43: depth-first walk, shallowest match first in key order. */
const referenceLookup = (root: JsonObject, field: string): { value: Json } | undefined => {
  let best: { depth: number; value: Json } | undefined
  const walk = (object: JsonObject, depth: number) => {
    for (const [key, value] of Object.entries(object)) {
      if (key.toLowerCase() === field.toLowerCase() && (best === undefined || depth < best.depth)) {
        best = { depth, value }
      }
    }
    for (const value of Object.values(object)) {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) walk(value as JsonObject, depth + 1)
    }
  }
  walk(root, 0)
  return best
}

const referenceMatches = (header: string, value: Json): boolean => {
  if (typeof value === "string") return header === value
  if (typeof value === "boolean") return header === (value ? "true" : "false")
  if (typeof value === "number") {
    const decimalShape = header !== "" && !/[^0-9eE.+-]/.test(header) && /^-?\d/.test(header) &&
      !/\.(?!\d)/.test(header)
    return decimalShape && Number(header) === value
  }
  return false
}

const key = FastCheck.constantFrom("region", "Region", "REGION", "count", "flag", "zone", "a")
const leaf: FastCheck.Arbitrary<Json> = FastCheck.oneof(
  FastCheck.string({ maxLength: 6 }),
  FastCheck.constantFrom("us-west1", "42", "true", ""),
  FastCheck.integer({ min: -1000, max: 1000 }),
  FastCheck.double({ noNaN: true, noDefaultInfinity: true }),
  FastCheck.boolean(),
  FastCheck.constant(null),
  FastCheck.array(FastCheck.integer(), { maxLength: 2 })
)
const argumentsObject: FastCheck.Arbitrary<JsonObject> =
  FastCheck.letrec<{ object: JsonObject; value: Json }>((tie) => ({
    object: FastCheck.dictionary(key, tie("value"), { maxKeys: 4 }),
    value: FastCheck.oneof({ depthSize: "small" }, leaf, tie("object"))
  })).object

const leavesOf = (object: JsonObject): Array<Json> =>
  Object.values(object).flatMap((value) =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? leavesOf(value as JsonObject) : [value]
  )

/** Header values drawn from the renderings a client might send for the body's values, and some noise. */
const headerFor = (args: JsonObject) =>
  FastCheck.oneof(
    FastCheck.string({ maxLength: 8 }),
    FastCheck.constantFrom(
      "true",
      "false",
      "True",
      "42",
      "42.0",
      "0x2A",
      "+42",
      ".5",
      "5.",
      "1e3",
      "1E+3",
      "[1]",
      "{}",
      "null",
      "us-west1"
    ),
    ...leavesOf(args).flatMap((value) =>
      typeof value === "number"
        ? [
          FastCheck.constantFrom(
            String(value),
            value.toFixed(1),
            value.toExponential(),
            `${value}.`,
            `+${value}`,
            `0x${value.toString(16)}`
          )
        ]
        : typeof value === "string" || typeof value === "boolean"
        ? [FastCheck.constant(String(value))]
        : []
    )
  )

describe("Mcp-Param-<field> comparison (wire contract §4.2, D-43)", () => {
  it.prop(
    "C4.2-e the header check agrees with a plain reference for generated arguments and header values",
    [argumentsObject.chain((args) =>
      FastCheck.tuple(FastCheck.constant(args), key, headerFor(args), FastCheck.boolean())
    )],
    ([[args, field, header, wrap]]) => {
      const headers = {
        "mcp-method": "tools/call",
        "mcp-name": "t",
        [`mcp-param-${field.toLowerCase()}`]: wrap ? wrapHeaderValue(header) : header
      }
      const expected = (() => {
        if (!wrap && !decodeHeaderValue(header).ok) return false
        const found = referenceLookup(args, field)
        return found !== undefined && referenceMatches(header, found.value)
      })()
      const error = checkModernHeaders(headers, "tools/call", { name: "t", arguments: args }, undefined)
      expect(error === undefined).toBe(expected)
      if (error !== undefined) expect(error.code).toBe(-32020)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("C4.2-e breadth-first: the shallowest occurrence wins, ties in key order, case-insensitive", () => {
    const args = { deep: { region: "inner" }, Region: "outer", other: { zone: "first" }, more: { ZONE: "second" } }
    const check = (field: string, value: string) =>
      checkModernHeaders({ "mcp-method": "tools/call", "mcp-name": "t", [`mcp-param-${field}`]: value }, "tools/call", {
        name: "t",
        arguments: args
      }, undefined)
    expect(check("region", "outer")).toBeUndefined()
    expect(check("region", "inner")?.code).toBe(-32020)
    expect(check("zone", "first")).toBeUndefined()
    expect(check("zone", "second")?.code).toBe(-32020)
  })
})
