import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { McpServerAddress } from "../../src/http/NodeMcpServer.ts"
import { SettingsStore } from "../../src/services/Settings.ts"
import { connectRaw, eventually, requestHead, type RawSocket } from "../support/RawHttp.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

/** Product-decisions §4 "Body limit": "10 MB" = 10,485,760 bytes (pinned here, never read from the source). */
const MAX_BODY_BYTES = 10_485_760

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const discoverJson = JSON.stringify(modernRequest("server/discover"))
const postHead = (port: number, extra: Record<string, string | number>) =>
  requestHead("POST", "/mcp", {
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "server/discover",
    ...extra
  })

/** The idle tests shorten the timeout to 0.3 s; the cap only has to be well below the 30 s default. */
const closedWithin = async (raw: RawSocket, capMs = 10_000) => {
  await eventually(raw.isClosed, capMs, "the server to close the idle socket")
  return raw.closed
}

const expect413 = async (raw: RawSocket) => {
  const response = await raw.nextResponse()
  expect(response.status).toBe(413)
  expect(response.headers["connection"]).toBe("close")
  expect(response.json).toMatchObject({
    jsonrpc: "2.0",
    id: null,
    error: { code: -33005, data: { limitBytes: 10_485_760 } }
  })
  expect(await raw.closed).toBeUndefined()
}

describe("limits (wire contract §8, D-44)", () => {
  it("C8-a C7.1-a a Content-Length above 10,485,760 bytes is answered 413 -33005 with Connection: close, received whole", async () => {
    const raw = await connectRaw(server.port)
    const body = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20)
    await raw.write(postHead(server.port, { "content-length": body.length }))
    void raw.write(body).catch(() => undefined)
    await expect413(raw)
  })

  it("C8-a a chunked body is read up to the limit and then answered 413 the same way", async () => {
    const raw = await connectRaw(server.port)
    await raw.write(postHead(server.port, { "transfer-encoding": "chunked" }))
    const chunk = Buffer.alloc(1024 * 1024, 0x20)
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])
    for (let sent = 0; sent <= MAX_BODY_BYTES; sent += chunk.length) void raw.write(framed).catch(() => undefined)
    void raw.write("0\r\n\r\n").catch(() => undefined)
    await expect413(raw)
  })

  it("C8-a a body of exactly 10,485,760 bytes is accepted", async () => {
    const body = discoverJson + " ".repeat(MAX_BODY_BYTES - Buffer.byteLength(discoverJson))
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES)
    const response = await postMcp(server.url, body, {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover"
    })
    expect(response.status).toBe(200)
    expect(response.json.result.resultType).toBe("complete")
  })

  it("C8-b a HEAD request with headers above 16 KB gets the 431 head and no body, as HTTP wants for HEAD (found by the reliability suite's fuzzer)", async () => {
    const raw = await connectRaw(server.port)
    await raw.write(requestHead("HEAD", "/mcp", { host: `127.0.0.1:${server.port}`, "x-padding": "a".repeat(17_000) }))
    await raw.closed
    const text = raw.received().toString("latin1")
    expect(text).toMatch(/^HTTP\/1\.1 431 /)
    expect(text.endsWith("\r\n\r\n"), JSON.stringify(text.slice(-80))).toBe(true)
  })

  it("C8-b request headers above 16 KB are answered 431; 12 KB of headers are served", async () => {
    const big = await connectRaw(server.port)
    await big.write(postHead(server.port, { "x-padding": "a".repeat(17_000), "content-length": 0 }))
    const refused = await big.nextResponse()
    expect(refused.status).toBe(431)
    expect(await big.closed).toBeUndefined()
    const fine = await postMcp(server.url, modernRequest("server/discover"), { "x-padding": "a".repeat(12_000) })
    expect(fine.status).toBe(200)
  })

  it("C8-c C7.1-a the 65th concurrent connection gets an immediate 503 -33000 with Retry-After: 1 and is closed; the server keeps serving", async () => {
    const fresh = await startTestServer()
    const address = Context.get(fresh.context as Context.Context<McpServerAddress>, McpServerAddress)
    const held: Array<RawSocket> = []
    try {
      for (let index = 0; index < 64; index += 1) held.push(await connectRaw(fresh.port))
      await eventually(() => address.openConnections() === 64, 10_000, "64 accepted sockets")
      const extra = await connectRaw(fresh.port)
      const response = await extra.nextResponse()
      expect(response.status).toBe(503)
      expect(response.headers["retry-after"]).toBe("1")
      expect(response.headers["connection"]).toBe("close")
      expect(response.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -33000 } })
      expect(await extra.closed).toBeUndefined()
      const eager = await connectRaw(fresh.port)
      void eager.write(postHead(fresh.port, { "content-length": Buffer.byteLength(discoverJson) }) + discoverJson)
        .catch(() => undefined)
      expect((await eager.nextResponse()).status).toBe(503)
      expect(await eager.closed).toBeUndefined()
      const stillServed = held[0]!
      await stillServed.write(
        postHead(fresh.port, { "content-length": Buffer.byteLength(discoverJson) }) + discoverJson
      )
      expect((await stillServed.nextResponse()).status).toBe(200)
      for (const socket of held) socket.socket.destroy()
      await eventually(() => address.openConnections() === 0, 10_000, "sockets to close")
      expect((await postMcp(fresh.url, modernRequest("server/discover"))).status).toBe(200)
    } finally {
      for (const socket of held) socket.socket.destroy()
      await fresh.stop()
    }
  })

  it("C8-d C4.1-a a keep-alive socket serves several requests in a row under the default idle timeout", async () => {
    const raw = await connectRaw(server.port)
    const request = postHead(server.port, { "content-length": Buffer.byteLength(discoverJson) }) + discoverJson
    await raw.write(request)
    const first = await raw.nextResponse()
    await raw.write(request)
    const second = await raw.nextResponse(first.end)
    expect([first.status, second.status]).toStrictEqual([200, 200])
    expect(raw.isClosed()).toBe(false)
    raw.socket.destroy()
  })
})

