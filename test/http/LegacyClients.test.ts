import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client"
import { Client as Client1125 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as Transport1125 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Client as Client0618 } from "mcp-sdk-2025-06-18/client/index.js"
import { StreamableHTTPClientTransport as Transport0618 } from "mcp-sdk-2025-06-18/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
})
afterAll(() => server.stop())

interface Seen {
  readonly httpMethod: string
  readonly rpcMethod: string | undefined
  readonly requestHeaders: Headers
  readonly status: number
  readonly sessionIdAnswered: string | null
}

/** Wraps the fetch a transport uses so the test sees every request the server received and its status. */
const recordingFetch = (seen: Array<Seen>) => async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const response = await fetch(url, init)
  let rpcMethod: string | undefined
  try {
    rpcMethod = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }).method : undefined
  } catch {
    rpcMethod = undefined
  }
  seen.push({
    httpMethod: init?.method ?? "GET",
    rpcMethod,
    requestHeaders: new Headers(init?.headers),
    status: response.status,
    sessionIdAnswered: response.headers.get("mcp-session-id")
  })
  return response
}

const legacyClients = [
  {
    revision: "2025-11-25",
    connect: async (url: string, seen: Array<Seen>) => {
      const client = new Client1125({ name: "dbdesk-legacy-1125", version: "1.0.0" })
      const transport = new Transport1125(new URL(url), { fetch: recordingFetch(seen) })
      await client.connect(transport)
      return { client, transport }
    }
  },
  {
    revision: "2025-06-18",
    connect: async (url: string, seen: Array<Seen>) => {
      const client = new Client0618({ name: "dbdesk-legacy-0618", version: "1.0.0" })
      const transport = new Transport0618(new URL(url), { fetch: recordingFetch(seen) })
      // 1.22's transport predates exactOptionalPropertyTypes-clean typings; it is the same object at runtime.
      await client.connect(transport as unknown as Parameters<typeof client.connect>[0])
      return { client, transport }
    }
  }
] as const

describe.each(legacyClients)("the official $revision client (legacy era)", ({ revision, connect }) => {
  it(`C3.3-a C3.3-c C1-d C6-c the ${revision} client initialises, lists and calls read tools, reports progress and closes cleanly`, async () => {
    const seen: Array<Seen> = []
    const { client, transport } = await connect(server.url, seen)
    try {
      expect(transport.sessionId).toMatch(/^[\x21-\x7E]+$/)
      expect(transport.protocolVersion).toBe(revision)
      expect(client.getServerVersion()).toMatchObject({ name: "dbdesk", title: "dbdesk" })
      expect(client.getServerCapabilities()?.resources).toStrictEqual({ subscribe: false, listChanged: true })
      expect(client.getInstructions()).toContain("list_connections")

      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["list_connections", "describe_table", "execute_query"])
      )

      const listed: any = await client.callTool({ name: "list_connections", arguments: {} })
      expect(listed.isError).toBe(false)
      const connectionId = listed.structuredContent.connections[0].id
      expect(listed).not.toHaveProperty("resultType")

      const queried: any = await client.callTool({
        name: "execute_query",
        arguments: { connection_id: connectionId, query: "SELECT count(*) AS n FROM products" }
      })
      expect(queried.structuredContent).toMatchObject({ columns: ["n"], rows: [[60]], row_count: 1 })

      const updates: Array<number> = []
      const withProgress: any = await client.callTool(
        { name: "execute_query", arguments: { connection_id: connectionId, query: "SELECT 1 AS one" } },
        undefined,
        { onprogress: (progress) => updates.push(progress.progress) }
      )
      expect(updates).toEqual([0, 0.3, 1])
      expect(withProgress.structuredContent.rows).toEqual([[1]])

      expect(await client.ping()).toStrictEqual({})
      expect(await client.setLoggingLevel("info")).toStrictEqual({})
    } finally {
      await client.close()
    }
    const posts = seen.filter((entry) => entry.httpMethod === "POST")
    expect(posts[0]!.rpcMethod).toBe("initialize")
    expect(posts[0]!.sessionIdAnswered).toBe(transport.sessionId)
    for (const entry of posts.slice(1)) {
      expect(entry.requestHeaders.get("mcp-session-id")).toBe(transport.sessionId)
      expect(entry.status === 200 || entry.status === 202).toBe(true)
    }
    // The client's one standalone GET stream is refused with 405, which the SDK accepts (C4.3-d).
    expect(seen.filter((entry) => entry.httpMethod === "GET").map((entry) => entry.status)).toEqual([405])
  })
})

describe("the official 2.4.0 client in its default legacy mode", () => {
  it("C3.3-a C3.3-c C4.3-d mode legacy initialises with 2025-11-25, keeps its session id and gets 405 for its one GET", async () => {
    const seen: Array<Seen> = []
    const client = new ModernClient({ name: "dbdesk-2.4-legacy", version: "1.0.0" }, {
      versionNegotiation: { mode: "legacy" }
    })
    const transport = new ModernTransport(new URL(server.url), { fetch: recordingFetch(seen) })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("execute_query")
    } finally {
      await client.close()
    }
    const posts = seen.filter((entry) => entry.httpMethod === "POST")
    expect(posts[0]!.rpcMethod).toBe("initialize")
    const sessionId = posts[0]!.sessionIdAnswered
    expect(sessionId).not.toBeNull()
    expect(posts.find((entry) => entry.rpcMethod === "tools/list")!.requestHeaders.get("mcp-session-id")).toBe(
      sessionId
    )
    expect(posts.every((entry) => entry.rpcMethod !== "server/discover")).toBe(true)
    expect(seen.filter((entry) => entry.httpMethod === "GET").map((entry) => entry.status)).toEqual([405])
  })
})

describe("the official 2.4.0 client in auto mode", () => {
  it("C1-d C4.3-d C9-c versionNegotiation auto picks the modern era: discover first, no initialize, no session id", async () => {
    const seen: Array<Seen> = []
    const client = new ModernClient({ name: "dbdesk-auto", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } })
    await client.connect(new ModernTransport(new URL(server.url), { fetch: recordingFetch(seen) }))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("list_connections")
      const listed: any = await client.callTool({ name: "list_connections", arguments: {} })
      expect(listed.isError).toBe(false)
    } finally {
      await client.close()
    }
    const methods = seen.map((entry) => entry.rpcMethod)
    expect(methods[0]).toBe("server/discover")
    expect(methods).toContain("tools/list")
    expect(methods).toContain("tools/call")
    expect(methods).not.toContain("initialize")
    for (const entry of seen.filter((entry) => entry.rpcMethod !== undefined)) {
      expect(entry.requestHeaders.get("mcp-protocol-version")).toBe("2026-07-28")
      expect(entry.requestHeaders.get("mcp-session-id")).toBeNull()
      expect(entry.sessionIdAnswered).toBeNull()
      expect(entry.status).toBe(200)
    }
  })
})
