import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import { SearchClients } from "../../src/search/SearchClients.ts"
import {
  classifySearchConsoleText,
  searchBrowseTable,
  searchCountRows,
  searchDescribeTable,
  searchExecute,
  searchListTables
} from "../../src/search/SearchTools.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { bookDocuments, books, clientFor, searchesOf } from "./EngineHelpers.ts"

describe.each([26, 29] as const)("MCP tool adapters on engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(30))
  })
  afterAll(() => engine.stop())

  it.scoped("S4.1-b S4.1-c S4.2-a browse_table uses the grid's compiler and sort rules and names dropped sorts", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const result = yield* searchBrowseTable(client, "books", {
        columns: ["id", "year"],
        filters: [{ column: "year", operator: "between", value: 1905, second_value: 1920 }, {
          column: "tags",
          operator: "in",
          value: ["classic"]
        }],
        logic: "and",
        sort: [{ column: "title", direction: "asc" }, { column: "year", direction: "asc" }],
        limit: 3
      }, 500)
      expect(result.columns).toEqual(["id", "year"])
      expect(result.rows).toEqual([["6", 1906], ["9", 1909], ["12", 1912]])
      expect(result.is_truncated).toBe(true)
      expect(result.status_message).toMatch(/^not sorted by title: the collection schema does not mark it sortable/)
      const last = engine.requests[engine.requests.length - 1]
      expect(searchesOf(last?.body ?? "")[0]).toMatchObject({
        filter_by: "(year:[1905..1920]) && (tags:=[`classic`])",
        sort_by: "year:asc"
      })
      const refused = yield* Effect.flip(searchBrowseTable(client, "books", {
        filters: [{ column: "author", operator: "is_null" }]
      }, 500))
      expect(refused.message).toMatch(/^invalid_argument: Typesense cannot filter with "is NULL"/)
      const unknown = yield* Effect.flip(searchBrowseTable(client, "books", { columns: ["nope"] }, 500))
      expect(unknown.message).toBe("invalid_argument: books has no column nope")
      const count = yield* searchCountRows(client, "books", [{ column: "in_stock", operator: "=", value: true }], "and")
      expect(count).toEqual({ row_count: 15, is_approximate: false })
    }))

  it.scoped("S2.2-a S4-a S8-b list_tables and describe_table on a search connection: tables only, no foreign keys", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      expect(yield* searchListTables(client, true)).toEqual([{ name: "books", type: "table", row_count: 30 }])
      const described = yield* searchDescribeTable(client, "books")
      expect(described.columns[0]).toEqual({
        name: "id",
        data_type: "string",
        is_nullable: false,
        is_primary_key: true,
        is_sortable: false
      })
      expect(JSON.parse(described.ddl ?? "").name).toBe("books")
      expect([described.foreign_keys, described.indexes]).toEqual([[], []])
      expect(described.approximate_row_count).toBe(30)
      const missing = yield* Effect.flip(searchDescribeTable(client, "nope"))
      expect(missing.code).toBe("not_found")
      const denied = yield* Effect.flip(searchListTables(yield* clientFor(engine, { apiKey: "wrong" }), false))
      expect(denied.code).toBe("denied")
    }))

  it.scoped("S4.3-a S4.3-d S4.3-e execute_query runs console text and renders it by the console rules", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const grid = yield* searchExecute(client, "GET /collections/books/documents/export", 10)
      expect([grid.row_count, grid.is_truncated, grid.columns[0]]).toEqual([10, true, "id"])
      const json = yield* searchExecute(client, "GET /health", 10)
      expect([json.columns, json.rows]).toEqual([["response"], [["{\n  \"ok\": true\n}"]]])
      const sql = yield* Effect.flip(searchExecute(client, "SELECT * FROM books", 10))
      expect(sql.code).toBe("invalid_argument")
      expect(Either.getOrThrow(classifySearchConsoleText("POST /multi_search\n{}"))).toBe("safe")
      expect(Either.getOrThrow(classifySearchConsoleText("DELETE /collections/books"))).toBe("destructive")
      assert.isTrue(Either.isLeft(classifySearchConsoleText("DELETE FROM books")))
    }))

  it.scoped("one client per connection, replaced when its settings change", () =>
    Effect.gen(function*() {
      const clients = yield* SearchClients
      const fields = {
        host: engine.host,
        port: engine.port,
        apiKey: Redacted.make(engine.apiKey),
        sslMode: "Disabled" as const,
        skipTlsVerification: false
      }
      const first = yield* clients.clientFor("c1", fields)
      expect(yield* clients.clientFor("c1", { ...fields, apiKey: Redacted.make(engine.apiKey) })).toBe(first)
      const changed = yield* clients.clientFor("c1", { ...fields, apiKey: Redacted.make("other") })
      expect(changed).not.toBe(first)
      expect((yield* Effect.flip(searchListTables(changed, false))).code).toBe("denied")
      yield* clients.close("c1")
      const bad = yield* Effect.flip(clients.clientFor("c2", { ...fields, host: "http://x" }))
      expect(bad.message).toMatch(/^The connection settings cannot be used: /)
    }).pipe(Effect.provide(SearchClients.Default)))
})
