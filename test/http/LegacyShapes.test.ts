import { it as effectIt } from "@effect/vitest"
import { Arbitrary, Context, FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JsonObject } from "../../src/domain/Json.ts"
import { McpMethods } from "../../src/http/McpMethods.ts"
import { finalizeResult } from "../../src/http/ResultEnvelope.ts"
import { postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
const serverInfo = { name: "dbdesk", version: "0.1.0" }
const methodNames = [
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "initialize",
  "ping",
  "logging/setLevel"
]

/** Any result a method might build, with the modern-only fields mixed in. */
const dirtyResult = FastCheck.tuple(
  Arbitrary.make(JsonObject),
  FastCheck.record({
    resultType: FastCheck.constantFrom("complete", "input_required"),
    ttlMs: FastCheck.nat(),
    cacheScope: FastCheck.constantFrom("public", "private")
  }, { requiredKeys: [] }),
  FastCheck.option(Arbitrary.make(JsonObject), { nil: undefined })
).map(([base, modern, meta]) => ({ ...base, ...modern, _meta: { ...meta, [SERVER_INFO_KEY]: serverInfo } }))

describe("legacy result shapes (wire contract §2.4, §9 point 4)", () => {
  effectIt.prop(
    "C2.4-e C9-d whatever a method returns, a legacy result has no resultType, cache hints or serverInfo, and keeps everything else",
    [FastCheck.constantFrom(...methodNames), dirtyResult, Arbitrary.make(JsonObject)],
    ([method, result, params]) => {
      const legacy = finalizeResult(result, { era: "legacy", method, params }, serverInfo, {
        ttlMs: 60_000,
        cacheScope: "private"
      })
      for (const key of ["resultType", "ttlMs", "cacheScope"]) expect(legacy).not.toHaveProperty(key)
      const meta = legacy["_meta"] as Record<string, unknown> | undefined
      expect(meta?.[SERVER_INFO_KEY]).toBeUndefined()
      for (const [key, value] of Object.entries(result)) {
        if (["resultType", "ttlMs", "cacheScope", "_meta", "nextCursor"].includes(key)) continue
        expect(legacy[key]).toStrictEqual(value)
      }
    }
  )
})

describe("every shared method answers a legacy session with the legacy shape", () => {
  let server: TestServer
  let headers: Record<string, string>
  let nextId = 1
  const call = async (method: string, params: Record<string, unknown> = {}) => {
    const response = await postMcp(server.url, { jsonrpc: "2.0", id: nextId++, method, params }, {
      "mcp-method": undefined,
      "mcp-name": undefined,
      ...headers
    })
    expect(response.status, `${method}: ${response.text}`).toBe(200)
    return response.json.result
  }

  beforeAll(async () => {
    server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
    const init = await postMcp(server.url, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "shapes", version: "1" } }
    }, { "mcp-method": undefined })
    headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" }
  })
  afterAll(() => server.stop())

  it("C2.4-e C9-d tools, resources, templates, prompts and completion results carry no resultType, hints or serverInfo", async () => {
    const tools = await call("tools/list")
    const resources = await call("resources/list")
    const templates = await call("resources/templates/list")
    const prompts = await call("prompts/list")
    const read = await call("resources/read", { uri: resources.resources[0].uri })
    const connections = await call("tools/call", { name: "list_connections", arguments: {} })
    const prompt = await call("prompts/get", {
      name: "explain_schema",
      arguments: { connection: connections.structuredContent.connections[0].id }
    })
    const completion = await call("completion/complete", {
      ref: { type: "ref/prompt", name: "explain_schema" },
      argument: { name: "connection", value: "Sam" }
    })
    const results = { tools, resources, templates, prompts, read, connections, prompt, completion }
    for (const [name, result] of Object.entries(results)) {
      for (const key of ["resultType", "ttlMs", "cacheScope"]) expect(result, name).not.toHaveProperty(key)
      expect(result._meta?.[SERVER_INFO_KEY], name).toBeUndefined()
    }
    expect(tools.tools.length).toBeGreaterThan(0)
    expect(read.contents.length).toBeGreaterThan(0)
    expect(prompt.messages.length).toBeGreaterThan(0)
    expect(completion.completion.values).toContain("Sample (SQLite)")
  })

  it("C4.3-b C6-d the legacy era reaches exactly the methods of the §4.3 era column", async () => {
    const table = Context.get(server.context as Context.Context<McpMethods>, McpMethods)
    const legacy = [...table.values()].filter((method) => method.eras.includes("legacy")).map((method) => method.name)
      .sort()
    expect(legacy).toStrictEqual([
      "completion/complete",
      "initialize",
      "logging/setLevel",
      "ping",
      "prompts/get",
      "prompts/list",
      "resources/list",
      "resources/read",
      "resources/templates/list",
      "tools/call",
      "tools/list"
    ])
    const modernOnly = [...table.values()].filter((method) => !method.eras.includes("legacy")).map((method) =>
      method.name
    ).sort()
    expect(modernOnly).toStrictEqual(["server/discover", "subscriptions/listen"])
  })
})
