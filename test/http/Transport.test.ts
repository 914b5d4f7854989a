import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectRaw, httpRequest } from "../support/RawHttp.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const discoverBody = JSON.stringify(modernRequest("server/discover"))
const modernHeaders = {
  "content-type": "application/json",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "server/discover"
}
const request = (options: Parameters<typeof httpRequest>[1]) => httpRequest(server.port, options)

describe("transport rules (wire contract §4.1)", () => {
  it("C4.1-a POST /mcp with one JSON-RPC message is served", async () => {
    const response = await request({ headers: modernHeaders, body: discoverBody })
    expect(response.status).toBe(200)
    expect(response.json.result.resultType).toBe("complete")
  })

  it("C4.1-a a batch (array body) is -32600, even a batch of valid requests", async () => {
    for (const body of [[modernRequest("server/discover")], [], [1, 2]]) {
      const response = await postMcp(server.url, body, modernHeaders)
      expect(response.status).toBe(400)
      expect(response.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
    }
  })

  it("C4.1-a C7.1-a unparseable JSON is 400 -32700 with id null", async () => {
    for (const body of ["{", "", "nul", "{\"jsonrpc\":\"2.0\",}"]) {
      const response = await request({ headers: modernHeaders, body })
      expect(response.status).toBe(400)
      expect(response.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
    }
  })

  it("C4.1-b GET and DELETE on /mcp answer 405 with Allow: POST, OPTIONS; so do PUT, PATCH and HEAD", async () => {
    for (const method of ["GET", "DELETE", "PUT", "PATCH", "HEAD"]) {
      const response = await request({ method, headers: { accept: "text/event-stream" } })
      expect(response.status).toBe(405)
      expect(response.headers["allow"]).toBe("POST, OPTIONS")
    }
  })

  it("C4.1-c OPTIONS on /mcp is 204; CORS headers only for an allowed origin, echoing the requested headers", async () => {
    const bare = await request({ method: "OPTIONS" })
    expect(bare.status).toBe(204)
    expect(bare.body).toBe("")
    expect(bare.headers["access-control-allow-origin"]).toBeUndefined()
    const preflight = await request({
      method: "OPTIONS",
      headers: {
        origin: "https://claude.ai",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, mcp-method, mcp-param-region"
      }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://claude.ai")
    expect(preflight.headers["access-control-allow-methods"]).toBe("POST, OPTIONS")
    expect(preflight.headers["access-control-allow-headers"]).toBe("content-type, mcp-method, mcp-param-region")
    const foreign = await request({
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" }
    })
    expect(foreign.status).toBe(403)
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined()
  })

  it("C4.1-c a POST from an allowed origin carries Access-Control-Allow-Origin", async () => {
    const response = await request({
      headers: { ...modernHeaders, origin: "https://app.cursor.com" },
      body: discoverBody
    })
    expect(response.status).toBe(200)
    expect(response.headers["access-control-allow-origin"]).toBe("https://app.cursor.com")
  })

  it("C4.1-d any other path is 404, whatever the method", async () => {
    for (const path of ["/", "/mcp/", "/MCP", "/mcp2", "/api/mcp", "/sse", "/.well-known/oauth-protected-resource"]) {
      for (const method of ["POST", "GET", "OPTIONS"]) {
        const response = await request({
          method,
          path,
          headers: modernHeaders,
          body: method === "POST" ? discoverBody : ""
        })
        expect(response.status, `${method} ${path}`).toBe(404)
      }
    }
    const withQuery = await request({ path: "/mcp?x=1", headers: modernHeaders, body: discoverBody })
    expect(withQuery.status).toBe(200)
  })

  it("C4.1-e C7.1-c Host must be localhost, 127.0.0.1 or [::1] with the bound port or none, in any case", async () => {
    const accepted = [
      "localhost",
      "LOCALHOST",
      "127.0.0.1",
      "[::1]",
      `localhost:${server.port}`,
      `LocalHost:${server.port}`,
      `127.0.0.1:${server.port}`,
      `[::1]:${server.port}`
    ]
    for (const host of accepted) {
      const response = await request({ headers: { ...modernHeaders, host }, body: discoverBody })
      expect(response.status, host).toBe(200)
    }
    const refused = [
      "localhost.",
      "127.0.0.1.",
      `localhost:${server.port + 1}`,
      "localhost:80",
      "example.com",
      `evil.localhost:${server.port}`,
      "127.0.0.2",
      "0.0.0.0",
      "[::2]",
      "localhost:",
      `127.0.0.1:0${server.port}`
    ]
    for (const host of refused) {
      const response = await request({ headers: { ...modernHeaders, host }, body: discoverBody })
      expect(response.status, host).toBe(403)
      expect(response.json, host).toStrictEqual({ error: { code: "forbidden_host", message: expect.any(String) } })
    }
  })

  it("C4.1-e C7.1-c a request without any Host header (HTTP/1.1 or 1.0) is 403 forbidden_host as JSON, not node's bare 400 (found by the reliability suite's fuzzer)", async () => {
    for (const version of ["HTTP/1.1", "HTTP/1.0"]) {
      const raw = await connectRaw(server.port)
      await raw.write(
        `POST /mcp ${version}\r\ncontent-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: server/discover\r\ncontent-length: ${
          Buffer.byteLength(discoverBody)
        }\r\nconnection: close\r\n\r\n${discoverBody}`
      )
      const response = await raw.nextResponse()
      expect(response.status, version).toBe(403)
      expect(response.json, version).toStrictEqual({ error: { code: "forbidden_host", message: expect.any(String) } })
    }
  })

  it("C4.1-f C7.1-c Origin is optional; when present it must be an allowed origin, else 403 forbidden_origin", async () => {
    for (const origin of ["https://claude.ai", "https://app.cursor.com"]) {
      expect((await request({ headers: { ...modernHeaders, origin }, body: discoverBody })).status).toBe(200)
    }
    for (
      const origin of [
        "https://evil.example",
        "null",
        "http://claude.ai",
        "https://claude.ai.evil.example",
        `http://127.0.0.1:${server.port}`
      ]
    ) {
      const response = await request({ headers: { ...modernHeaders, origin }, body: discoverBody })
      expect(response.status, origin).toBe(403)
      expect(response.json).toStrictEqual({ error: { code: "forbidden_origin", message: expect.any(String) } })
    }
  })

  it("C4.1-f mcp.allowedOrigins replaces the default list", async () => {
    const custom = await startTestServer({ settings: { mcp: { allowedOrigins: ["http://localhost:5173"] } } })
    try {
      const send = (origin: string) =>
        httpRequest(custom.port, { headers: { ...modernHeaders, origin }, body: discoverBody })
      expect((await send("http://localhost:5173")).status).toBe(200)
      expect((await send("https://claude.ai")).status).toBe(403)
    } finally {
      await custom.stop()
    }
  })

  it("C4.1-h a JSON-RPC response sent as the body is -32600", async () => {
    const bodies = [
      { jsonrpc: "2.0", id: 4, result: {} },
      { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "nope" } },
      { jsonrpc: "2.0", result: { resultType: "complete" } }
    ]
    for (const body of bodies) {
      const response = await postMcp(server.url, body, modernHeaders)
      expect(response.status).toBe(400)
      expect(response.json.error.code).toBe(-32600)
    }
  })

  it("C4.1-i a plain request is answered application/json; one with progressToken as text/event-stream", async () => {
    const plain = await postMcp(server.url, modernRequest("server/discover"))
    expect(plain.headers.get("content-type")).toBe("application/json")
    const streamed = await postMcp(server.url, modernRequest("server/discover", { _meta: { progressToken: "p" } }))
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/)
  })
})

describe("notifications (wire contract §4.1, §6; D-34)", () => {
  const notification = (method: string, params: Record<string, unknown> = {}) =>
    JSON.stringify({ jsonrpc: "2.0", method, params })

  it("C4.1-g C6-b C3.2-f every notification is 202 with no body, with or without Mcp-Method, whatever its Content-Type", async () => {
    const variants: Array<Record<string, string>> = [
      modernHeaders,
      { "content-type": "application/json", "mcp-protocol-version": "2026-07-28" },
      { "content-type": "text/plain" },
      {},
      {
        "content-type": "application/json",
        authorization: "Bearer dbd_not-a-real-token",
        "mcp-method": "something/else"
      }
    ]
    for (const headers of variants) {
      for (
        const body of [
          notification("notifications/cancelled", { requestId: 99, reason: "user" }),
          notification("notifications/initialized"),
          notification("notifications/whatever")
        ]
      ) {
        const response = await request({ headers, body })
        expect(response.status).toBe(202)
        expect(response.body).toBe("")
      }
    }
  })

  it("C3.2-f a cancel naming no running request, or with odd params, is still 202", async () => {
    for (const params of [{ requestId: "nope" }, {}, { requestId: { nested: 1 } }]) {
      const response = await request({ headers: modernHeaders, body: notification("notifications/cancelled", params) })
      expect(response.status).toBe(202)
    }
  })

  it("C4.1-g C4.1-e the Host and Origin checks come first: a notification from a forbidden origin is 403", async () => {
    const badOrigin = await request({
      headers: { ...modernHeaders, origin: "https://evil.example" },
      body: notification("notifications/initialized")
    })
    expect(badOrigin.status).toBe(403)
    const badHost = await request({
      headers: { ...modernHeaders, host: "evil.example" },
      body: notification("notifications/initialized")
    })
    expect(badHost.status).toBe(403)
  })
})
