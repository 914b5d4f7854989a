import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { afterAll, beforeAll } from "vitest"
import type { JsonObject } from "../../src/domain/Json.ts"
import { finalizeResult } from "../../src/http/ResultEnvelope.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

const serverInfo = { name: "dbdesk", version: "0.1.0" }
const TABLE: Record<string, { ttlMs: number; cacheScope: string }> = {
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
  "prompts/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "tools/list": { ttlMs: 300_000, cacheScope: "private" },
  "resources/list": { ttlMs: 30_000, cacheScope: "private" }
}
const OTHER_METHODS = [
  "tools/call",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
  "initialize",
  "ping",
  "logging/setLevel",
  "x/y"
]
const finalize = (
  method: string,
  result: JsonObject,
  params: JsonObject = {},
  proposed?: { ttlMs: number; cacheScope: "public" | "private" }
) => finalizeResult(result, { era: "modern", method, params }, serverInfo, proposed)

const strayHints = FastCheck.record({
  ttlMs: FastCheck.oneof(FastCheck.integer(), FastCheck.double(), FastCheck.string()),
  cacheScope: FastCheck.oneof(FastCheck.constantFrom("public", "private"), FastCheck.string())
}, { requiredKeys: [] })

describe("cache hints (wire contract §4.4)", () => {
  it("C4.4-a the five fixed methods carry exactly their table hints, whatever the handler proposed", () => {
    for (const [method, hint] of Object.entries(TABLE)) {
      const result = finalize(method, { items: [], ttlMs: 1, cacheScope: "public" }, {}, {
        ttlMs: 7,
        cacheScope: "public"
      })
      expect({ ttlMs: result["ttlMs"], cacheScope: result["cacheScope"] }, method).toStrictEqual(hint)
      expect(result["resultType"]).toBe("complete")
    }
  })

  it.prop(
    "C4.4-a resources/read carries an integer ttlMs between 5000 and 300000, private, for any proposed value",
    [
      FastCheck.double({ min: -1e9, max: 1e9, noNaN: true }),
      FastCheck.constantFrom("public" as const, "private" as const)
    ],
    ([ttlMs, cacheScope]) => {
      const result = finalize("resources/read", { contents: [] }, { uri: "dbdesk://x" }, { ttlMs, cacheScope })
      expect(Number.isInteger(result["ttlMs"])).toBe(true)
      expect(result["ttlMs"]).toBeGreaterThanOrEqual(5_000)
      expect(result["ttlMs"]).toBeLessThanOrEqual(300_000)
      expect(result["cacheScope"]).toBe("private")
    }
  )

  it("C4.4-a resources/read keeps a proposed ttl inside the range; C3.1-j an approval retry is never cached", () => {
    expect(finalize("resources/read", {}, { uri: "u" }, { ttlMs: 60_000, cacheScope: "private" })["ttlMs"]).toBe(60_000)
    for (const params of [{ uri: "u", requestState: "s" }, { uri: "u", inputResponses: {} }]) {
      expect(finalize("resources/read", {}, params, { ttlMs: 60_000, cacheScope: "private" })).toMatchObject({
        ttlMs: 0,
        cacheScope: "private"
      })
    }
  })

  it.prop(
    "C4.4-b hints arriving on the result of any other method are stripped",
    [FastCheck.oneof(FastCheck.constantFrom(...OTHER_METHODS), FastCheck.string()), strayHints],
    ([method, hints]) => {
      FastCheck.pre(!(method in TABLE) && method !== "resources/read")
      const result = finalize(method, { content: [], ...hints }, {}, {
        ttlMs: 5_000,
        cacheScope: "public"
      })
      expect(result).not.toHaveProperty("ttlMs")
      expect(result).not.toHaveProperty("cacheScope")
    }
  )

  it("C4.4-b C4.3-c an input_required result carries no hints, even on a cacheable method", () => {
    const result = finalize("resources/read", { resultType: "input_required", inputRequests: {}, requestState: "s" }, {
      uri: "u"
    }, { ttlMs: 60_000, cacheScope: "private" })
    expect(result["resultType"]).toBe("input_required")
    expect(result).not.toHaveProperty("ttlMs")
    expect(result).not.toHaveProperty("cacheScope")
  })

  it("C2.4-e legacy results carry no resultType, hints or serverInfo", () => {
    const result = finalizeResult(
      { tools: [], ttlMs: 1, cacheScope: "private", resultType: "complete" },
      { era: "legacy", method: "tools/list", params: {} },
      serverInfo,
      undefined
    )
    expect(result).toStrictEqual({ tools: [] })
  })

  it("C2.4-d nextCursor is kept as a string and dropped when null, in both eras", () => {
    expect(finalize("tools/list", { tools: [], nextCursor: "abc" })["nextCursor"]).toBe("abc")
    expect(finalize("tools/list", { tools: [], nextCursor: null })).not.toHaveProperty("nextCursor")
    expect(
      finalizeResult(
        { tools: [], nextCursor: null },
        { era: "legacy", method: "tools/list", params: {} },
        serverInfo,
        undefined
      )
    ).toStrictEqual({ tools: [] })
  })
})

describe("cache hints on the wire (wire contract §4.4)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  })
  afterAll(() => server.stop())

  it("C4.4-a server/discover: ttlMs 3600000, public; tools/list: ttlMs 300000, private", async () => {
    const discover = (await postMcp(server.url, modernRequest("server/discover"))).json.result
    expect({ ttlMs: discover.ttlMs, cacheScope: discover.cacheScope }).toStrictEqual(TABLE["server/discover"])
    const tools = (await postMcp(server.url, modernRequest("tools/list"))).json.result
    expect({ ttlMs: tools.ttlMs, cacheScope: tools.cacheScope }).toStrictEqual(TABLE["tools/list"])
    expect(tools).not.toHaveProperty("nextCursor", null)
  })

  it("C4.4-b an error answer carries no hints", async () => {
    const response = await postMcp(server.url, modernRequest("no/such/method"))
    expect(response.json).not.toHaveProperty("result")
    expect(JSON.stringify(response.json)).not.toMatch(/ttlMs|cacheScope/)
  })
})
