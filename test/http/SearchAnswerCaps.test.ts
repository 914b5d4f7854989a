import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { searchConsole, searchPage } from "../../src/http/ui/SearchViews.ts"
import { SettingsStore } from "../../src/services/Settings.ts"
import { clientFor } from "../search/EngineHelpers.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { SEARCH_ID, startSearchMcpServer, type SearchMcpServer } from "../support/SearchMcpServer.ts"

const HUGE = 5_000_000
const SMALL_LIMITS = { maxCellBytes: 32_768, maxAnswerBytes: 65_536 }
const FIELD_NOTE =
  "1 value was cut at limits.maxCellBytes (32768 bytes); Typesense cannot return part of a field: leave it out with exclude_fields, or raise limits.maxCellBytes"
const CUT = (full: number) =>
  ` …[cut by dbdesk: ${full} bytes, first 32768 shown; Typesense cannot return part of a field]`

let fixture: SearchMcpServer
let client: Client

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(effect as Effect.Effect<A, E, never>)
const jsonSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8")
const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
  client.callTool({ name, arguments: { connection_id: SEARCH_ID, ...args } }, { timeout: 120_000 })
const withSmallAnswers = async <A>(body: () => Promise<A>) => {
  const store = Context.get(fixture.server.context, SettingsStore)
  await run(store.update({ limits: SMALL_LIMITS }))
  try {
    return await body()
  } finally {
    await run(store.update({ limits: { maxCellBytes: 32_768, maxAnswerBytes: 8 * 1024 * 1024 } }))
  }
}

const tags = Array.from({ length: 5000 }, (_, index) => `tag-${index}`)

beforeAll(async () => {
  fixture = await startSearchMcpServer()
  await fixture.engine.createCollection({
    name: "articles",
    fields: [{ name: "title", type: "string" }, { name: "body", type: "string" }, {
      name: "tags",
      type: "string[]",
      optional: true
    }]
  })
  await fixture.engine.importDocuments("articles", [
    { id: "huge", title: "Huge", body: "b".repeat(HUGE), tags },
    ...Array.from(
      { length: 40 },
      (_, index) => ({ id: `a${index}`, title: `Article ${index}`, body: "p".repeat(4000) })
    )
  ])
  const token = await fixture.tokenFor("readOnly")
  client = await connectModernClient(fixture.server.url, { token })
}, 120_000)
afterAll(async () => {
  await client?.close()
  await fixture?.stop()
})