describe("idle and disabled (D-44, D-46)", () => {
  it("C8-d idle keep-alive sockets, sockets that never send a request and stalled uploads are closed after mcp.idleTimeoutSeconds", async () => {
    const quick = await startTestServer({ settings: { mcp: { idleTimeoutSeconds: 0.3 } } })
    try {
      const silent = await connectRaw(quick.port)
      const used = await connectRaw(quick.port)
      await used.write(postHead(quick.port, { "content-length": Buffer.byteLength(discoverJson) }) + discoverJson)
      expect((await used.nextResponse()).status).toBe(200)
      const stalled = await connectRaw(quick.port)
      await stalled.write(postHead(quick.port, { "content-length": 100 }) + "{\"jsonrpc\"")
      expect(await closedWithin(silent)).toBeUndefined()
      expect(await closedWithin(used)).toBeUndefined()
      await closedWithin(stalled)
    } finally {
      await quick.stop()
    }
  })

  it("C8-d a change of mcp.idleTimeoutSeconds applies to sockets without a restart", async () => {
    const local = await startTestServer()
    const store = Context.get(local.context as Context.Context<SettingsStore>, SettingsStore)
    try {
      await Effect.runPromise(store.update({ mcp: { idleTimeoutSeconds: 0.3 } }))
      const used = await connectRaw(local.port)
      await used.write(postHead(local.port, { "content-length": Buffer.byteLength(discoverJson) }) + discoverJson)
      expect((await used.nextResponse()).status).toBe(200)
      expect(await closedWithin(used)).toBeUndefined()
    } finally {
      await local.stop()
    }
  })

  it("C7.1-a with mcp.enabled false every request is 503 -33006, and turning it back on needs no restart", async () => {
    const local = await startTestServer()
    const store = Context.get(local.context as Context.Context<SettingsStore>, SettingsStore)
    try {
      await Effect.runPromise(store.update({ mcp: { enabled: false } }))
      const answers = [
        await postMcp(local.url, modernRequest("server/discover")),
        await postMcp(local.url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }),
        await fetch(local.url, { method: "GET" }),
        await fetch(local.url, { method: "OPTIONS" }),
        await fetch(local.url.replace(/\/mcp$/, "/other"), { method: "POST", body: "{}" })
      ]
      for (const answer of answers) {
        expect(answer.status).toBe(503)
        const json = "json" in answer && typeof answer.json !== "function"
          ? answer.json
          : await (answer as Response).json()
        expect(json.error.code).toBe(-33006)
      }
      await Effect.runPromise(store.update({ mcp: { enabled: true } }))
      expect((await postMcp(local.url, modernRequest("server/discover"))).status).toBe(200)
    } finally {
      await local.stop()
    }
  })
})
