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
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { eventually, pidAlive } from "../support/RawRequests.ts"
import { DBDESK, DBDESK_MCP } from "./BridgeHarness.ts"

const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

/** The calls both official clients make, whatever their own method signatures. */
interface StdioSession {
  readonly listTools: () => Promise<any>
  readonly callTool: (
    params: { name: string; arguments: Record<string, unknown> },
    options?: { signal?: AbortSignal; onprogress?: (progress: any) => void }
  ) => Promise<any>
  readonly close: () => Promise<void>
  /** `subscriptions/listen` through the official client's own listen(); undefined for a client that has none. */
  readonly listen?: (filter: Record<string, unknown>) => Promise<{ honoredFilter: unknown; close: () => Promise<void> }>
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
const openSubscriptions = () => Effect.runPromise(Context.get(server.context, Subscriptions).count)

/** The official 2.4.0 client in one era (pinned to 2026-07-28, or its 2025 mode), on the `dbdesk-mcp` binary. */
const connectPinned = async (era: "modern" | "legacy", name: string): Promise<StdioSession> => {
  const client = new ModernClient({ name, version: "1.0.0" }, {
    versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" }
  })
  await client.connect(
    new ModernStdio({ command: process.execPath, args: [DBDESK_MCP], env: bridgeEnv(), stderr: "ignore" })
  )
  return {
    listTools: () => client.listTools(),
    callTool: (params, options) => client.callTool(params, options),
    close: () => client.close(),
    listen: (filter) => client.listen(filter)
  }
}

const clients = [
  {
    era: "legacy 2025-11-25 (@modelcontextprotocol/sdk 1.32, dbdesk bridge)",
    productId: 31,
    connect: async (): Promise<StdioSession> => {
      const client = new LegacyClient({ name: "bridge-legacy-host", version: "1.0.0" })
      await client.connect(
        new LegacyStdio({ command: process.execPath, args: [DBDESK, "bridge"], env: bridgeEnv(), stderr: "ignore" })
      )
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
    connect: () => connectPinned("modern", "bridge-modern-host")
  },
  {
    era: "legacy 2025-11-25 (@modelcontextprotocol/client 2.4.0, dbdesk-mcp)",
    productId: 33,
    connect: () => connectPinned("legacy", "bridge-legacy-host-2")
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
    expect(names).toEqual(
      expect.arrayContaining(["list_connections", "describe_table", "execute_query", "insert_rows"])
    )
    // The bridge token is readWrite (D-32): no admin scope, so no confirm_destructive_operation.
    expect(names).not.toContain("confirm_destructive_operation")
    if (legacy) {
      expect(listed).not.toHaveProperty("resultType")
      expect(listed).not.toHaveProperty("ttlMs")
      expect(listed).not.toHaveProperty("cacheScope")
    }
  })

  it("C1-c subscriptions/listen: the official client's listen() is acknowledged, and close() ends the subscription on the server", async () => {
    if (legacy) {
      // A 2025-era connection has no listen (the client refuses it itself); the legacy host reads list changes otherwise.
      if (session.listen !== undefined) {
        await expect(session.listen({ resourcesListChanged: true })).rejects.toThrow(/2026-07-28/)
      }
      return
    }
    const subscription = await session.listen!({ resourcesListChanged: true })
    expect(subscription.honoredFilter).toStrictEqual({ resourcesListChanged: true })
    expect(await openSubscriptions()).toBe(1)
    await subscription.close()
    expect(await eventually(async () => (await openSubscriptions()) === 0)).toBe(true)
  })

  it("C1-c execute_query with progress: each SSE frame reaches the host as its own message", async () => {
    const progress: Array<any> = []
    const result = await session.callTool(
      {
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "SELECT count(*) AS n FROM products" }
      },
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
      arguments: {
        connection_id: server.connectionId,
        query: `UPDATE products SET name = '${name}' WHERE id = ${productId}`
      }
    })
    expect(result.isError).toBe(false)
    expect(server.asked).toHaveLength(1)
    expect(server.asked[0]).toMatchObject({ kind: "statement" })
    expect(server.rows(`SELECT name FROM products WHERE id = ${productId}`)[0]?.name).toBe(name)
  })

  it("C1-c aborting a long query sends notifications/cancelled through the bridge and the query stops", async () => {
    const controller = new AbortController()
    const call = session.callTool(
      {
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: ENDLESS, timeout_seconds: 300 }
      },
      { signal: controller.signal }
    ).then(() => "answered", () => "rejected")
    expect(await eventually(async () => (await registrySize()) > 0 && driver.childPid() !== undefined)).toBe(true)
    const pid = driver.childPid()!
    controller.abort("the user stopped it")
    expect(await call).toBe("rejected")
    expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
    expect(await eventually(() => !pidAlive(pid))).toBe(true)
    const after = await session.callTool({
      name: "execute_query",
      arguments: { connection_id: server.connectionId, query: "SELECT 1 AS one" }
    })
    expect(after.structuredContent.rows).toEqual([[1]])
  })
})
