import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ColumnFilter, FilterOperator } from "../../src/domain/SearchFilter.ts"
import { countRows, describeCollection, readPage } from "../../src/search/SearchBrowse.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { bookDocuments, books, clientFor, searchesOf } from "./EngineHelpers.ts"

/** Doc 2 §4.2 point 4 (S4.2-d): is NULL, is not NULL, is empty, is not empty, matches regex, ends with; pinned here, not read from the source. */
const REFUSED_OPERATORS: ReadonlyArray<FilterOperator> = [
  "is_null",
  "is_not_null",
  "is_empty",
  "is_not_empty",
  "matches_regex",
  "ends_with"
]

describe.each([26, 29] as const)("grid reads against engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(2700))
    await engine.createCollection({ ...books, name: "short" })
    await engine.importDocuments("short", bookDocuments(612))
  })
  afterAll(() => engine.stop())

  const loaded = (collection: string) =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const { columns } = yield* describeCollection(client, collection)
      engine.requests.length = 0
      return { client, columns }
    })

  it.scoped("S4.1-a S4-b a 1,000-row page is exactly one HTTP request of four 250-hit searches", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* loaded("books")
      const page = yield* readPage(client, { collection: "books", columns })
      expect(page.rows.length).toBe(1000)
      expect(page.found).toBe(2700)
      expect(engine.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /multi_search"])
      const searches = searchesOf(engine.requests[0]?.body ?? "")
      expect(searches.map((s) => [s.offset, s.limit, s.q, s.collection])).toEqual([
        [0, 250, "*", "books"],
        [250, 250, "*", "books"],
        [500, 250, "*", "books"],
        [750, 250, "*", "books"]
      ])
    }))

  it.scoped("S4.1-a S4-b 2,600 rows are one request of 11 searches, and every row arrives once", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* loaded("books")
      const page = yield* readPage(client, { collection: "books", columns, limit: 2600 })
      expect(engine.requests.length).toBe(1)
      expect(searchesOf(engine.requests[0]?.body ?? "").length).toBe(11)
      expect(new Set(page.rows.map((row) => row[0])).size).toBe(2600)
    }))

  it.scoped("S4.1-a reading stops at the first short search", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* loaded("short")
      const page = yield* readPage(client, { collection: "short", columns, limit: 13_000 })
      expect(page.rows.length).toBe(612)
      expect(engine.requests.length).toBe(1)
      expect(searchesOf(engine.requests[0]?.body ?? "").length).toBe(50)
    }))

  it.scoped("S4.1-b S4.1-c S7-a a fourth sort and an unsortable sort never reach the engine, and are reported", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* loaded("books")
      const page = yield* readPage(client, {
        collection: "books",
        columns,
        limit: 5,
        sort: [
          { column: "title", direction: "asc" },
          { column: "year", direction: "desc" },
          { column: "id", direction: "asc" },
          { column: "rating", direction: "asc" },
          { column: "author", direction: "asc" },
          { column: "pages", direction: "desc" }
        ]
      })
      expect(searchesOf(engine.requests[0]?.body ?? "")[0]?.sort_by).toBe("year:desc,rating:asc,author:asc")
      expect(page.droppedSorts.map((s) => `${s.column}:${s.reason}`)).toEqual([
        "title:not_sortable",
        "id:not_sortable",
        "pages:too_many_sorts"
      ])
      const years = page.rows.map((row) => row[columns.findIndex((c) => c.name === "year")])
      expect(years).toEqual([...years].sort().reverse())
    }))

  it.scoped("S7-e S4.2-d S4.2-e each refused operator and a backtick value send no request", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const attempts: ReadonlyArray<ColumnFilter> = [
        ...REFUSED_OPERATORS.map((operator): ColumnFilter => ({ column: "title", operator, value: "x" })),
        { column: "title", operator: "=", value: "odd` || year:>0" }
      ]
      engine.requests.length = 0
      for (const filter of attempts) {
        const error = yield* Effect.flip(
          readPage(client, { collection: "books", filter: { filters: [filter], logic: "and" } })
        )
        assert.strictEqual(error._tag, "SearchFilterRefused")
        const counted = yield* Effect.flip(countRows(client, "books", { filters: [filter], logic: "and" }))
        assert.strictEqual(counted._tag, "SearchFilterRefused")
      }
      expect(engine.requests).toEqual([])
    }))

  it.scoped("S4.2-a S4.2-b filtered counts use per_page=0; the Raw filter reaches the engine verbatim", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* loaded("books")
      const filter = { filters: [{ column: "in_stock", operator: "=", value: "true" } as const], logic: "and" as const }
      const count = yield* countRows(client, "books", filter, columns)
      expect(count).toBe(1350)
      expect(searchesOf(engine.requests[0]?.body ?? "")).toEqual([
        { collection: "books", q: "*", per_page: 0, filter_by: "in_stock:=true" }
      ])
      const raw = "year:>=2000 && tags:=[classic]"
      const rawCount = yield* countRows(client, "books", { filters: [], logic: "and", raw })
      expect(searchesOf(engine.requests[1]?.body ?? "")[0]?.filter_by).toBe(raw)
      const expected = bookDocuments(2700).filter((d) => d.year >= 2000 && d.tags.includes("classic")).length
      expect(rawCount).toBe(expected)
    }))

  it.scoped("S7-c a filter on a field the collection lacks fails with the engine's message verbatim", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* loaded("books")
      const error = yield* Effect.flip(readPage(client, {
        collection: "books",
        columns,
        filter: { filters: [{ column: "publisher", operator: "=", value: "x" }], logic: "and" }
      }))
      assert.strictEqual(error._tag, "SearchEngineError")
      expect(error.message).toBe("Could not find a filter field named `publisher` in the schema.")
      expect(error._tag === "SearchEngineError" && error.status).toBe(404)
    }))
})
