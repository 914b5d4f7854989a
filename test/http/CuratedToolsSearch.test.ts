import { Context, Effect, FastCheck } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CuratedToolDefinition } from "../../src/domain/CuratedTool.ts"
import { CuratedToolSet } from "../../src/services/tools/CuratedToolSet.ts"
import { type SearchMcpServer, startSearchMcpServer } from "../support/SearchMcpServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

const BOOKS: CuratedToolDefinition = {
  name: "books_by_title",
  description: "Books with a title, from a year on",
  connection: "Books search",
  search: {
    collection: "books",
    filters: [
      { column: "title", operator: "=", value: ":title" },
      { column: "year", operator: ">=", value: ":since" },
      { column: "in_stock", operator: "=", value: ":stocked" }
    ],
    sort: [{ column: "year", direction: "asc" }]
  },
  parameters: [{ name: "title", type: "text" }, { name: "since", type: "integer", default: 1900 }, {
    name: "stocked",
    type: "boolean",
    required: false
  }]
}

let search: SearchMcpServer
let token: string
const call = (args: Record<string, unknown>) =>
  postMcp(search.server.url, modernRequest("tools/call", { name: "books_by_title", arguments: args }), {
    authorization: `Bearer ${token}`
  })

beforeAll(async () => {
  search = await startSearchMcpServer()
  token = await search.tokenFor("readOnly")
  writeFileSync(join(search.server.home, "tools.json"), JSON.stringify({ version: 1, tools: [BOOKS] }))
  const loaded = await Effect.runPromise(
    Effect.flatMap(CuratedToolSet, (set) => set.refresh).pipe(
      Effect.provide(search.server.context as Context.Context<CuratedToolSet>)
    )
  )
  expect(loaded.problem).toBeUndefined()
}, 60_000)

afterAll(async () => {
  await search?.stop()
})

describe("curated tools on the search engine: typed values placed by the filter compiler", () => {
  it("a search tool runs with its arguments as filter values", async () => {
    const answer = await call({ title: "Book 3", since: 1900, stocked: false })
    expect(answer.json.result.isError, answer.text).toBe(false)
    expect(JSON.stringify(answer.json.result.structuredContent)).toContain("Book 3")
    const none = await call({ title: "Book 3", since: 1950 })
    expect(none.json.result.isError, none.text).toBe(false)
    expect(JSON.stringify(none.json.result.structuredContent)).not.toContain("Book 3")
  })

  it(
    "any drawn text stays one filter value: it matches nothing, or is refused as an argument, and never widens the filter",
    async () => {
      const drawn = FastCheck.oneof(
        FastCheck.string({
          unit: FastCheck.constantFrom(
            "`",
            "'",
            "\"",
            "&&",
            "||",
            ")",
            "(",
            ":",
            "=",
            "*",
            "\\",
            "\u0000",
            " ",
            "Book",
            "title:",
            "year:>0",
            ",",
            "[",
            "]"
          )
        }),
        FastCheck.string()
      )
      await FastCheck.assert(
        FastCheck.asyncProperty(drawn, async (text) => {
          const answer = await call({ title: text })
          if (answer.json.result.isError === true) {
            expect(answer.json.result.structuredContent.error.code, answer.text).toBe("invalid_argument")
            return
          }
          // Only a document whose title is the text could match; the corpus's titles are "Book N".
          const found = JSON.stringify(answer.json.result.structuredContent)
          if (!/^Book \d+$/i.test(text.trim())) expect(found).not.toMatch(/Book \d/)
        }),
        { numRuns: 60 }
      )
    },
    120_000
  )

  it("the search tool is listed with its generated input schema", async () => {
    const listed = await postMcp(search.server.url, modernRequest("tools/list", {}), {
      authorization: `Bearer ${token}`
    })
    const tool = (listed.json.result.tools as ReadonlyArray<{ name: string; inputSchema: unknown }>).find((entry) =>
      entry.name === "books_by_title"
    )
    expect(tool?.inputSchema).toEqual({
      type: "object",
      properties: {
        title: { type: "string" },
        since: { type: "integer", default: 1900 },
        stocked: { type: "boolean" }
      },
      required: ["title"]
    })
  })
})
