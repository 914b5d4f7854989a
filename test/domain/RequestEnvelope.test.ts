import { it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck, Schema } from "effect"
import { describe, expect } from "vitest"
import { Json } from "../../src/domain/Json.ts"
import { LEGACY_VERSIONS } from "../../src/domain/ProtocolVersions.ts"
import { decodeModernEnvelope, detectEra } from "../../src/domain/RequestEnvelope.ts"

const jsonSchema = Schema.encodedSchema(Json)
const jsonValue = Arbitrary.make(jsonSchema)
const nonMcpKey = FastCheck.string().filter((key) => !key.startsWith("io.modelcontextprotocol/"))
const supported = ["2026-07-28"]

describe("era detection (D-30, wire contract §9)", () => {
  it.prop("C9-b _meta without any io.modelcontextprotocol/ key and no modern header is legacy", [
    FastCheck.dictionary(nonMcpKey, jsonValue),
    FastCheck.option(FastCheck.constantFrom(...LEGACY_VERSIONS, "2025-03-26", "x"), { nil: undefined })
  ], ([meta, header]) => {
    expect(detectEra(header, { _meta: meta })).toBe("legacy")
  })

  it.prop(
    "C9-b any io.modelcontextprotocol/ key in _meta makes the request modern",
    [FastCheck.string(), jsonValue],
    ([suffix, value]) => {
      expect(detectEra(undefined, { _meta: { [`io.modelcontextprotocol/${suffix}`]: value } })).toBe("modern")
    }
  )

  it.prop("C9-b a modern MCP-Protocol-Version header makes the request modern whatever the body", [
    FastCheck.dictionary(FastCheck.string(), jsonValue)
  ], ([params]) => {
    expect(detectEra("2026-07-28", params)).toBe("modern")
  })
})

describe("modern _meta rules (wire contract §2.2)", () => {
  it.prop("C2.2-b C9-a any version string other than 2026-07-28 gives -32022 listing the supported versions", [
    FastCheck.string({ minLength: 1 }).filter((version) => version !== "2026-07-28")
  ], ([version]) => {
    const result = decodeModernEnvelope({
      _meta: { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} }
    }, supported)
    expect(Either.isLeft(result) && result.left.code).toBe(-32022)
    expect(Either.isLeft(result) && result.left.data?.["supported"]).toStrictEqual(supported)
  })

  it.prop("C2.2-c a clientCapabilities that is not an object gives -32602", [
    Arbitrary.make(
      jsonSchema.pipe(Schema.filter((value) => typeof value !== "object" || value === null || Array.isArray(value)))
    )
  ], ([capabilities]) => {
    const result = decodeModernEnvelope({
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities
      }
    }, supported)
    expect(Either.isLeft(result) && result.left.code).toBe(-32602)
  })

  it.prop("C2.2-e progressToken: strings and integers are accepted, other values refused", [
    FastCheck.oneof(
      FastCheck.string(),
      FastCheck.integer(),
      FastCheck.double({ noInteger: true, noNaN: true }),
      FastCheck.boolean()
    )
  ], ([token]) => {
    const result = decodeModernEnvelope({
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        progressToken: token
      }
    }, supported)
    const acceptable = typeof token === "string" || Number.isInteger(token)
    expect(Either.isRight(result)).toBe(acceptable)
    if (Either.isRight(result)) expect(result.right.progressToken).toBe(token)
  })

  it("C2.2-f trace context keys are kept unchanged", () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    const result = decodeModernEnvelope({
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        traceparent,
        tracestate: "a=b",
        baggage: "k=v"
      }
    }, supported)
    expect(Either.isRight(result) && result.right.traceContext).toStrictEqual({
      traceparent,
      tracestate: "a=b",
      baggage: "k=v"
    })
  })
})
