// D-94 on a search-engine connection: the engine answers a request whole, so while it is awaited execute_query and
// count_rows tell the seconds waited, between the contract's 0.3 and 1, through the official client's onprogress. A
// loopback proxy stalls the engine's response so the wait is long; the deadline then ends the call.
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SettingsStore } from "../../src/services/Settings.ts"
import { type FaultProxy, startFaultProxy } from "../support/FaultProxy.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { type SearchMcpServer, startSearchMcpServer } from "../support/SearchMcpServer.ts"

const PROXIED = { id: "search-proxied", name: "Proxied search" }

let fixture: SearchMcpServer
let proxy: FaultProxy
let client: Client

beforeAll(async () => {
  proxy = await startFaultProxy(0)
  fixture = await startSearchMcpServer([{
    type: "search",
    id: PROXIED.id,
    name: PROXIED.name,
    host: "127.0.0.1",
    port: proxy.port,
    apiKey: "bootstrap-key"
  }])
  proxy.retarget(fixture.engine.port)
  client = await connectModernClient(fixture.server.url, { token: await fixture.tokenFor("readOnly") })
}, 120_000)
afterAll(async () => {
  await client?.close()
  await proxy?.close()
  await fixture?.stop()
})

interface Update {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** The updates of a call whose engine response stalls until the 2 s deadline ends it. */
const stalledProgress = async (name: string, args: Record<string, unknown>, doing: string) => {
  // A first call opens the session, so the stall hits the call's own request.
  const healthy: any = await client.callTool({
    name: "count_rows",
    arguments: { connection_id: PROXIED.id, table: "books" }
  })
  expect(healthy.structuredContent, JSON.stringify(healthy.content)).toMatchObject({ row_count: 30 })
  proxy.breakAfter(1, "stall")
  const seen: Array<Update> = []
  const failure = await client.callTool({ name, arguments: { connection_id: PROXIED.id, ...args } }, {
    onprogress: (update) => seen.push(update),
    timeout: 30_000
  })
    .then((result) => result, (error: unknown) => error)
  expect(failure).toMatchObject({ code: -33003 })
  const values = seen.map((update) => update.progress)
  expect(values).toStrictEqual([...values].sort((a, b) => a - b))
  expect(new Set(values).size).toBe(values.length)
  expect(seen.every((update) => update.total === 1)).toBe(true)
  expect(values.slice(0, 2)).toStrictEqual([0, 0.3])
  const seconds = seen.slice(2).map((update) => {
    const match = new RegExp(`^${doing}, (\\d+\\.\\d) s$`).exec(update.message ?? "")
    expect(match, update.message).not.toBeNull()
    expect(update.progress).toBeGreaterThan(0.3)
    expect(update.progress).toBeLessThan(1)
    return Number(match![1])
  })
  expect(seconds.length).toBeGreaterThanOrEqual(2)
  expect(seconds).toStrictEqual([...seconds].sort((a, b) => a - b))
}

describe("D-94 progress while the search engine answers (official client)", () => {
  it("D-94: execute_query tells the seconds it has waited for the engine, increasing, between 0.3 and 1", async () => {
    await stalledProgress("execute_query", {
      query: "GET /collections/books/documents/search?q=*&per_page=30",
      timeout_seconds: 2
    }, "waiting for the engine")
  }, 60_000)

  it("D-94: count_rows tells the seconds it has counted, increasing, between 0.3 and 1", async () => {
    const store = Context.get(fixture.server.context, SettingsStore)
    await Effect.runPromise(store.update({ limits: { queryTimeoutSeconds: 2 } }))
    try {
      await stalledProgress("count_rows", { table: "books" }, "counting")
    } finally {
      await Effect.runPromise(store.update({ limits: { queryTimeoutSeconds: 30 } }))
    }
  }, 60_000)
})
