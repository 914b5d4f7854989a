import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { SEARCH_ID, startSearchMcpServer, type SearchMcpServer } from "../support/SearchMcpServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

// D-69, D-68 on the search engine (no transactions): a write's documents counted through the same
// filter and shown before → after, nothing written; a request naming a missing document or a bad filter refused
// with the engine's own message before any dialog.
let fixture: SearchMcpServer
let token: string
beforeAll(async () => {
  fixture = await startSearchMcpServer()
  token = await fixture.tokenFor("fullAccess")
})
afterAll(() => fixture.stop())
beforeEach(() => {
  fixture.asked.length = 0
  fixture.script.answer = "denied"
  fixture.engine.requests.length = 0
})

const call = (name: string, query: string) =>
  postMcp(fixture.server.url, modernRequest("tools/call", { name, arguments: { connection_id: SEARCH_ID, query } }), {
    authorization: `Bearer ${token}`
  })
const writes = () =>
  fixture.engine.requests.filter((request) => request.method !== "GET" && !request.path.startsWith("/multi_search"))

describe("D-69: search-engine edits are counted through the same filter", () => {
  it("an update by filter shows 'will change N documents in books' with the first documents before → after; nothing is written", async () => {
    const response = await call(
      "execute_query",
      "PATCH /collections/books/documents?filter_by=year:<1905\n{\"in_stock\": false}"
    )
    expect(response.json.result.content[0].text).toBe("denied: the user did not approve this operation")
    const preview = fixture.asked[0]?.preview
    expect(preview).toMatchObject({ _tag: "Changes", action: "change", target: "books", unit: "document", count: 5 })
    const rows = preview?._tag === "Changes" ? preview.rows : []
    const inStock = preview?._tag === "Changes" ? preview.columns.indexOf("in_stock") : -1
    expect(rows.length).toBe(5)
    expect(rows.every((row) => row.after?.[inStock] === false)).toBe(true)
    expect(rows.some((row) => row.before?.[inStock] === true)).toBe(true)
    const search = fixture.engine.requests.find((request) => request.path.startsWith("/multi_search"))
    expect(JSON.parse(search!.body).searches[0]).toMatchObject({ collection: "books", filter_by: "year:<1905", q: "*" })
    expect(writes()).toEqual([])
  })

  it("a DELETE by id through confirm_destructive_operation shows the document it would delete", async () => {
    await call("confirm_destructive_operation", "DELETE /collections/books/documents/3")
    expect(fixture.asked[0]?.preview).toMatchObject({
      _tag: "Changes",
      action: "delete",
      count: 1,
      rows: [{ after: null }]
    })
    expect(writes()).toEqual([])
  })
})

describe("D-68: a request that cannot run is refused with the engine's message before any dialog", () => {
  it.each([
    [
      "PATCH /collections/books/documents/no-such-id\n{\"pages\": 1}",
      "execute_query",
      /^not_found: Could not find a document with id: no-such-id/
    ],
    [
      "PATCH /collections/books/documents?filter_by=nope:=1\n{\"pages\": 1}",
      "execute_query",
      /^not_found: Could not find a filter field named `nope` in the schema\./
    ],
    ["POST /collections/missing/documents\n{\"id\": \"1\"}", "execute_query", /^not_found: /],
    [
      "DELETE /collections/books/documents/no-such-id",
      "confirm_destructive_operation",
      /^not_found: Could not find a document with id: no-such-id/
    ]
  ])("%j", async (query, tool, expected) => {
    const response = await call(tool, query)
    expect(response.json.result.content[0].text).toMatch(expected)
    expect(fixture.asked).toHaveLength(0)
    expect(writes()).toEqual([])
  })
})
