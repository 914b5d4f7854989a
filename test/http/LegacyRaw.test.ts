import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sseMessages } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
})
afterAll(() => server.stop())

/** A 2025-era POST: no `_meta` envelope, no Mcp-Method, the session id and version headers as an SDK 1.x client sends them. */
const legacyPost = (body: unknown, headers: Record<string, string> = {}) =>
  postMcp(server.url, body, {
    "mcp-method": undefined,
    "mcp-name": undefined,
    accept: "application/json, text/event-stream",
    ...headers
  })

const initializeBody = (protocolVersion: unknown, id: number | string = 0) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-legacy", version: "1.0.0" } }
})

const openSession = async (protocolVersion = "2025-11-25") => {
  const response = await legacyPost(initializeBody(protocolVersion))
  const sessionId = response.headers.get("mcp-session-id")
  if (response.status !== 200 || sessionId === null) {
    throw new Error(`initialize failed: ${response.status} ${response.text}`)
  }
  return { sessionId, headers: { "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion }, response }
}

describe("legacy initialize (wire contract §3.3)", () => {
  it("C3.3-a C6-c C9-d C1-e initialize with 2025-11-25 or 2025-06-18 opens a session and answers the handshake", async () => {
    for (const version of ["2025-11-25", "2025-06-18"]) {
      const { sessionId, response } = await openSession(version)
      expect(response.status).toBe(200)
      expect(sessionId).toMatch(/^[\x21-\x7E]{32,}$/)
      expect(response.json.id).toBe(0)
      const result = response.json.result
      expect(result).toStrictEqual({
        protocolVersion: version,
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: false, listChanged: true },
          prompts: { listChanged: false },
          completions: {},
          logging: {}
        },
        serverInfo: { name: "dbdesk", version: expect.any(String), title: "dbdesk" },
        instructions: expect.stringContaining("list_connections")
      })
      expect(result.instructions).toContain("describe_table")
    }
  })

  it("C3.3-a each initialize mints a different session id", async () => {
    const first = await openSession()
    const second = await openSession()
    expect(first.sessionId).not.toBe(second.sessionId)
  })

  it("C3.3-b C9-a initialize with any other version, 2025-03-26 included, is -32022 with data.supported and no session", async () => {
    for (const version of ["2025-03-26", "2024-11-05", "2026-07-28", "2099-01-01", "", 20251125, undefined]) {
      const response = await legacyPost(initializeBody(version, 9))
      expect(response.status).toBe(400)
      expect(response.json.id).toBe(9)
      expect(response.json.error.code).toBe(-32022)
      expect(response.json.error.data.supported).toEqual(["2026-07-28", "2025-11-25", "2025-06-18"])
      expect(response.headers.get("mcp-session-id")).toBeNull()
    }
  })

  it("C6-b notifications/initialized is 202 with no body", async () => {
    const { headers } = await openSession()
    const response = await legacyPost({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    expect(response.status).toBe(202)
    expect(response.text).toBe("")
  })
})

describe("requests of a legacy session", () => {
  it("C3.3-c C2.4-e C9-d tools/list under the session answers without resultType, cache hints or serverInfo", async () => {
    const { headers } = await openSession()
    const response = await legacyPost({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, headers)
    expect(response.status).toBe(200)
    const result = response.json.result
    expect(result.tools.map((tool: any) => tool.name)).toContain("list_connections")
    for (const key of ["resultType", "ttlMs", "cacheScope", "_meta"]) expect(result).not.toHaveProperty(key)
    expect(response.headers.get("mcp-session-id")).toBeNull()
  })

  it("C2.4-e C2.4-b a legacy tools/call answers content, structuredContent and isError without the modern envelope", async () => {
    const { headers } = await openSession("2025-06-18")
    const response = await legacyPost({
      jsonrpc: "2.0",
      id: "c1",
      method: "tools/call",
      params: { name: "list_connections", arguments: {} }
    }, headers)
    expect(response.status).toBe(200)
    const result = response.json.result
    expect(result.isError).toBe(false)
    expect(result.content[0].type).toBe("text")
    expect(result.structuredContent.connections.length).toBeGreaterThan(0)
    for (const key of ["resultType", "ttlMs", "cacheScope", "_meta"]) expect(result).not.toHaveProperty(key)
  })

  it("C4.1-j C4.1-l C2.4-e a legacy _meta.progressToken streams progress over SSE and ends with a legacy result", async () => {
    const { headers } = await openSession()
    const connections = await legacyPost({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "list_connections", arguments: {} }
    }, headers)
    const connectionId = connections.json.result.structuredContent.connections[0].id
    const response = await legacyPost({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "execute_query",
        arguments: { connection_id: connectionId, query: "SELECT 7 AS seven" },
        _meta: { progressToken: "legacy-p" }
      }
    }, headers)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const messages = sseMessages(response.text)
    const progress = messages.filter((message) => message.method === "notifications/progress")
    expect(progress.map((message) => message.params.progress)).toEqual([0, 0.3, 1])
    expect(progress.every((message) => message.params.progressToken === "legacy-p")).toBe(true)
    const final = messages[messages.length - 1]
    expect(final.id).toBe(3)
    expect(final.result.structuredContent.rows).toEqual([[7]])
    expect(final.result).not.toHaveProperty("resultType")
    expect(final.result).not.toHaveProperty("_meta")
  })

  it("C4.3-d ping and logging/setLevel answer {} in a legacy session; a bad level is -32602", async () => {
    const { headers } = await openSession()
    const ping = await legacyPost({ jsonrpc: "2.0", id: 4, method: "ping" }, headers)
    expect(ping.json).toStrictEqual({ jsonrpc: "2.0", id: 4, result: {} })
    const level = await legacyPost(
      { jsonrpc: "2.0", id: 5, method: "logging/setLevel", params: { level: "warning" } },
      headers
    )
    expect(level.json).toStrictEqual({ jsonrpc: "2.0", id: 5, result: {} })
    const bad = await legacyPost(
      { jsonrpc: "2.0", id: 6, method: "logging/setLevel", params: { level: "loud" } },
      headers
    )
    expect(bad.status).toBe(400)
    expect(bad.json.error.code).toBe(-32602)
  })

  it("C4.3-b C6-d C9-d modern-only methods and unknown methods from a legacy session are 404 -32601", async () => {
    const { headers } = await openSession()
    for (const method of ["server/discover", "subscriptions/listen", "no/such-method"]) {
      const response = await legacyPost({ jsonrpc: "2.0", id: 7, method, params: {} }, headers)
      expect(response.status).toBe(404)
      expect(response.json.error.code).toBe(-32601)
    }
  })

  it("C3.3-f a legacy request without a session id, or with an unknown one, is 404 -33001", async () => {
    for (const method of ["tools/list", "ping", "tools/call"]) {
      const missing = await legacyPost({ jsonrpc: "2.0", id: 8, method, params: {} }, {
        "mcp-protocol-version": "2025-11-25"
      })
      expect(missing.status).toBe(404)
      expect(missing.json.error.code).toBe(-33001)
      expect(missing.json.id).toBe(8)
    }
    const unknown = await legacyPost({ jsonrpc: "2.0", id: 9, method: "tools/list" }, {
      "mcp-session-id": "not-a-session",
      "mcp-protocol-version": "2025-11-25"
    })
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe(-33001)
  })

  it("C3.3-c the session fixes the revision: a version header naming another one is -32020", async () => {
    const { sessionId } = await openSession("2025-06-18")
    const response = await legacyPost({ jsonrpc: "2.0", id: 10, method: "tools/list" }, {
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25"
    })
    expect(response.status).toBe(400)
    expect(response.json.error.code).toBe(-32020)
    const without = await legacyPost({ jsonrpc: "2.0", id: 11, method: "ping" }, { "mcp-session-id": sessionId })
    expect(without.json.result).toStrictEqual({})
  })
})

describe("the modern era never uses sessions (C4.3-d)", () => {
  it("C4.3-d initialize and ping sent as modern requests are 404 -32601", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel"]) {
      const response = await postMcp(
        server.url,
        modernRequest(method, { protocolVersion: "2025-11-25", level: "info" })
      )
      expect(response.status).toBe(404)
      expect(response.json.error.code).toBe(-32601)
      expect(response.headers.get("mcp-session-id")).toBeNull()
    }
  })

  it("C4.3-d a modern request ignores Mcp-Session-Id, known or not, and mints none", async () => {
    const { sessionId } = await openSession()
    for (const id of [sessionId, "bogus"]) {
      const response = await postMcp(server.url, modernRequest("tools/list"), { "mcp-session-id": id })
      expect(response.status).toBe(200)
      expect(response.json.result.resultType).toBe("complete")
      expect(response.headers.get("mcp-session-id")).toBeNull()
    }
  })

  it("C4.3-d C4.1-b GET with a session id stays 405: there is no GET stream", async () => {
    const { sessionId } = await openSession()
    const response = await fetch(server.url, {
      method: "GET",
      headers: { accept: "text/event-stream", "mcp-session-id": sessionId }
    })
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST, OPTIONS")
  })
})
