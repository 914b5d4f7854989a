import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { searchDocuments, searchInsertRows } from "../../src/search/SearchDocuments.ts"
import { connect } from "../../src/search/SearchServer.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { bookDocuments, books, clientFor, searchesOf } from "./EngineHelpers.ts"

describe.each([26, 29] as const)("search_documents and insert_rows on engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(5))
  })
  afterAll(() => engine.stop())

  it.scoped("S4-b S7-b search_documents goes through multi_search; per_page above 250 is refused before sending", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      engine.requests.length = 0
      const result = yield* searchDocuments(client, {
        collection: "books",
        q: "book",
        query_by: "title",
        filter_by: "in_stock:=true",
        sort_by: "pages:desc",
        per_page: 2
      })
      expect([result.found, result.hits.map((hit) => hit.id)]).toEqual([3, ["4", "2"]])
      expect(engine.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /multi_search"])
      expect(searchesOf(engine.requests[0]?.body ?? "")[0]).toMatchObject({
        q: "book",
        per_page: 2,
        sort_by: "pages:desc"
      })
      const tooMany = yield* Effect.flip(searchDocuments(client, { collection: "books", q: "*", per_page: 251 }))
      expect(tooMany.code).toBe("invalid_argument")
      expect(engine.requests.length).toBe(1)
      const unsortable = yield* Effect.flip(
        searchDocuments(client, { collection: "books", q: "*", sort_by: "title:asc" })
      )
      expect(unsortable.message).toBe("not_found: Could not find a field named `title` in the schema for sorting.")
    }))

  it.scoped("S4-e S7-d insert_rows is one import call of typed values; failed rows are named with the engine's reason", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      engine.requests.length = 0
      const result = yield* searchInsertRows(
        client,
        "books",
        ["id", "title", "year", "rating", "pages", "in_stock", "tags"],
        [
          ["n1", "New", "2001", "4.5", 10, "true", "[\"x\"]"],
          ["n2", "Bad", "2001.5", 1, 1, false, null],
          ["n3", "Ok", 1999, 1, 1, "FALSE", ["y"]]
        ]
      )
      expect(result).toEqual({
        rows_affected: 2,
        failed_rows: [{ index: 1, error: "Field `year` must be an int32." }]
      })
      const imports = engine.requests.filter((r) => r.path.includes("/import"))
      expect(imports.length).toBe(1)
      expect(imports[0]?.body.split("\n")[0]).toBe(
        "{\"id\":\"n1\",\"title\":\"New\",\"year\":2001,\"rating\":4.5,\"pages\":10,\"in_stock\":true,\"tags\":[\"x\"]}"
      )
    }))
})

describe("engine version", () => {
  it.scoped("S9-a an engine older than 26.0 connects with a warning", () =>
    Effect.gen(function*() {
      const server = createServer((request, response) => {
        response.setHeader("content-type", "application/json; charset=utf-8")
        response.end(request.url === "/debug" ? "{\"state\":1,\"version\":\"0.25.2\"}" : "{\"ok\":true}")
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () => Effect.sync(() => server.close())
      )
      const port = (server.address() as AddressInfo).port
      const old = { host: "127.0.0.1", port, url: `http://127.0.0.1:${port}`, apiKey: "k" } as RunningEngine
      const info = yield* connect(yield* clientFor(old))
      expect(info).toEqual({
        version: "0.25.2",
        warnings: ["Typesense 0.25.2 is older than 26.0, the oldest version dbdesk supports; some reads may fail."]
      })
    }))
})
