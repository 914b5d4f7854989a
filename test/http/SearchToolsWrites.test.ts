import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { connectModernClient } from "../support/McpClients.ts"
import { eventually } from "../support/RawRequests.ts"
import { SEARCH_ID, startSearchMcpServer, type SearchMcpServer } from "../support/SearchMcpServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

const HANGING_ID = "search-hanging"

/** An HTTP server that never answers, so a cancelled call shows whether dbdesk aborted its request. */
let hanging: http.Server
const hangingSockets: Array<{ closed: boolean }> = []
let fixture: SearchMcpServer
let writer: Client
beforeAll(async () => {
  hanging = http.createServer((request) => {
    const entry = { closed: false }
    hangingSockets.push(entry)
    request.socket.on("close", () => {
      entry.closed = true
    })
  })
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve))
  const port = (hanging.address() as AddressInfo).port
  fixture = await startSearchMcpServer([
    {
      id: HANGING_ID,
      name: "Hanging",
      type: "search",
      host: "127.0.0.1",
      port,
      apiKey: "k",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow"
    }
  ])
  writer = await connectModernClient(fixture.server.url, { token: await fixture.tokenFor("readWrite") })
})
afterAll(async () => {
  await writer.close()
  await fixture.stop()
  hanging.closeAllConnections()
  await new Promise((resolve) => hanging.close(resolve))
})
beforeEach(() => {
  fixture.asked.length = 0
  fixture.script.answer = "approved"
  fixture.engine.requests.length = 0
})

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<any> =>
  client.callTool({ name, arguments: args })
const errorText = (
  result: any
): string => (result.isError === true
  ? result.content[0].text
  : `not an error: ${JSON.stringify(result.structuredContent)}`)
const bookCount = async () =>
  (await call(writer, "count_rows", { connection_id: SEARCH_ID, table: "books" })).structuredContent.row_count

const IMPORT = [
  "POST /collections/books/documents/import?action=create",
  JSON.stringify({ id: "100", title: "Imported A", year: 2001, rating: 4.5, pages: 300, in_stock: true }),
  JSON.stringify({ id: "101", title: "Imported B", year: 2002, rating: 3.5, pages: 310, in_stock: false })
].join("\n")

