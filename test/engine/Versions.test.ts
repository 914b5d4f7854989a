import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { clientFor, rawRequest, seedBooks } from "./EngineFixtures.ts"

interface VersionExpectations {
  readonly version: 26 | 29
  readonly collectionNotFound: string
  readonly searchNotFound: string
  readonly searchErrorBody: (message: string) => string
  readonly fieldKeys: ReadonlyArray<string>
}

const spaced = (message: string) => `{"message": "${message}"}`
const compact = (message: string) => JSON.stringify({ message })
const baseFieldKeys = ["facet", "index", "infix", "locale", "name", "optional", "sort", "stem", "type"]

const modes: ReadonlyArray<VersionExpectations> = [
  {
    version: 26,
    collectionNotFound: "Not Found",
    searchNotFound: "Not found.",
    searchErrorBody: spaced,
    fieldKeys: baseFieldKeys
  },
  {
    version: 29,
    collectionNotFound: "Collection not found",
    searchNotFound: "Collection not found",
    searchErrorBody: compact,
    fieldKeys: [...baseFieldKeys, "stem_dictionary", "store"].sort()
  }
]

describe.each(modes)("engine: version mode $version (reference §8)", (mode) => {
  let engine: RunningEngine
  beforeEach(async () => {
    engine = await startEngine({ version: mode.version })
    await seedBooks(engine)
  })
  afterEach(() => engine.stop())

  it("engine: not-found messages and the search error body shape", async () => {
    expect((await rawRequest(engine, "GET", "/collections/nope")).body).toBe(spaced(mode.collectionNotFound))
    expect((await rawRequest(engine, "GET", "/aliases/nope")).body).toBe(spaced(mode.collectionNotFound))
    expect((await rawRequest(engine, "GET", "/collections/nope/documents/search?q=*")).body).toBe(
      mode.searchErrorBody(mode.searchNotFound)
    )
    expect((await rawRequest(engine, "GET", "/collections/books/documents/search?q=*&per_page=251")).body).toBe(
      mode.searchErrorBody("Only upto 250 hits can be fetched per page.")
    )
    const multi = await rawRequest(engine, "POST", "/multi_search", { searches: [{ collection: "nope", q: "*" }] })
    expect(JSON.parse(multi.body)).toEqual({ results: [{ code: 404, error: mode.searchNotFound }] })
  })

  it("engine: debug version, field summary keys and the official client's view of them", async () => {
    const client = clientFor(engine)
    expect(await client.debug.retrieve()).toEqual({ state: 1, version: `${mode.version}.0` })
    const books = await client.collections("books").retrieve()
    expect(Object.keys(books.fields[0]!).sort()).toEqual(mode.fieldKeys)
  })

  it("engine: truncate=true empties a collection only from v28", async () => {
    const answer = await rawRequest(engine, "DELETE", "/collections/books/documents?truncate=true")
    if (mode.version >= 28) {
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: "{\"num_deleted\":5}" })
    } else {
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: spaced("Parameter `filter_by` must be provided.")
      })
    }
  })

  it("engine: import failure lines carry `document` always in v26, only with return_doc=true from v28", async () => {
    const line = "{\"id\":\"x\",\"title\":\"no year\"}"
    const failureLine = (withDocument: boolean) =>
      JSON.stringify({
        code: 400,
        ...(withDocument ? { document: line } : {}),
        error: "Field `year` has been declared in the schema, but is not found in the document.",
        success: false
      })
    const plain = await rawRequest(engine, "POST", "/collections/books/documents/import", line)
    expect(plain.contentType).toBe("text/plain; charset=utf-8")
    expect(plain.body).toBe(failureLine(mode.version < 28))
    const withDoc = await rawRequest(engine, "POST", "/collections/books/documents/import?return_doc=true", line)
    expect(withDoc.body).toBe(failureLine(true))
  })

  it("engine: stats carry percentiles and cache_hit_ratio only in v29; metrics values are all strings", async () => {
    await rawRequest(engine, "GET", "/collections/books/documents/search?q=*")
    const stats = JSON.parse((await rawRequest(engine, "GET", "/stats.json")).body) as Record<string, unknown>
    expect(stats["search_requests_per_second"]).toBeGreaterThan(0)
    expect("cache_hit_ratio" in stats).toBe(mode.version >= 29)
    expect("search_95Percentile_latency_ms" in stats).toBe(mode.version >= 29)
    const metrics = await rawRequest(engine, "GET", "/metrics.json")
    expect(metrics.body).toMatch(/^\{\n  "system_cpu1_active_percentage": "/)
    expect(Object.values(JSON.parse(metrics.body) as Record<string, unknown>).every((v) => typeof v === "string")).toBe(
      true
    )
  })

  it("engine: collection listing is filtered by the key's collections from v27, never in v26", async () => {
    await engine.createCollection({ name: "orders", fields: [{ name: "t", type: "string" }] })
    const created = await rawRequest(engine, "POST", "/keys", {
      description: "l",
      actions: ["collections:list"],
      collections: ["books"]
    })
    const key = (JSON.parse(created.body) as { value: string }).value
    const names =
      (JSON.parse((await rawRequest(engine, "GET", "/collections", undefined, key)).body) as Array<{ name: string }>)
        .map(
          (c) => c.name
        )
    expect(names).toEqual(mode.version >= 27 ? ["books"] : ["orders", "books"])
  })

  it("engine: filter differences: empty string list, exact-prefix and the too-many-operations message", async () => {
    const search = (filter: string) =>
      rawRequest(engine, "GET", `/collections/books/documents/search?q=*&filter_by=${encodeURIComponent(filter)}`)
    const emptyList = await search("tags:=[]")
    const prefix = JSON.parse((await search("title:=Dun*")).body) as { found?: number }
    const tooMany = await search(Array.from({ length: 51 }, () => "year:1").join("&&"))
    if (mode.version === 26) {
      expect(emptyList.body).toBe(spaced("Error with filter field `tags`: Filter value array cannot be empty."))
      expect(prefix.found).toBe(0)
      expect(tooMany.body).toBe(spaced("`filter_by` has too many operations."))
    } else {
      expect(JSON.parse(emptyList.body)).toMatchObject({ found: 0 })
      expect(prefix.found).toBe(2)
      expect(tooMany.status).toBe(400)
    }
  })
})
