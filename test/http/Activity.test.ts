import { Context, Effect } from "effect"
import { createHash } from "node:crypto"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ActivityEntry } from "../../src/domain/Activity.ts"
import { verifyActivityFile } from "../../src/cli/handlers/Activity.ts"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { ConnectedClients } from "../../src/services/ConnectedClients.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
const run = <A, E>(effect: Effect.Effect<A, E, ActivityLog | ConnectedClients>) =>
  Effect.runPromise(Effect.provide(effect, server.context as Context.Context<ActivityLog | ConnectedClients>))
const rows = (filter: { category?: ActivityEntry["category"]; tokenId?: string; limit?: number } = {}) =>
  run(Effect.flatMap(ActivityLog, (log) => Effect.zipRight(log.flush, log.list({ limit: 10_000, ...filter })))).then((
    list
  ) => [...list].reverse())

const callTool = (
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
  id: number | string = 1
) =>
  postMcp(server.url, modernRequest("tools/call", { name, arguments: args, _meta: meta }, id), {
    authorization: `Bearer ${server.token}`
  })

beforeAll(async () => {
  server = await startTestServer({
    token: "readWrite",
    settings: { limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64 } }
  })
})
afterAll(() => server.stop())

describe("activity log over the real server (D-51)", () => {
  it("C2.2-f trace context sent by a client appears unchanged in its activity row", async () => {
    const trace = {
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7",
      baggage: "userId=alice,serverNode=DF%2028 ;prop=1"
    }
    const response = await callTool(
      "execute_query",
      { connection_id: await sampleId(), query: "SELECT 42 AS answer" },
      trace,
      "trace-1"
    )
    expect(response.json.result.isError).toBe(false)
    const row = (await rows({ category: "tool" })).at(-1)!
    expect(row).toMatchObject({
      ...trace,
      subject: "execute_query",
      outcome: "success",
      connectionId: await sampleId()
    })
    // D-51: the statement is kept as its SHA-256 only.
    expect(row.digest).toBe(createHash("sha256").update("SELECT 42 AS answer").digest("hex"))
    expect(JSON.stringify(await rows())).not.toContain("SELECT 42")
    expect(JSON.stringify(await rows())).not.toContain(server.token)
  })

  it("C2.2-d clientInfo is shown in the activity log and the connected-clients list; disconnect revokes the token", async () => {
    const { value } = await Effect.runPromise(
      Effect.flatMap(
        Tokens,
        (tokens) => tokens.create({ name: "disconnect me", access: "readOnly", connections: "all" })
      ).pipe(
        Effect.provide(server.context as Context.Context<Tokens>)
      )
    )
    const client = await connectModernClient(server.url, { token: value })
    await client.callTool({ name: "list_connections", arguments: {} })
    const toolRow = (await rows({ category: "tool" })).at(-1)!
    expect(toolRow).toMatchObject({
      clientName: "dbdesk-tests",
      clientVersion: "1.0.0",
      subject: "list_connections",
      outcome: "success"
    })
    expect(
      (await rows({ category: "auth" })).some((row) =>
        row.action === "auth.success" && row.clientName === "dbdesk-tests"
      )
    ).toBe(true)
    const listed = await run(Effect.flatMap(ConnectedClients, (clients) => clients.list))
    const entry = listed.find((candidate) => candidate.clientName === "dbdesk-tests")!
    expect(entry).toMatchObject({ clientVersion: "1.0.0", address: "127.0.0.1", tokenName: "disconnect me" })
    expect(Date.parse(entry.firstSeenAt)).toBeLessThanOrEqual(Date.parse(entry.lastSeenAt))
    await run(Effect.flatMap(ConnectedClients, (clients) => clients.disconnect(entry.id)))
    const after = await postMcp(server.url, modernRequest("tools/call", { name: "list_connections", arguments: {} }), {
      authorization: `Bearer ${value}`
    })
    expect([after.status, after.json.error.code]).toEqual([401, -33009])
    expect(
      (await run(Effect.flatMap(ConnectedClients, (clients) => clients.list))).some((candidate) =>
        candidate.id === entry.id
      )
    ).toBe(false)
    expect(
      (await rows({ category: "token" })).some((row) =>
        row.action === "token.revoked" && row.tokenName === "disconnect me"
      )
    ).toBe(true)
    await client.close()
  })

  it("PD6 1,000 tool calls write 1,000 tool rows in order with a valid chain; writes stay off the request path", async () => {
    const before = (await rows({ category: "tool" })).length
    const batchesBefore = (await run(Effect.flatMap(ActivityLog, (log) => log.batches))).length
    const started = performance.now()
    // 8 concurrent lanes of 125 sequential calls; each call's position is in its trace id.
    const lanes = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = 0; i < 125; i++) {
        const n = lane * 125 + i
        const response = await callTool("list_connections", {}, {
          traceparent: `00-${n.toString(16).padStart(32, "0")}-00f067aa0ba902b7-01`
        }, n)
        if (response.status !== 200) throw new Error(`call ${n} answered ${response.status}`)
      }
    })
    await Promise.all(lanes)
    const elapsed = performance.now() - started
    const tool = (await rows({ category: "tool" })).slice(before)
    expect(tool.length).toBe(1000)
    expect(new Set(tool.map((row) => row.traceparent)).size).toBe(1000)
    // Within each lane calls are sequential, so their rows must appear in call order.
    for (let lane = 0; lane < 8; lane++) {
      const positions = tool.map((row) => Number.parseInt(row.traceparent!.slice(3, 35), 16)).filter((n) =>
        Math.floor(n / 125) === lane
      )
      expect(positions).toEqual([...positions].sort((a, b) => a - b))
    }
    const seqs = tool.map((row) => row.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    await run(Effect.flatMap(ActivityLog, (log) => log.flush))
    expect(await Effect.runPromise(verifyActivityFile(join(server.home, "activity.db")))).toMatchObject({ ok: true })
    const batches = (await run(Effect.flatMap(ActivityLog, (log) => log.batches))).slice(batchesBefore)
    const writeMs = batches.reduce((total, batch) => total + batch.writeMs, 0)
    const sizes = batches.map((batch) => batch.rows)
    console.info(
      `activity batches for 1,000 calls (+auth rows): ${batches.length} batches, sizes min ${Math.min(...sizes)} max ${
        Math.max(...sizes)
      } mean ${(sizes.reduce((a, b) => a + b, 0) / sizes.length).toFixed(1)}; SQLite write time ${
        writeMs.toFixed(1)
      } ms of ${elapsed.toFixed(0)} ms wall`
    )
    expect(batches.length).toBeLessThan(1000)
    expect(writeMs).toBeLessThan(elapsed / 4)
  })
})

let sampleConnection: string | undefined
const sampleId = async () => {
  if (sampleConnection !== undefined) return sampleConnection
  const response = await callTool("list_connections", {})
  sampleConnection = response.json.result.structuredContent.connections[0].id as string
  return sampleConnection
}
