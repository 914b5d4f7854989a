// D-53: the stdio bridge's local channel (src/http/BridgeChannel.ts) runs every line through the endpoint's
// own pipeline: the same answers, authentication, limits and cancellation as a POST to /mcp.
import { Context, Effect } from "effect"
import { statSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BRIDGE_CHANNEL_FILE, CHANNEL_HELLO, MAX_CHANNEL_IN_FLIGHT } from "../../src/http/ChannelProtocol.ts"
import { MAX_BODY_BYTES } from "../../src/http/BodyReader.ts"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import type { SqliteDriver } from "../../src/services/drivers/SqliteDriver.ts"
import { RequestRegistry } from "../../src/services/RequestRegistry.ts"
import { busyProcess, eventually, pidAlive } from "../support/RawRequests.ts"
import { modernRequest, startTestServer, type TestServer } from "../support/TestServer.ts"

const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

let server: TestServer
let connectionId: string
let driver: SqliteDriver

beforeAll(async () => {
  server = await startTestServer({
    token: "readWrite",
    settings: { limits: { concurrentPerCaller: 1000, requestsPerMinute: 100_000 } }
  })
  const connection = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!
  connectionId = connection.id
  driver = (await Effect.runPromise(Context.get(server.context, Drivers).forConnection(connection))) as SqliteDriver
})
afterAll(() => server.stop())

const registrySize = () => Effect.runPromise(Context.get(server.context, RequestRegistry).size)

/** A raw channel client: the hello, then every line the server sends as [id, message]. */
const openChannel = async (hello: unknown = { dbdesk: CHANNEL_HELLO, authorization: `Bearer ${server.token}` }) => {
  const socket = net.connect(join(server.home, BRIDGE_CHANNEL_FILE))
  const lines: Array<[unknown, any]> = []
  let raw = ""
  let closed = false
  socket.setEncoding("utf8")
  socket.on("data", (chunk: string) => {
    raw += chunk
    let end = raw.indexOf("\n")
    while (end !== -1) {
      const line = raw.slice(0, end)
      raw = raw.slice(end + 1)
      const tab = line.indexOf("\t")
      lines.push(
        tab === -1 ? [undefined, JSON.parse(line)] : [JSON.parse(line.slice(0, tab)), JSON.parse(line.slice(tab + 1))]
      )
      end = raw.indexOf("\n")
    }
  })
  socket.on("close", () => (closed = true))
  socket.on("error", () => undefined)
  socket.write(`${typeof hello === "string" ? hello : JSON.stringify(hello)}\n`)
  const send = (message: unknown) => socket.write(`${JSON.stringify(message)}\n`)
  const answerTo = async (id: unknown) => {
    expect(
      await eventually(() => lines.some(([of, message]) => of === id && ("result" in message || "error" in message)))
    ).toBe(true)
    return lines.find(([of, message]) => of === id && ("result" in message || "error" in message))![1]
  }
  return { socket, lines, send, answerTo, closed: () => closed }
}

const call = (id: number, query: string, extra: Record<string, unknown> = {}) =>
  modernRequest(
    "tools/call",
    { name: "execute_query", arguments: { connection_id: connectionId, query, ...extra } },
    id
  )

