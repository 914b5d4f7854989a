import { Client as ModernClient } from "@modelcontextprotocol/client"
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio"
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import type { SqliteDriver } from "../../src/services/drivers/SqliteDriver.ts"
import { RequestRegistry } from "../../src/services/RequestRegistry.ts"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { eventually, pidAlive } from "../support/RawRequests.ts"
import { DBDESK, DBDESK_MCP } from "./BridgeHarness.ts"

const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

/** The calls both official clients make, whatever their own method signatures. */
interface StdioSession {
  readonly listTools: () => Promise<any>
  readonly callTool: (params: { name: string; arguments: Record<string, unknown> }, options?: { signal?: AbortSignal; onprogress?: (progress: any) => void }) => Promise<any>
  readonly close: () => Promise<void>
}

let server: ApprovalServer
let driver: SqliteDriver
beforeAll(async () => {
  server = await startApprovalServer()
  const connection = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!
  driver = (await Effect.runPromise(Context.get(server.context, Drivers).forConnection(connection))) as SqliteDriver
})
afterAll(() => server.stop())
beforeEach(() => {
  server.asked.length = 0
  server.script = () => "approved"
})

const bridgeEnv = () => ({ ...process.env, DBDESK_HOME: server.home }) as Record<string, string>
const registrySize = () => Effect.runPromise(Context.get(server.context, RequestRegistry).size)

const clients = [
  {
    era: "legacy 2025-11-25 (@modelcontextprotocol/sdk 1.32, dbdesk bridge)",
    productId: 31,
    connect: async (): Promise<StdioSession> => {
      const client = new LegacyClient({ name: "bridge-legacy-host", version: "1.0.0" })
      await client.connect(new LegacyStdio({ command: process.execPath, args: [DBDESK, "bridge"], env: bridgeEnv(), stderr: "ignore" }))
      return {
        listTools: () => client.listTools(),
        callTool: (params, options) => client.callTool(params, undefined, options),
        close: () => client.close()
      }
    }
  },
  {
    era: "modern 2026-07-28 (@modelcontextprotocol/client 2.4.0, dbdesk-mcp)",
    productId: 32,
    connect: async (): Promise<StdioSession> => {
      const client = new ModernClient({ name: "bridge-modern-host", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
      await client.connect(new ModernStdio({ command: process.execPath, args: [DBDESK_MCP], env: bridgeEnv(), stderr: "ignore" }))
      return {
        listTools: () => client.listTools(),
        callTool: (params, options) => client.callTool(params, options),
        close: () => client.close()
      }
    }
  }
] as const

describe.each(clients)("the official $era client over the stdio bridge", ({ connect, era, productId }) => {
  let session: StdioSession
  beforeAll(async () => {
    session = await connect()
  })
  afterAll(() => session.close())
  const legacy = era.startsWith("legacy")

  it("C1-c lists the tools through the bridge", async () => {
    const listed = await session.listTools()
    const names = listed.tools.map((tool: { name: string }) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["list_connections", "describe_table", "execute_query", "insert_rows"]))
    // The bridge token is readWrite (product-decisions §4): no admin scope, so no confirm_destructive_operation.
    expect(names).not.toContain("confirm_destructive_operation")
    if (legacy) {
      expect(listed).not.toHaveProperty("resultType")
      expect(listed).not.toHaveProperty("ttlMs")
      expect(listed).not.toHaveProperty("cacheScope")
    }
  })

  it("C1-c execute_query with progress: each SSE frame reaches the host as its own message", async () => {
    const progress: Array<any> = []
    const result = await session.callTool(
      { name: "execute_query", arguments: { connection_id: server.connectionId, query: "SELECT count(*) AS n FROM products" } },
      { onprogress: (update) => progress.push(update) }
    )
    expect(result.isError).toBe(false)
    expect(result.structuredContent.rows).toHaveLength(1)
    expect(progress.map((update) => update.progress)).toEqual([0, 0.3, 1])
    expect(progress.map((update) => update.message)).toEqual(["Resolving connection", "Executing", "Done"])
    if (legacy) {
      expect(result).not.toHaveProperty("resultType")
      expect(result._meta?.["io.modelcontextprotocol/serverInfo"]).toBeUndefined()
    }
  })

  it("C1-c a write waits for the app's scripted dialog and runs once approved", async () => {
    const name = `Bridge ${productId}`
    const result = await session.callTool({
      name: "execute_query",
      arguments: { connection_id: server.connectionId, query: `UPDATE products SET name = '${name}' WHERE id = ${productId}` }
    })
    expect(result.isError).toBe(false)
    expect(server.asked).toHaveLength(1)
    expect(server.asked[0]).toMatchObject({ kind: "statement" })
    expect(server.rows(`SELECT name FROM products WHERE id = ${productId}`)[0]?.name).toBe(name)
  })

  it("C1-c aborting a long query sends notifications/cancelled through the bridge and the query stops", async () => {
    const controller = new AbortController()
    const call = session.callTool(
      { name: "execute_query", arguments: { connection_id: server.connectionId, query: ENDLESS, timeout_seconds: 300 } },
      { signal: controller.signal }
    ).then(() => "answered", () => "rejected")
    expect(await eventually(async () => (await registrySize()) > 0 && driver.childPid() !== undefined)).toBe(true)
    const pid = driver.childPid()!
    controller.abort("the user stopped it")
    expect(await call).toBe("rejected")
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
    expect(await eventually(() => !pidAlive(pid))).toBe(true)
    const after = await session.callTool({ name: "execute_query", arguments: { connection_id: server.connectionId, query: "SELECT 1 AS one" } })
    expect(after.structuredContent.rows).toEqual([[1]])
  })
})
