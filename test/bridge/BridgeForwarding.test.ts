import { type Duration, Effect } from "effect"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { PassThrough } from "node:stream"
import { afterEach, describe, expect, it } from "vitest"
import { runBridge } from "../../src/bridge/Bridge.ts"
import { FileInspector } from "../../src/bridge/HandshakeTrust.ts"
import { eventually } from "../support/RawRequests.ts"
import {
  discoverAnswer,
  type FakeAnswer,
  type FakeServer,
  startFakeServer,
  writeHandshakeHome
} from "./BridgeHarness.ts"

const INSTANCE = "00000000-0000-4000-8000-000000000001"
const SERVER_INFO = { name: "dbdesk", version: "0.0.0" }
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
}

/** A bridge run in-process on PassThrough stdio against a fake upstream. */
const startBridge = (home: string, responseAfterProgress?: Duration.DurationInput) => {
  const input = new PassThrough()
  const output = new PassThrough()
  const errors = new PassThrough()
  const lines: Array<any> = []
  let buffer = ""
  output.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk
    const parts = buffer.split("\n")
    buffer = parts.pop() ?? ""
    lines.push(...parts.map((line) => JSON.parse(line)))
  })
  errors.resume()
  const exit = Effect.runPromise(
    runBridge({
      home,
      input,
      output,
      errors,
      ...(responseAfterProgress === undefined ? {} : { responseAfterProgress })
    }).pipe(Effect.provide(FileInspector.layer))
  )
  return {
    lines,
    send: (message: unknown) => input.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`),
    answerTo: async (id: unknown) => {
      expect(await eventually(() => lines.some((line) => line.id === id && ("result" in line || "error" in line))))
        .toBe(true)
      return lines.find((line) => line.id === id && ("result" in line || "error" in line))
    },
    close: () => {
      input.end()
      return exit
    }
  }
}

let fake: FakeServer | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

const upstreamServer = (
  answer: (body: any, headers: any) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>
) =>
  startFakeServer((
    body,
    headers
  ) => (body.method === "server/discover"
    ? { body: discoverAnswer(body.id, ["2026-07-28", "2025-11-25"], INSTANCE) }
    : answer(body, headers))
  )
const forwarded = () => fake!.received.filter((entry) => entry.body.method !== "server/discover")
const complete = (id: unknown, result: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  result: {
    ...result,
    resultType: "complete",
    ttlMs: 300000,
    cacheScope: "private",
    _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO, "dev.example/kept": true }
  }
})

describe("forwarding one message per line (D-53)", () => {
  it("C1-c a legacy host: initialize and ping answered locally, requests stamped as 2026-07-28, results stripped, ids rewritten and mapped back", async () => {
    fake = await upstreamServer((body) => ({ body: complete(body.id, { tools: [] }) }))
    const { home } = writeHandshakeHome({ port: fake.port })
    const bridge = startBridge(home)
    bridge.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "host", version: "9" } }
    })
    const initialized = await bridge.answerTo(0)
    expect(initialized.result).toMatchObject({
      protocolVersion: "2025-06-18",
      serverInfo: SERVER_INFO,
      instructions: "fake"
    })
    expect(initialized.result.capabilities.resources.subscribe).toBe(false)
    expect(initialized.result.capabilities).not.toHaveProperty("extensions")
    bridge.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    bridge.send({ jsonrpc: "2.0", id: 1, method: "ping" })
    expect((await bridge.answerTo(1)).result).toEqual({})
    const trace = {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      tracestate: "vendor=1",
      baggage: "k=v",
      progressToken: "p"
    }
    bridge.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: trace } })
    const listed = await bridge.answerTo(2)
    expect(listed).toEqual({ jsonrpc: "2.0", id: 2, result: { tools: [], _meta: { "dev.example/kept": true } } })
    expect(forwarded()).toHaveLength(1)
    const sent = forwarded()[0]!
    expect(sent.body.id).not.toBe(2)
    expect(sent.body.params._meta).toEqual({
      ...trace,
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "host", version: "9" }
    })
    expect(sent.headers).toMatchObject({
      "content-type": "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
      authorization: "Bearer dbd_fake"
    })
    expect(await bridge.close()).toBe(0)
  })

  it("C1-c a modern host is forwarded as is; Mcp-Name is base64-wrapped when not ASCII; ids stay unique across bridge processes", async () => {
    fake = await upstreamServer((body) => ({ body: complete(body.id, { content: [], isError: false }) }))
    const { home } = writeHandshakeHome({ port: fake.port })
    const first = startBridge(home)
    const second = startBridge(home)
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "café", arguments: { q: 1 }, _meta: MODERN_META }
    }
    first.send(call)
    second.send(call)
    const answer = await first.answerTo(7)
    await second.answerTo(7)
    expect(answer.result).toMatchObject({
      resultType: "complete",
      ttlMs: 300000,
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO }
    })
    const calls = forwarded()
    expect(calls).toHaveLength(2)
    expect(calls.map((entry) => ({ ...entry.body, id: 7 }))).toEqual([call, call])
    expect(new Set(calls.map((entry) => entry.body.id)).size).toBe(2)
    expect(calls[0]!.headers["mcp-name"]).toBe(`=?base64?${Buffer.from("café").toString("base64")}?=`)
    await Promise.all([first.close(), second.close()])
  })

  it("C1-c SSE frames become one stdout line each, progress first and the response last", async () => {
    fake = await upstreamServer((body) => ({
      sse: [
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 0, total: 1 } },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1, total: 1 } },
        complete(body.id, { content: [] })
      ]
    }))
    const { home } = writeHandshakeHome({ port: fake.port })
    const bridge = startBridge(home)
    bridge.send({
      jsonrpc: "2.0",
      id: "x",
      method: "tools/call",
      params: { name: "slow", arguments: {}, _meta: { ...MODERN_META, progressToken: "t" } }
    })
    await bridge.answerTo("x")
    expect(bridge.lines.map((line) => line.method ?? `response ${line.id}`)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "response x"
    ])
    expect(bridge.lines[1].params.progress).toBe(1)
    await bridge.close()
  })

  /** A legacy host (initialize first) calls a tool whose SSE answer is one progress frame and the response. */
  const legacyCallWithProgress = async (responseAfterProgress?: Duration.DurationInput) => {
    fake = await upstreamServer((body) => ({
      sse: [
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1, total: 1 } },
        complete(body.id, { content: [] })
      ]
    }))
    const bridge = startBridge(writeHandshakeHome({ port: fake.port }).home, responseAfterProgress)
    bridge.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "host", version: "9" } }
    })
    await bridge.answerTo(0)
    bridge.send({
      jsonrpc: "2.0",
      id: "x",
      method: "tools/call",
      params: { name: "slow", arguments: {}, _meta: { progressToken: "t" } }
    })
    return bridge
  }
  const order = (lines: ReadonlyArray<any>) => lines.map((line) => line.method ?? `response ${line.id}`)

  it("C1-c a legacy host's response after progress waits for the host's answer to a ping, not for a timer", async () => {
    // A fallback far longer than the test: only the host's answer to the ping can release the response.
    const bridge = await legacyCallWithProgress("10 minutes")
    expect(await eventually(() => bridge.lines.some((line) => line.method === "ping"))).toBe(true)
    const ping = bridge.lines.find((line) => line.method === "ping")
    expect(ping).toMatchObject({ jsonrpc: "2.0", id: expect.any(String) })
    expect(bridge.lines.some((line) => line.id === "x")).toBe(false)
    bridge.send({ jsonrpc: "2.0", id: ping.id, result: {} })
    await bridge.answerTo("x")
    expect(order(bridge.lines)).toEqual(["response 0", "notifications/progress", "ping", "response x"])
    await bridge.close()
  })

  it("C1-c a legacy host that leaves the ping unanswered still gets the response, after the fallback wait", async () => {
    const bridge = await legacyCallWithProgress()
    expect((await bridge.answerTo("x")).result).toEqual({ content: [], _meta: { "dev.example/kept": true } })
    expect(order(bridge.lines)).toEqual(["response 0", "notifications/progress", "ping", "response x"])
    await bridge.close()
  })

  it("C1-c responses and other notifications on stdin are dropped; a cancel goes upstream with the rewritten id", async () => {
    let release: (() => void) | undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    fake = await upstreamServer(async (body) => {
      if (body.method === "notifications/cancelled") return undefined
      await held
      return { body: { jsonrpc: "2.0", id: body.id, error: { code: -33002, message: "Request cancelled" } } }
    })
    const { home } = writeHandshakeHome({ port: fake.port })
    const bridge = startBridge(home)
    bridge.send({ jsonrpc: "2.0", id: 99, result: {} })
    bridge.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" })
    bridge.send("not json")
    bridge.send({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "execute_query", arguments: {}, _meta: MODERN_META }
    })
    expect(await eventually(() => forwarded().length === 1)).toBe(true)
    bridge.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "stop", _meta: MODERN_META }
    })
    expect(await eventually(() => forwarded().length === 2)).toBe(true)
    const [call, cancel] = forwarded()
    expect(cancel!.body).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: call!.body.id, reason: "stop", _meta: MODERN_META }
    })
    expect(cancel!.headers["authorization"]).toBe("Bearer dbd_fake")
    release?.()
    expect((await bridge.answerTo(5)).error.code).toBe(-33002)
    expect(bridge.lines.filter((line) => line.id === 99)).toEqual([])
    expect(bridge.lines).toContainEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.any(String) }
    })
    expect(forwarded().map((entry) => entry.body.method)).toEqual(["tools/call", "notifications/cancelled"])
    await bridge.close()
  })

  it("C1-c the host reads its own id wherever the server names the request: listen acknowledgement, tagged notifications, graceful result, error data", async () => {
    const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
    fake = await upstreamServer((body) => {
      if (body.method === "subscriptions/listen") {
        const tag = { _meta: { [SUBSCRIPTION]: body.id } }
        return {
          sse: [
            {
              jsonrpc: "2.0",
              method: "notifications/subscriptions/acknowledged",
              params: { notifications: { resourcesListChanged: true }, ...tag }
            },
            { jsonrpc: "2.0", method: "notifications/resources/list_changed", params: tag },
            { jsonrpc: "2.0", id: body.id, result: { resultType: "complete", ...tag } }
          ]
        }
      }
      return {
        body: {
          jsonrpc: "2.0",
          id: body.id,
          error: {
            code: -33002,
            message: "Request cancelled",
            data: { requestId: body.id, note: `upstream ${body.id}` }
          }
        }
      }
    })
    const { home } = writeHandshakeHome({ port: fake.port })
    const bridge = startBridge(home, "1 millis")
    bridge.send({
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: { notifications: { resourcesListChanged: true }, _meta: MODERN_META }
    })
    const graceful = await bridge.answerTo("listen-1")
    expect(graceful.result._meta[SUBSCRIPTION]).toBe("listen-1")
    const frames = bridge.lines.filter((line) => line.method !== undefined)
    expect(frames.map((frame) => [frame.method, frame.params._meta[SUBSCRIPTION]])).toEqual([
      ["notifications/subscriptions/acknowledged", "listen-1"],
      ["notifications/resources/list_changed", "listen-1"]
    ])
    bridge.send({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "execute_query", arguments: {}, _meta: MODERN_META }
    })
    const refused = await bridge.answerTo(7)
    // Only a whole string token equal to the upstream id is the request's id; text that merely contains it stays.
    expect(refused.error.data.requestId).toBe(7)
    expect(refused.error.data.note).toBe(`upstream ${forwarded().at(-1)!.body.id}`)
    await bridge.close()
  })

  it("C1-b on -33009 the bridge re-reads the handshake file once and retries with the rotated token", async () => {
    fake = await upstreamServer((body, headers) =>
      headers.authorization === "Bearer dbd_rotated"
        ? { body: complete(body.id, { tools: [] }) }
        : { status: 401, body: { jsonrpc: "2.0", id: body.id, error: { code: -33009, message: "Unauthenticated" } } }
    )
    const { file, home } = writeHandshakeHome({ port: fake.port })
    const bridge = startBridge(home)
    bridge.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } })
    expect((await bridge.answerTo(1)).error.code).toBe(-33009)
    expect(forwarded()).toHaveLength(2)
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), bridgeToken: "dbd_rotated" }))
    chmodSync(file, 0o600)
    bridge.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: MODERN_META } })
    expect((await bridge.answerTo(2)).result.tools).toEqual([])
    expect(forwarded().map((entry) => entry.headers["authorization"])).toEqual([
      "Bearer dbd_fake",
      "Bearer dbd_fake",
      "Bearer dbd_fake",
      "Bearer dbd_rotated"
    ])
    bridge.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: MODERN_META } })
    await bridge.answerTo(3)
    expect(forwarded().at(-1)!.headers["authorization"]).toBe("Bearer dbd_rotated")
    await bridge.close()
  })

  it("C4.4 a first tools/list page is answered by the bridge for its ttlMs (the server's hint), per upstream token; cursors, ttlMs 0 and a -33009 go upstream", async () => {
    let ttlMs = 300000
    const revoked = new Set<string>()
    fake = await upstreamServer((body, headers) =>
      revoked.has(headers.authorization)
        ? { status: 401, body: { jsonrpc: "2.0", id: body.id, error: { code: -33009, message: "Unauthenticated" } } }
        : {
          body: {
            ...complete(body.id, { tools: [{ name: `t-${headers.authorization}` }] }),
            result: { ...complete(body.id, { tools: [{ name: `t-${headers.authorization}` }] }).result, ttlMs }
          }
        }
    )
    const { file, home } = writeHandshakeHome({ port: fake.port })
    const bridge = startBridge(home)
    const list = (id: number, params: Record<string, unknown> = {}) =>
      bridge.send({ jsonrpc: "2.0", id, method: "tools/list", params: { ...params, _meta: MODERN_META } })
    list(1)
    const first = await bridge.answerTo(1)
    list(2)
    const second = await bridge.answerTo(2)
    expect(forwarded()).toHaveLength(1)
    expect(second).toEqual({ ...first, id: 2 })
    // A legacy host gets the same list with the modern-only fields stripped (C2.4-e), still without a request.
    bridge.send({ jsonrpc: "2.0", id: 3, method: "tools/list" })
    const legacy = await bridge.answerTo(3)
    expect(legacy.result).toEqual({ tools: first.result.tools, _meta: { "dev.example/kept": true } })
    expect(forwarded()).toHaveLength(1)
    // Another page is the server's to answer.
    list(4, { cursor: "abc" })
    await bridge.answerTo(4)
    expect(forwarded()).toHaveLength(2)
    // An authentication failure drops the entry, and the next list asks again with the token the bridge then read.
    revoked.add("Bearer dbd_fake")
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), bridgeToken: "dbd_rotated" }))
    chmodSync(file, 0o600)
    bridge.send({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "x", arguments: {}, _meta: MODERN_META }
    })
    expect((await bridge.answerTo(5)).result).toBeDefined()
    const before = forwarded().length
    list(6)
    expect((await bridge.answerTo(6)).result.tools).toEqual([{ name: "t-Bearer dbd_rotated" }])
    expect(forwarded()).toHaveLength(before + 1)
    // A list the server says not to keep (ttlMs 0) is asked for every time.
    ttlMs = 0
    bridge.send({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: MODERN_META } })
    await bridge.answerTo(7)
    expect(forwarded()).toHaveLength(before + 1)
    await bridge.close()
  })
})
