import { Context, Effect } from "effect"
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import type { SqliteDriver } from "../../src/services/drivers/SqliteDriver.ts"
import { RequestRegistry } from "../../src/services/RequestRegistry.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { busyProcess, cpuTicks, eventually, pidAlive, postWithAgent } from "../support/RawRequests.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

let server: TestServer
let connectionId: string
let driver: SqliteDriver
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 })

beforeAll(async () => {
  server = await startTestServer({ settings: { limits: { requestsPerMinute: 100_000, concurrentPerCaller: 1000 } } })
  const connection = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!
  connectionId = connection.id
  driver = (await Effect.runPromise(Context.get(server.context, Drivers).forConnection(connection))) as SqliteDriver
})
afterAll(async () => {
  agent.destroy()
  await server.stop()
})

const newToken = async (access: "readOnly" | "readWrite" | "fullAccess" = "readOnly") =>
  (await Effect.runPromise(
    Context.get(server.context, Tokens).create({ name: `cancel ${access}`, access, connections: "all" })
  )).value
const registrySize = () => Effect.runPromise(Context.get(server.context, RequestRegistry).size)
const headersFor = (token: string, name = "execute_query") => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": name,
  authorization: `Bearer ${token}`
})
const startEndless = (token: string, id: number | string) =>
  postWithAgent(
    agent,
    server.url,
    modernRequest("tools/call", {
      name: "execute_query",
      arguments: { connection_id: connectionId, query: ENDLESS, timeout_seconds: 120 }
    }, id),
    headersFor(token)
  )
const cancel = (token: string, requestId: number | string) =>
  postMcp(server.url, {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: {
      requestId,
      reason: "test",
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
      }
    }
  }, { authorization: `Bearer ${token}` })
/** The SQLite child that is visibly running the statement (its CPU time grows), not one that may still be starting. */
const runningChild = async () => {
  expect(await eventually(async () => (await registrySize()) > 0)).toBe(true)
  return busyProcess(() => driver.childPid(), 3, "the SQLite child running the statement")
}

describe("requests in flight (wire contract §3.2)", () => {
  it("C3.2-a C3.2-f C2.7-b notifications/cancelled from the same token ends the request -33002 and kills the query", async () => {
    const token = await newToken()
    const call = startEndless(token, 11)
    const pid = await runningChild()
    const ack = await cancel(token, 11)
    expect(ack.status).toBe(202)
    expect(ack.text).toBe("")
    const answer = await call.answer
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({ id: 11, error: { code: -33002 } })
    expect(await eventually(() => !pidAlive(pid))).toBe(true)
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
  })

  it("C3.2-g C5-i another token's cancel with the same id is answered 202 and touches nothing", async () => {
    const owner = await newToken()
    const stranger = await newToken()
    const call = startEndless(owner, 12)
    const pid = await runningChild()
    let settled = false
    void call.answer.finally(() => (settled = true))
    expect((await cancel(stranger, 12)).status).toBe(202)
    // The 202 is sent after the cancel was acted on; the statement must go on: the same child keeps using CPU.
    const after = cpuTicks(pid)
    expect(after, "C3.2-g the owner's statement was stopped by another token's cancel").toBeDefined()
    const still = await busyProcess(() => pid, 10, "the owner's statement still running").catch(() => undefined)
    expect(still, "C3.2-g the owner's statement was stopped by another token's cancel").toBe(pid)
    expect(settled, "C3.2-g the owner's request was answered after another token's cancel").toBe(false)
    expect(await registrySize()).toBe(1)
    await cancel(owner, 12)
    expect((await call.answer).json.error.code).toBe(-33002)
  })

  it("C3.2-a two clients sharing one token with different ids are cancelled independently", async () => {
    const token = await newToken()
    const first = startEndless(token, "a")
    const second = startEndless(token, "b")
    expect(await eventually(async () => (await registrySize()) === 2)).toBe(true)
    await cancel(token, "a")
    expect((await first.answer).json).toMatchObject({ id: "a", error: { code: -33002 } })
    expect(await registrySize()).toBe(1)
    await runningChild()
    await cancel(token, "b")
    expect((await second.answer).json).toMatchObject({ id: "b", error: { code: -33002 } })
  })

  it("C3.2-b C5-i revoking the token cancels its running request", async () => {
    const tokens = Context.get(server.context, Tokens)
    const created = await Effect.runPromise(
      tokens.create({ name: "to revoke", access: "readOnly", connections: "all" })
    )
    const call = startEndless(created.value, 13)
    const pid = await runningChild()
    await Effect.runPromise(tokens.revoke(created.token.id))
    expect((await call.answer).json).toMatchObject({ id: 13, error: { code: -33002 } })
    expect(await eventually(() => !pidAlive(pid))).toBe(true)
    const after = await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${created.value}` })
    expect(after.json.error.code).toBe(-33009)
  })

  it("C3.2-d a client that closes its connection cancels the query: the child is gone and the registry empty", async () => {
    const token = await newToken()
    const call = startEndless(token, 14)
    const pid = await runningChild()
    call.abort()
    await call.answer.catch(() => undefined)
    expect(await eventually(() => !pidAlive(pid))).toBe(true)
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
    const next = await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: connectionId, query: "SELECT 5" }
      }),
      { authorization: `Bearer ${token}` }
    )
    expect(next.json.result.structuredContent.rows).toStrictEqual([[5]])
  })

  it("C3.2-d aborting the official 2.4.0 client's callTool with its signal cancels the query on the server", async () => {
    const client = await connectModernClient(server.url, { token: await newToken() })
    try {
      const controller = new AbortController()
      const call = client.callTool({
        name: "execute_query",
        arguments: { connection_id: connectionId, query: ENDLESS, timeout_seconds: 120 }
      }, { signal: controller.signal })
      const pid = await runningChild()
      controller.abort()
      await expect(call).rejects.toBeDefined()
      expect(await eventually(() => !pidAlive(pid))).toBe(true)
      expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
    } finally {
      await client.close()
    }
  })

  it("C3.2-a a burst of 200 requests with half of them cancelled: each gets exactly one answer and the registry ends empty", async () => {
    const token = await newToken()
    const calls = Array.from(
      { length: 200 },
      (_, index) =>
        postWithAgent(
          agent,
          server.url,
          modernRequest("tools/call", {
            name: "execute_query",
            arguments: { connection_id: connectionId, query: `SELECT ${index} AS n` }
          }, index),
          headersFor(token)
        )
    )
    await Promise.all(Array.from({ length: 100 }, (_, index) => cancel(token, index * 2)))
    const answers = await Promise.all(calls.map((call) => call.answer))
    answers.forEach((answer, index) => {
      expect(answer.status).toBe(200)
      expect(answer.json.id).toBe(index)
      const outcome = answer.json.error?.code ??
        (answer.json.result.structuredContent.rows[0][0] === index ? "ok" : "wrong")
      expect(index % 2 === 1 ? outcome === "ok" : outcome === "ok" || outcome === -33002).toBe(true)
    })
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
  })
})
