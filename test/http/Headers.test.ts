import { FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { wrapHeaderValue } from "../../src/http/HeaderValues.ts"
import { connectRaw, requestHead } from "../support/RawHttp.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

/**
 * Header checks run before the method's own validation and before the method lookup, so a
 * tools/call naming a tool that does not exist still proves them: matching headers never give -32020.
 */
const toolCall = (args: Record<string, unknown> = {}, name = "no_such_tool") =>
  modernRequest("tools/call", { name, arguments: args }, 11)

const expectHeaderMismatch = (response: Awaited<ReturnType<typeof postMcp>>, what: string) => {
  expect(response.status, what).toBe(400)
  expect(response.json, what).toMatchObject({ jsonrpc: "2.0", id: 11, error: { code: -32020 } })
}
const expectHeadersAccepted = (response: Awaited<ReturnType<typeof postMcp>>, what: string) => {
  expect(response.json?.error?.code, what).not.toBe(-32020)
}

describe("modern-era headers (wire contract §4.2)", () => {
  it("C4.2-a C7.1-a Content-Type application/json with parameters or any +json type is accepted; anything else is 400 -32020", async () => {
    for (
      const type of [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/vnd.example+json"
      ]
    ) {
      const response = await postMcp(server.url, modernRequest("server/discover", {}, 11), { "content-type": type })
      expect(response.status, type).toBe(200)
    }
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json-seq", "text/json"]) {
      expectHeaderMismatch(
        await postMcp(server.url, modernRequest("server/discover", {}, 11), { "content-type": type }),
        type
      )
    }
  })

  it("C4.2-a a request with no Content-Type at all is 400 -32020", async () => {
    const raw = await connectRaw(server.port)
    const body = JSON.stringify(modernRequest("server/discover", {}, 11))
    await raw.write(
      requestHead("POST", "/mcp", {
        host: `127.0.0.1:${server.port}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
        "content-length": Buffer.byteLength(body)
      }) + body
    )
    const response = await raw.nextResponse()
    expect(response.status).toBe(400)
    expect(response.json.error.code).toBe(-32020)
    raw.socket.destroy()
  })

  it("C4.2-b MCP-Protocol-Version missing or different from _meta is -32020", async () => {
    expectHeaderMismatch(await postMcp(server.url, toolCall(), { "mcp-protocol-version": undefined }), "missing")
    expectHeaderMismatch(await postMcp(server.url, toolCall(), { "mcp-protocol-version": "2025-11-25" }), "older")
    expectHeaderMismatch(await postMcp(server.url, toolCall(), { "mcp-protocol-version": "2026-07-29" }), "other")
  })

  it("C4.2-c Mcp-Method missing, different or differently cased is -32020", async () => {
    for (const value of [undefined, "tools/list", "Tools/Call", "tools/call/x"]) {
      expectHeaderMismatch(await postMcp(server.url, toolCall(), { "mcp-method": value }), String(value))
    }
  })

  it("C4.2-d Mcp-Name must equal params.name for tools/call and prompts/get", async () => {
    for (const method of ["tools/call", "prompts/get"]) {
      const body = modernRequest(method, { name: "describe_table", arguments: {} }, 11)
      expectHeaderMismatch(await postMcp(server.url, body, { "mcp-name": undefined }), `${method} missing`)
      expectHeaderMismatch(await postMcp(server.url, body, { "mcp-name": "list_connections" }), `${method} other`)
      expectHeaderMismatch(await postMcp(server.url, body, { "mcp-name": "Describe_Table" }), `${method} case`)
      expectHeadersAccepted(await postMcp(server.url, body), `${method} equal`)
    }
  })

  it("C4.2-d Mcp-Name must equal params.uri for resources/read", async () => {
    const body = modernRequest("resources/read", { uri: "dbdesk://connections" }, 11)
    expectHeaderMismatch(await postMcp(server.url, body, { "mcp-name": undefined }), "missing")
    expectHeaderMismatch(await postMcp(server.url, body, { "mcp-name": "dbdesk://other" }), "other")
    expectHeadersAccepted(await postMcp(server.url, body), "equal")
  })

  it("C4.2-e Mcp-Param headers: case-insensitive, nested, numbers numerically, booleans true/false, arrays and objects never match", async () => {
    const args = { region: "us-west1", count: 42, flag: true, nested: { Zone: "b" }, list: [1], object: {} }
    const accepted: Array<Record<string, string>> = [
      {},
      { "Mcp-Param-Region": "us-west1" },
      { "Mcp-Param-REGION": "us-west1", "Mcp-Param-count": "42.0" },
      { "Mcp-Param-Flag": "true" },
      { "Mcp-Param-zone": "b" }
    ]
    for (const headers of accepted) {
      expectHeadersAccepted(await postMcp(server.url, toolCall(args), headers), JSON.stringify(headers))
    }
    const refused: Array<Record<string, string>> = [
      { "Mcp-Param-Region": "US-WEST1" },
      { "Mcp-Param-count": "0x2A" },
      { "Mcp-Param-count": "43" },
      { "Mcp-Param-flag": "True" },
      { "Mcp-Param-flag": "1" },
      { "Mcp-Param-list": "1" },
      { "Mcp-Param-object": "{}" },
      { "Mcp-Param-absent": "x" }
    ]
    for (const headers of refused) {
      expectHeaderMismatch(await postMcp(server.url, toolCall(args), headers), JSON.stringify(headers))
    }
  })

  it("C4.2-e outside tools/call the field is looked up in params, and the check comes before the method lookup", async () => {
    const body = modernRequest("no/such/method", { region: "eu" }, 11)
    expectHeaderMismatch(await postMcp(server.url, body, { "Mcp-Param-Region": "us" }), "mismatch")
    const matched = await postMcp(server.url, body, { "Mcp-Param-Region": "eu" })
    expect(matched.status).toBe(404)
    expect(matched.json.error.code).toBe(-32601)
  })

  it("C4.2-f wrapped values are decoded before comparison, as the official client sends them", async () => {
    const args = { region: "Zürich", padded: " padded ", empty: "", sentinel: "=?base64?x?=" }
    const headers = {
      "Mcp-Param-Region": "=?base64?WsO8cmljaA==?=",
      "Mcp-Param-Padded": "=?base64?IHBhZGRlZCA=?=",
      "Mcp-Param-Empty": "=?base64??=",
      "Mcp-Param-Sentinel": "=?base64?PT9iYXNlNjQ/eD89?="
    }
    expectHeadersAccepted(await postMcp(server.url, toolCall(args), headers), "all wrapped")
    const uri = "file:///tmp/ünï cfg.txt"
    const read = modernRequest("resources/read", { uri }, 11)
    expectHeadersAccepted(
      await postMcp(server.url, read, { "mcp-name": "=?base64?ZmlsZTovLy90bXAvw7xuw68gY2ZnLnR4dA==?=" }),
      "wrapped uri"
    )
  })

  it("C4.2-f any tool name travels through a wrapped Mcp-Name and is accepted", async () => {
    const names = FastCheck.sample(
      FastCheck.oneof(
        FastCheck.string({ unit: "binary", minLength: 1, maxLength: 12 }),
        FastCheck.string({ minLength: 1 })
      ),
      25
    )
    for (const name of names) {
      const response = await postMcp(server.url, toolCall({}, name), { "mcp-name": wrapHeaderValue(name) })
      expectHeadersAccepted(response, JSON.stringify(name))
    }
  })

  it("C4.2-g a malformed wrapper in any Mcp- header is -32020", async () => {
    for (
      const [header, value] of [["mcp-name", "=?base64?bm9fc3VjaF90b29s?"], ["mcp-name", "=?base64?***?="], [
        "Mcp-Param-Region",
        "=?base64?/w==?="
      ], ["mcp-method", "=?base64?dG9vbHMvY2FsbA=?="]]
    ) {
      expectHeaderMismatch(
        await postMcp(server.url, toolCall({ region: "x" }), { [header!]: value }),
        `${header}: ${value}`
      )
    }
  })

  it("C4.2-g a control character (tab) in an Mcp- header is -32020", async () => {
    const raw = await connectRaw(server.port)
    const body = JSON.stringify(toolCall({ region: "a\tb" }))
    await raw.write(
      requestHead("POST", "/mcp", {
        host: `127.0.0.1:${server.port}`,
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "no_such_tool",
        "mcp-param-region": "a\tb",
        "content-length": Buffer.byteLength(body)
      }) + body
    )
    const response = await raw.nextResponse()
    expect(response.status).toBe(400)
    expect(response.json.error.code).toBe(-32020)
    raw.socket.destroy()
  })
})
