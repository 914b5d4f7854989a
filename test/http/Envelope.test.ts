import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const withMeta = (meta: Record<string, unknown>, id: string | number = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "server/discover",
  params: { _meta: meta }
})

describe("request envelope (wire contract §2.1, §2.2)", () => {
  it("C2.1-a integer and string ids are both echoed", async () => {
    for (const id of [42, "abc-1"]) {
      const response = await postMcp(server.url, modernRequest("server/discover", {}, id))
      expect(response.json.id).toBe(id)
    }
  })

  it("C2.1-a C7.1-a a request nested thousands of levels deep is 400 -32600 with its id, not a 500 (found by the reliability suite's fuzzer)", async () => {
    for (const depth of [300, 3_000, 100_000]) {
      for (const method of ["server/discover", "tools/call"]) {
        const deep = `${"[".repeat(depth)}"t"${"]".repeat(depth)}`
        const body =
          `{"jsonrpc":"2.0","id":"deep-${depth}","method":"${method}","params":{"name":"describe_table","arguments":{"table":${deep}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
        const response = await postMcp(server.url, body, {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          "mcp-name": method === "tools/call" ? "describe_table" : undefined
        })
        expect(response.status, `${method} at depth ${depth}: ${response.text.slice(0, 200)}`).toBe(400)
        expect(response.json).toMatchObject({ id: `deep-${depth}`, error: { code: -32600 } })
        expect(response.json.error.message).toContain("nested")
      }
    }
    const fine = await postMcp(
      server.url,
      modernRequest("server/discover", { deep: JSON.parse(`${"[".repeat(60)}1${"]".repeat(60)}`) })
    )
    expect(fine.status).toBe(200)
  })

  it("C2.1-a a fractional id, a wrong jsonrpc or a non-object params is an invalid request", async () => {
    const bodies = [
      { ...modernRequest("server/discover"), id: 1.5 },
      { ...modernRequest("server/discover"), jsonrpc: "1.0" },
      { jsonrpc: "2.0", id: 3, method: "server/discover", params: [1, 2] }
    ]
    for (const body of bodies) {
      const response = await postMcp(server.url, body, {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover"
      })
      expect(response.status).toBe(400)
      expect(response.json.error.code).toBe(-32600)
    }
  })

  it("C2.1-a a message without id is a notification: 202 with no body", async () => {
    const response = await postMcp(server.url, { jsonrpc: "2.0", method: "notifications/initialized", params: {} })
    expect(response.status).toBe(202)
    expect(response.text).toBe("")
  })

  it("C2.2-a a missing or empty protocolVersion gives -32602", async () => {
    for (const version of [undefined, ""]) {
      const meta: Record<string, unknown> = { "io.modelcontextprotocol/clientCapabilities": {} }
      if (version !== undefined) meta["io.modelcontextprotocol/protocolVersion"] = version
      const response = await postMcp(server.url, withMeta(meta), { "mcp-protocol-version": undefined })
      expect(response.status).toBe(400)
      expect(response.json.error.code).toBe(-32602)
      expect(response.json.id).toBe(7)
    }
  })

  it("C2.2-b C9-a an unsupported version, 2025-03-26 included, gives -32022 with data.supported", async () => {
    for (const version of ["2099-01-01", "2025-03-26"]) {
      const response = await postMcp(
        server.url,
        withMeta({
          "io.modelcontextprotocol/protocolVersion": version,
          "io.modelcontextprotocol/clientCapabilities": {}
        })
      )
      expect(response.status).toBe(400)
      expect(response.json.error.code).toBe(-32022)
      expect(response.json.error.data.supported).toContain("2026-07-28")
      expect(response.json.error.data.supported).not.toContain("2025-03-26")
    }
  })

  it("C2.2-c clientCapabilities missing or not an object gives -32602; {} is valid", async () => {
    const bad = [undefined, "elicitation", [], null, 3]
    for (const capabilities of bad) {
      const meta: Record<string, unknown> = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
      if (capabilities !== undefined) meta["io.modelcontextprotocol/clientCapabilities"] = capabilities
      const response = await postMcp(server.url, withMeta(meta))
      expect(response.status).toBe(400)
      expect(response.json.error.code).toBe(-32602)
    }
    const ok = await postMcp(
      server.url,
      withMeta({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
      })
    )
    expect(ok.status).toBe(200)
  })

  it("C2.2-e a string or integer progressToken is accepted; the answer streams as SSE ending with the result", async () => {
    for (const token of ["tok-1", 9]) {
      const response = await postMcp(server.url, modernRequest("server/discover", { _meta: { progressToken: token } }))
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
      const frames = response.text.split("\n\n").filter((frame) => frame !== "")
      const last = JSON.parse(frames.at(-1)!.replace(/^data: /, ""))
      expect(last.result.resultType).toBe("complete")
    }
    const bad = await postMcp(server.url, modernRequest("server/discover", { _meta: { progressToken: 1.5 } }))
    expect(bad.json.error.code).toBe(-32602)
  })

  it("C9-b C3.3-f a request whose _meta lacks the protocol version is legacy: without a session it is 404 -33001", async () => {
    const response = await postMcp(server.url, { jsonrpc: "2.0", id: 1, method: "ping", params: {} }, {
      "mcp-method": undefined
    })
    expect(response.status).toBe(404)
    expect(response.json.error.code).toBe(-33001)
  })

  it("C2.1-a unparseable JSON is -32700 and the server keeps serving", async () => {
    const response = await postMcp(server.url, "{not json", { "mcp-method": "server/discover" })
    expect(response.status).toBe(400)
    expect(response.json).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.any(String) }
    })
    const after = await postMcp(server.url, modernRequest("server/discover"))
    expect(after.status).toBe(200)
  })
})