describe("answers built from search documents are capped (D-71)", () => {
  it("search_documents cuts a huge field at limits.maxCellBytes with its full length, and an array field too long for a cell becomes its cut JSON text", async () => {
    const result = await call("search_documents", { collection: "articles", q: "Huge", query_by: "title" })
    const [hit] = result.structuredContent.hits
    expect(hit.id).toBe("huge")
    expect(hit.body).toBe(`${"b".repeat(32_768)}${CUT(HUGE)}`)
    const tagsJson = JSON.stringify(tags)
    expect(hit.tags.startsWith(tagsJson.slice(0, 32_768))).toBe(true)
    expect(hit.tags.endsWith(CUT(Buffer.byteLength(tagsJson)))).toBe(true)
    expect(result.structuredContent).toMatchObject({
      found: 1,
      truncated: true,
      status_message:
        "2 fields were cut at limits.maxCellBytes (32768 bytes); Typesense cannot return part of a field: leave it out with exclude_fields, or raise limits.maxCellBytes"
    })
  })

  it("S2.2-d browse_table and the console's grid cut the same field", async () => {
    const browsed = await call("browse_table", {
      table: "articles",
      columns: ["id", "body"],
      filters: [{ column: "id", operator: "=", value: "huge" }]
    })
    expect(browsed.structuredContent.rows).toEqual([["huge", `${"b".repeat(32_768)}${CUT(HUGE)}`]])
    expect(browsed.structuredContent.status_message).toBe(FIELD_NOTE)
    const exported = await call("execute_query", {
      query: "GET /collections/articles/documents/export?filter_by=id:=huge&include_fields=id,body"
    })
    expect(exported.structuredContent.rows).toEqual([["huge", `${"b".repeat(32_768)}${CUT(HUGE)}`]])
    expect(exported.structuredContent.status_message).toBe(FIELD_NOTE)
  })

  it("a page of hits stops at limits.maxAnswerBytes and says how many are shown and how to ask for less", async () => {
    const result = await withSmallAnswers(() =>
      call("search_documents", { collection: "articles", q: "Article", query_by: "title", per_page: 40 })
    )
    const content = result.structuredContent
    expect(jsonSize(content)).toBeLessThanOrEqual(65_536)
    expect(content.hits.length).toBeGreaterThan(10)
    expect(content.hits.length).toBeLessThan(40)
    expect(content).toMatchObject({ found: 40, truncated: true })
    expect(content.status_message).toBe(
      `showing ${content.hits.length} of the 40 hits of this page: the answer reached limits.maxAnswerBytes (65536 bytes); ask for fewer documents (a smaller per_page or limit), filter with filter_by, or leave large fields out with exclude_fields`
    )
  })

  it("browse_table rows stop at limits.maxAnswerBytes too", async () => {
    const browsed = await withSmallAnswers(() =>
      call("browse_table", {
        table: "articles",
        columns: ["id", "body"],
        filters: [{ column: "id", operator: "!=", value: "huge" }],
        limit: 40
      })
    )
    expect(jsonSize(browsed.structuredContent)).toBeLessThanOrEqual(65_536)
    expect(browsed.structuredContent.row_count).toBeLessThan(40)
    expect(browsed.structuredContent).toMatchObject({ is_truncated: true })
    expect(browsed.structuredContent.status_message).toMatch(
      /^showing the first \d+ rows: the answer reached limits\.maxAnswerBytes \(65536 bytes\); ask for fewer documents/
    )
  })

  it("S4.3-d a JSON console response is one cell, cut at limits.maxCellBytes with advice for the engine", async () => {
    const single = await call("execute_query", { query: "GET /collections/articles/documents/huge" })
    expect(single.structuredContent.columns).toEqual(["response"])
    expect(single.structuredContent.rows[0][0]).toMatch(
      /^\{\n  "body": "b{32755} …\[cut by dbdesk: \d+ bytes, first 32768 shown; ask the engine for less\]$/
    )
    expect(single.structuredContent).toMatchObject({
      is_truncated: false,
      status_message:
        "1 value was cut at limits.maxCellBytes (32768 bytes); ask the engine for less: one collection, a smaller per_page or limit, include_fields or exclude_fields"
    })
  })

  it("the UI grid page and console use the same caps", async () => {
    const request = { filters: [], logic: "and", caseSensitive: false, sort: [], offset: 0, limit: 1000 } as const
    const [page, consoleGrid] = await run(Effect.scoped(Effect.gen(function*() {
      const searchClient = yield* clientFor(fixture.engine)
      return [
        yield* searchPage(searchClient, "articles", request, SMALL_LIMITS),
        yield* searchConsole(
          searchClient,
          "GET /collections/articles/documents/export?include_fields=id,body",
          false,
          SMALL_LIMITS
        )
      ] as const
    })))
    expect(page.total).toBe(41)
    expect(page.rows.length).toBeLessThan(41)
    expect(jsonSize(page.rows)).toBeLessThanOrEqual(65_536)
    // the grid speaks plain words: the cap is said without the setting's name (the MCP answer above names it)
    expect(page.notes[0]).toMatch(/^Only \d+ rows fit in one answer here: choose a smaller page size/)
    expect(consoleGrid).toMatchObject({
      _tag: "Grid",
      message: expect.stringMatching(/limits\.maxAnswerBytes \(65536 bytes\)/)
    })
    expect(jsonSize(consoleGrid)).toBeLessThanOrEqual(65_536)
  })
})