describe("search-engine writes through MCP (D-22, D-26)", () => {
  it("S1-a an import through execute_query waits for the app dialog, which shows the method, path and body, and imports after approval", async () => {
    const before = await bookCount()
    const result = await call(writer, "execute_query", { connection_id: SEARCH_ID, query: IMPORT })
    expect(errorText(result)).toBe(`not an error: ${JSON.stringify(result.structuredContent)}`)
    expect(fixture.asked).toHaveLength(1)
    expect(fixture.asked[0]).toMatchObject({ kind: "statement", statement: IMPORT, connectionName: "Books search" })
    expect(fixture.asked[0]!.message).toBe("Allow POST on 'Books search'?")
    expect(await bookCount()).toBe(before + 2)
  })

  it("S1-a a refused dialog is denied and sends nothing; a readOnly token may not write at all", async () => {
    fixture.script.answer = "denied"
    const refused = await call(writer, "execute_query", {
      connection_id: SEARCH_ID,
      query: IMPORT.replaceAll("\"10", "\"20")
    })
    expect(errorText(refused)).toBe("denied: the user did not approve this operation")
    expect(fixture.engine.requests.filter((request) => request.method === "POST")).toHaveLength(0)
    const reader = await fixture.tokenFor("readOnly")
    const raw = await postMcp(
      fixture.server.url,
      modernRequest("tools/call", { name: "execute_query", arguments: { connection_id: SEARCH_ID, query: IMPORT } }),
      { authorization: `Bearer ${reader}` }
    )
    expect(raw.json.error.code).toBe(-33007)
    expect(fixture.engine.requests.filter((request) => request.method === "POST")).toHaveLength(0)
  })

  it("S1-a insert_rows sends one import call after approval and reports the rows the engine refused", async () => {
    const columns = ["id", "title", "year", "rating", "pages", "in_stock"]
    const rows = [["300", "Good", 2010, 4, 200, true], ["301", "Decimal year", 2010.5, 4, 200, true], [
      "0",
      "Duplicate id",
      2011,
      4,
      200,
      true
    ]]
    const result = await call(writer, "insert_rows", { connection_id: SEARCH_ID, table: "books", columns, rows })
    expect(result.structuredContent.rows_affected).toBe(1)
    expect(result.structuredContent.failed_rows.map((row: any) => row.index)).toEqual([1, 2])
    expect(result.structuredContent.failed_rows[0].error).toMatch(/year/)
    expect(result.structuredContent.failed_rows[1].error).toMatch(/already exists/)
    expect(fixture.engine.requests.filter((request) => request.path.includes("/documents/import"))).toHaveLength(1)
    expect(fixture.asked).toHaveLength(1)
    expect(fixture.asked[0]?.statement?.split("\n")[0]).toBe("POST /collections/books/documents/import?action=create")
    expect(fixture.asked[0]!.statement).toContain("\"title\":\"Decimal year\"")
  })

  it("S1-a interrupting a call aborts its HTTP request to the engine", async () => {
    const controller = new AbortController()
    const pending = writer.callTool({
      name: "execute_query",
      arguments: { connection_id: HANGING_ID, query: "GET /collections" }
    }, { signal: controller.signal }).catch((error) => error)
    expect(await eventually(async () => hangingSockets.length === 1)).toBe(true)
    expect(hangingSockets[0]!.closed).toBe(false)
    controller.abort()
    await pending
    expect(await eventually(async () => hangingSockets[0]!.closed)).toBe(true)
  })

  it("S1-a dbdesk's statement deadline ends a search request with -33003 and aborts it", async () => {
    const before = hangingSockets.length
    const token = await fixture.tokenFor("readOnly")
    const raw = await postMcp(
      fixture.server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: HANGING_ID, query: "GET /collections", timeout_seconds: 1 }
      }),
      { authorization: `Bearer ${token}` }
    )
    expect(raw.json.error).toMatchObject({ code: -33003, data: { deadline: "statement", seconds: 1 } })
    expect(hangingSockets).toHaveLength(before + 1)
    expect(await eventually(async () => hangingSockets[before]!.closed)).toBe(true)
  })

  it("S1-a DELETE /collections/books is refused by execute_query with the pointer and runs through confirm_destructive_operation on fullAccess after consent", async () => {
    const refused = await call(writer, "execute_query", {
      connection_id: SEARCH_ID,
      query: "DELETE /collections/books"
    })
    expect(errorText(refused)).toBe("denied: this statement drops or truncates data; use confirm_destructive_operation")
    expect(fixture.engine.requests.filter((request) => request.method === "DELETE")).toHaveLength(0)
    const seen: Array<any> = []
    const admin = new Client({ name: "search-admin", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      capabilities: { elicitation: { form: {} } }
    })
    admin.setRequestHandler("elicitation/create", async (request: any) => {
      seen.push(request.params)
      return { action: "accept", content: { approved: true } }
    })
    await admin.connect(
      new StreamableHTTPClientTransport(new URL(fixture.server.url), {
        requestInit: { headers: { authorization: `Bearer ${await fixture.tokenFor("fullAccess")}` } }
      })
    )
    try {
      const notDestructive = await call(admin, "confirm_destructive_operation", {
        connection_id: SEARCH_ID,
        query: "GET /collections"
      })
      expect(errorText(notDestructive)).toBe("invalid_argument: this statement is not destructive: use execute_query")
      const result = await call(admin, "confirm_destructive_operation", {
        connection_id: SEARCH_ID,
        query: "DELETE /collections/books"
      })
      expect(result.isError).toBe(false)
      expect(seen).toHaveLength(1)
      expect(seen[0].message).toBe(
        "Allow DELETE on 'Books search'? This destroys data and cannot be undone.\n\nNo preview: a change to a collection itself (its schema or the collection) is not dry-run."
      )
      expect(seen[0].requestedSchema.properties.approved.description).toContain("DELETE /collections/books")
      expect(fixture.asked).toHaveLength(0)
      expect(fixture.engine.requests.filter((request) => request.method === "DELETE").map((request) => request.path))
        .toEqual(["/collections/books"])
      expect((await call(admin, "list_tables", { connection_id: SEARCH_ID })).structuredContent).toEqual({ tables: [] })
    } finally {
      await admin.close()
    }
  })
})
