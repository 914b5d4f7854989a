import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { searchesOf } from "../search/EngineHelpers.ts"
import { connectModernClient } from "../support/McpClients.ts"
import {
  SEARCH_ID,
  startSearchMcpServer,
  UNREACHABLE_ID,
  WRONG_KEY_ID,
  type SearchMcpServer
} from "../support/SearchMcpServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

let fixture: SearchMcpServer
let client: Client
let token: string
beforeAll(async () => {
  fixture = await startSearchMcpServer()
  token = await fixture.tokenFor("readOnly")
  client = await connectModernClient(fixture.server.url, { token })
})
afterAll(async () => {
  await client.close()
  await fixture.stop()
})

const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
  client.callTool({ name, arguments: args })
const errorText = (
  result: any
): string => (result.isError === true
  ? result.content[0].text
  : `not an error: ${JSON.stringify(result.structuredContent)}`)

describe("the read tools on a search-engine connection, with the official 2.4.0 client", () => {
  it("S1-b S1-a a saved search connection enables the search driver on its first use, and collections are tables with num_documents", async () => {
    expect((await Effect.runPromise(fixture.registry.list)).find((driver) => driver.type === "search")?.state).toBe(
      "available"
    )
    const listed = await call("list_tables", { connection_id: SEARCH_ID, include_row_counts: true })
    expect(listed.structuredContent).toEqual({ tables: [{ name: "books", type: "table", row_count: 30 }] })
    expect((await Effect.runPromise(fixture.registry.list)).find((driver) => driver.type === "search")?.state).toBe(
      "enabled"
    )
  })

  it("S1-c list_databases answers unsupported and points at list_tables", async () => {
    const result = await call("list_databases", { connection_id: SEARCH_ID })
    expect(errorText(result)).toMatch(/^unsupported: .*list_tables/)
  })

  it("S1-a describe_table puts id first as the primary key, marks sortable fields from the schema and returns the schema as ddl", async () => {
    const result = await call("describe_table", { connection_id: SEARCH_ID, table: "books" })
    const described = result.structuredContent
    expect(described.columns[0]).toEqual({
      name: "id",
      data_type: "string",
      is_nullable: false,
      is_primary_key: true,
      is_sortable: false
    })
    const sortable = Object.fromEntries(described.columns.map((column: any) => [column.name, column.is_sortable]))
    expect(sortable).toMatchObject({
      title: false,
      year: true,
      rating: true,
      in_stock: true,
      tags: false,
      author: true
    })
    expect(JSON.parse(described.ddl).name).toBe("books")
    const ddl = await call("get_table_ddl", { connection_id: SEARCH_ID, table: "books" })
    expect(JSON.parse(ddl.structuredContent.ddl)).toEqual(JSON.parse(described.ddl))
  })

  it("S1-a browse_table uses the grid's filter compiler and sort rules and names the dropped sort; count_rows counts exactly", async () => {
    fixture.engine.requests.length = 0
    const result = await call("browse_table", {
      connection_id: SEARCH_ID,
      table: "books",
      columns: ["id", "year"],
      filters: [{ column: "year", operator: "between", value: 1905, second_value: 1920 }, {
        column: "tags",
        operator: "in",
        value: ["classic"]
      }],
      sort: [{ column: "title", direction: "asc" }, { column: "year", direction: "asc" }],
      limit: 3
    })
    expect(result.structuredContent).toMatchObject({
      columns: ["id", "year"],
      rows: [["6", 1906], ["9", 1909], ["12", 1912]],
      row_count: 3,
      is_truncated: true
    })
    expect(result.structuredContent.status_message).toMatch(/^not sorted by title/)
    const search = fixture.engine.requests.find((request) => request.path.startsWith("/multi_search"))
    expect(searchesOf(search?.body ?? "")[0]).toMatchObject({
      filter_by: "(year:[1905..1920]) && (tags:=[`classic`])",
      sort_by: "year:asc"
    })
    const counted = await call("count_rows", {
      connection_id: SEARCH_ID,
      table: "books",
      filters: [{ column: "in_stock", operator: "=", value: true }]
    })
    expect(counted.structuredContent).toEqual({ row_count: 15, is_approximate: false })
    const refused = await call("browse_table", {
      connection_id: SEARCH_ID,
      table: "books",
      filters: [{ column: "author", operator: "is_null" }]
    })
    expect(errorText(refused)).toMatch(/^invalid_argument: /)
  })

  it("S1-a search_documents returns found, the documents as hits and search_time_ms; per_page above 250 is refused", async () => {
    const result = await call("search_documents", {
      connection_id: SEARCH_ID,
      collection: "books",
      q: "Book 1",
      query_by: "title",
      filter_by: "year:<1915",
      sort_by: "year:desc",
      per_page: 2
    })
    expect(result.structuredContent.found).toBe(6)
    expect(result.structuredContent.hits.map((hit: any) => hit.id)).toEqual(["14", "13"])
    expect(result.structuredContent.hits[0]).toMatchObject({ title: "Book 14", year: 1914 })
    expect(typeof result.structuredContent.search_time_ms).toBe("number")
    expect(
      errorText(
        await call("search_documents", { connection_id: SEARCH_ID, collection: "books", q: "*", per_page: 251 })
      )
    ).toMatch(/^invalid_argument: per_page/)
    // D-58: the engine answers 404 here, so the code is not_found; its message stays verbatim (doc 2 §7)
    expect(
      errorText(
        await call("search_documents", { connection_id: SEARCH_ID, collection: "books", q: "*", sort_by: "title:asc" })
      )
    ).toBe("not_found: Could not find a field named `title` in the schema for sorting.")
  })

  it("S1-a execute_query runs a safe console request and renders hits as a grid; SQL-like text is refused before any request", async () => {
    const result = await call("execute_query", {
      connection_id: SEARCH_ID,
      query: "GET /collections/books/documents/search?q=*&filter_by=id:=[1,2]&sort_by=year:asc",
      max_rows: 1
    })
    expect(errorText(result)).toBe("not an error: " + JSON.stringify(result.structuredContent))
    expect(result.structuredContent).toMatchObject({ row_count: 1, is_truncated: true })
    expect(result.structuredContent.columns[0]).toBe("id")
    expect(result.structuredContent.rows[0][0]).toBe("1")
    fixture.engine.requests.length = 0
    const sql = await call("execute_query", { connection_id: SEARCH_ID, query: "SELECT * FROM books" })
    expect(errorText(sql)).toMatch(/^invalid_argument: This looks like SQL/)
    expect(fixture.engine.requests).toHaveLength(0)
  })

  it("S1-a engine errors keep the engine's message and map 404 to not_found, 401 to denied and transport failures to not_connected", async () => {
    expect(errorText(await call("describe_table", { connection_id: SEARCH_ID, table: "nope" }))).toMatch(/^not_found: /)
    expect(errorText(await call("list_tables", { connection_id: WRONG_KEY_ID }))).toMatch(/^denied: /)
    expect(errorText(await call("execute_query", { connection_id: WRONG_KEY_ID, query: "GET /collections" }))).toBe(
      "denied: Forbidden - a valid `x-typesense-api-key` header must be sent."
    )
    expect(errorText(await call("list_tables", { connection_id: UNREACHABLE_ID }))).toMatch(
      /^not_connected: 'Nobody home': Could not reach Typesense/
    )
    const status = await call("get_connection_status", { connection_id: SEARCH_ID })
    expect(status.structuredContent).toEqual({ status: "connected", server_version: expect.any(String) })
  })

  it("C2.2-f trace context sent in _meta reaches the engine unchanged as request headers", async () => {
    const trace = {
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "congo=t61rcWkgMzE",
      baggage: "userId=alice"
    }
    fixture.engine.requests.length = 0
    const response = await postMcp(
      fixture.server.url,
      modernRequest("tools/call", {
        name: "search_documents",
        arguments: { connection_id: SEARCH_ID, collection: "books", q: "*" },
        _meta: trace
      }),
      { authorization: `Bearer ${token}` }
    )
    expect(response.json.result.isError).toBe(false)
    expect(fixture.engine.requests.length).toBeGreaterThan(0)
    for (const request of fixture.engine.requests) expect(request.headers).toMatchObject(trace)
  })
})