describe("the bridge's local channel (D-53)", () => {
  it("D-84 the socket is the user's alone (0600) and answers the hello, then each line with its request id and the endpoint's answer", async () => {
    expect(statSync(join(server.home, BRIDGE_CHANNEL_FILE)).mode & 0o777).toBe(0o600)
    const channel = await openChannel()
    expect(await eventually(() => channel.lines.length > 0)).toBe(true)
    expect(channel.lines[0]![1]).toEqual({ dbdesk: CHANNEL_HELLO })
    channel.send(modernRequest("tools/list", {}, "list-1"))
    channel.send(call(2, "SELECT 41 + 1 AS answer"))
    const listed = await channel.answerTo("list-1")
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toContain("execute_query")
    expect(listed.result).toMatchObject({ resultType: "complete", ttlMs: 300000, cacheScope: "private" })
    expect((await channel.answerTo(2)).result.structuredContent.rows).toEqual([[42]])
    channel.socket.destroy()
  })

  it("C5 every line is authenticated as a POST is: a channel opened without a valid token gets -33009 per message and stays open", async () => {
    const channel = await openChannel({ dbdesk: CHANNEL_HELLO, authorization: "Bearer dbd_not_a_token" })
    channel.send(call(1, "SELECT 1"))
    expect((await channel.answerTo(1)).error.code).toBe(-33009)
    channel.send(modernRequest("tools/list", {}, 2))
    expect((await channel.answerTo(2)).error.code).toBe(-33009)
    expect(channel.closed()).toBe(false)
    channel.socket.destroy()
  })

  it("C4.1 progress of a call arrives as its own lines, tagged with the call's id, before its answer", async () => {
    const channel = await openChannel()
    const request = call(3, "SELECT 1 AS one")
    channel.send({
      ...request,
      params: { ...request.params, _meta: { ...request.params._meta, progressToken: "p-3" } }
    })
    const answer = await channel.answerTo(3)
    expect(answer.result.structuredContent.rows).toEqual([[1]])
    const progress = channel.lines.filter(([, message]) => message.method === "notifications/progress")
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.every(([of, message]) => of === 3 && message.params.progressToken === "p-3")).toBe(true)
    expect(channel.lines.findIndex(([, message]) => message.method === "notifications/progress")).toBeLessThan(
      channel.lines.findIndex(([of, message]) => of === 3 && "result" in message)
    )
    channel.socket.destroy()
  })

  it("C3.2-d closing the channel cancels what it runs, as a dropped HTTP client does: the child is gone and the registry empty", async () => {
    const channel = await openChannel()
    channel.send(call(4, ENDLESS, { timeout_seconds: 120 }))
    expect(await eventually(async () => (await registrySize()) > 0)).toBe(true)
    const pid = await busyProcess(() => driver.childPid(), 3, "the SQLite child running the statement")
    channel.socket.destroy()
    expect(await eventually(() => !pidAlive(pid))).toBe(true)
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
  })

  it("C3.2-a notifications/cancelled on the channel ends the call -33002", async () => {
    const channel = await openChannel()
    channel.send(call(5, ENDLESS, { timeout_seconds: 120 }))
    expect(await eventually(async () => (await registrySize()) > 0)).toBe(true)
    channel.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } })
    expect((await channel.answerTo(5)).error.code).toBe(-33002)
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
    channel.socket.destroy()
  })

  it("C8 a line longer than the body limit is answered -33005 and the channel closes; a wrong hello closes it at once", async () => {
    const channel = await openChannel()
    channel.socket.write("x".repeat(MAX_BODY_BYTES + 10))
    expect(await eventually(() => channel.closed(), 10_000)).toBe(true)
    expect(channel.lines.at(-1)![1].error.code).toBe(-33005)
    const stranger = await openChannel("GET /mcp HTTP/1.1")
    expect(await eventually(() => stranger.closed())).toBe(true)
    expect(stranger.lines).toEqual([])
  })

  it("D-53 a channel runs at most MAX_CHANNEL_IN_FLIGHT requests: past it each is refused at once (-33000, retry), and a cancel still goes through", async () => {
    const channel = await openChannel()
    const extra = 5
    for (let i = 0; i < MAX_CHANNEL_IN_FLIGHT + extra; i++) {
      channel.send(call(100 + i, ENDLESS, { timeout_seconds: 120 }))
    }
    for (let i = MAX_CHANNEL_IN_FLIGHT; i < MAX_CHANNEL_IN_FLIGHT + extra; i++) {
      expect((await channel.answerTo(100 + i)).error).toMatchObject({ code: -33000, data: { retryAfterSeconds: 1 } })
    }
    expect(await eventually(async () => (await registrySize()) === MAX_CHANNEL_IN_FLIGHT)).toBe(true)
    channel.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100 } })
    expect((await channel.answerTo(100)).error.code).toBe(-33002)
    channel.socket.destroy()
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
  })
})
