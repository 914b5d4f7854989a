import { get } from "node:http"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { rawRequest, seedBooks } from "./EngineFixtures.ts"

const ids = (body: string): Array<string> =>
  (JSON.parse(body) as { hits: Array<{ document: { id: string } }> }).hits.map((h) => h.document.id)

describe("engine: search semantics (reference §1.3, §2, §3, §4)", () => {
  let engine: RunningEngine
  beforeEach(async () => {
    engine = await startEngine()
    await seedBooks(engine)
  })
  afterEach(() => engine.stop())

  const search = (query: string) => rawRequest(engine, "GET", `/collections/books/documents/search?${query}`)

  it("engine: default order is newest first; numeric missing values are last both ways; missing strings first on desc", async () => {
    expect(ids((await search("q=*")).body)).toEqual(["5", "4", "3", "2", "1"])
    expect(ids((await search("q=*&sort_by=rating:asc")).body)).toEqual(["4", "5", "2", "1", "3"])
    expect(ids((await search("q=*&sort_by=rating:desc")).body)).toEqual(["1", "2", "5", "4", "3"])
    expect(ids((await search("q=*&sort_by=author:asc")).body)).toEqual(["3", "4", "2", "1", "5"])
    expect(ids((await search("q=*&sort_by=author:desc")).body)).toEqual(["5", "1", "4", "2", "3"])
    expect(ids((await search("q=*&sort_by=author(missing_values: last):desc")).body)).toEqual(["1", "4", "2", "3", "5"])
  })

  it("engine: per_page=0 counts, offset replaces page in the answer, offset past the end is empty, limit_hits caps", async () => {
    const counted = JSON.parse((await search("q=*&per_page=0&filter_by=year:>1960")).body) as Record<string, unknown>
    expect(counted).toMatchObject({ found: 4, hits: [], page: 1 })
    const offset = JSON.parse((await search("q=*&offset=2&limit=2")).body) as Record<string, unknown>
    expect([offset["offset"], "page" in offset, ids(JSON.stringify(offset))]).toEqual([2, false, ["3", "2"]])
    expect(JSON.parse((await search("q=*&page=2&per_page=2&offset=4")).body)).toMatchObject({ page: 2 })
    expect(ids((await search("q=*&offset=50")).body)).toEqual([])
    expect(ids((await search("q=*&offset=2&per_page=3&limit_hits=4")).body)).toEqual(["3", "2"])
    expect(JSON.parse((await search("q=*&per_page=2&limit=5")).body)).toMatchObject({ request_params: { per_page: 2 } })
  })

  it("engine: filter semantics: backticks without escape, negation over missing fields, prefix outside backticks", async () => {
    expect(ids((await search(`q=*&filter_by=${encodeURIComponent("tags:=`odd` || year:>1980")}`)).body)).toEqual([
      "5",
      "3"
    ])
    expect(ids((await search(`q=*&filter_by=${encodeURIComponent("tags:!=cyber")}`)).body)).toEqual(["4", "2", "1"])
    expect(ids((await search(`q=*&filter_by=${encodeURIComponent("title:`Neuro`*")}`)).body)).toEqual(["3"])
    expect(ids((await search(`q=*&filter_by=${encodeURIComponent("title:`Neuro*`")}`)).body)).toEqual([])
    expect(ids((await search(`q=*&filter_by=${encodeURIComponent("year:>1900 || year:<0 && in_print:true")}`)).body))
      .toEqual(["2", "1"])
    expect(ids((await search(`q=*&filter_by=${encodeURIComponent("title:>D")}`)).body)).toEqual([])
  })

  it("engine: multi_search URL parameters win over body ones and URL filter_by is ANDed", async () => {
    const body = { searches: [{ collection: "books", q: "*", per_page: 1, filter_by: "year:>1960" }] }
    const answer = await rawRequest(engine, "POST", "/multi_search?per_page=3&filter_by=in_print:true", body)
    const result =
      (JSON.parse(answer.body) as { results: Array<{ found: number; hits: Array<unknown>; request_params: unknown }> })
        .results[0]!
    expect([result.found, result.hits.length]).toEqual([1, 1])
    expect(result.request_params).toMatchObject({ per_page: 3 })
  })
})

describe("engine: schema learning and nested fields (reference §1.6)", () => {
  let engine: RunningEngine
  beforeEach(async () => {
    engine = await startEngine()
  })
  afterEach(() => engine.stop())

  it("engine: `.*` auto fields are learned as optional with detected types; dirty_values defaults to coerce_or_reject", async () => {
    await engine.createCollection({
      name: "auto",
      fields: [{ name: ".*", type: "auto" }, { name: "n", type: "int32", optional: true }]
    })
    const created = await rawRequest(engine, "POST", "/collections/auto/documents", {
      id: "1",
      n: "42",
      title: "x",
      count: 3,
      score: 1.5,
      tags: ["a"],
      ok: true,
      none: []
    })
    expect(JSON.parse(created.body)).toMatchObject({ n: 42 })
    const fields = (JSON.parse((await rawRequest(engine, "GET", "/collections/auto")).body) as {
      fields: Array<{ name: string; type: string; optional: boolean; sort: boolean }>
    }).fields
    expect(fields.map((f) => [f.name, f.type, f.optional, f.sort])).toEqual([
      [".*", "auto", true, false],
      ["n", "int32", true, true],
      ["title", "string", true, false],
      ["count", "int64", true, true],
      ["score", "float", true, true],
      ["tags", "string[]", true, false],
      ["ok", "bool", true, true]
    ])
  })

  it("engine: dirty_values: coerce_or_reject coerces, coerce_or_drop and drop discard what does not fit", async () => {
    await engine.createCollection({
      name: "typed",
      fields: [{ name: "n", type: "int32", optional: true }, { name: "b", type: "bool", optional: true }]
    })
    const post = (query: string, doc: object) =>
      rawRequest(engine, "POST", `/collections/typed/documents?${query}`, doc)
    expect((await post("dirty_values=coerce_or_reject", { id: "1", n: "7", b: "TRUE" })).body).toBe(
      "{\"b\":true,\"id\":\"1\",\"n\":7}"
    )
    expect((await post("dirty_values=coerce_or_reject", { id: "2", n: "x" })).body).toBe(
      "{\"message\":\"Field `n` must be an int32.\"}"
    )
    expect((await post("dirty_values=coerce_or_drop", { id: "3", n: "x", b: 1 })).body).toBe(
      "{\"b\":true,\"id\":\"3\"}"
    )
    expect((await post("dirty_values=drop", { id: "4", n: "7", b: true })).body).toBe("{\"b\":true,\"id\":\"4\"}")
    expect((await post("", { id: "5", n: 7.5 })).status).toBe(400)
  })

  it("engine: nested fields report the object parent and its dotted leaves; documents stay nested", async () => {
    await engine.createCollection({
      name: "nested",
      enable_nested_fields: true,
      fields: [{ name: "meta", type: "object" }, { name: "variants", type: "object[]", optional: true }]
    })
    const doc = { id: "1", meta: { pages: 412, publisher: { name: "Ace" } }, variants: [{ sku: "A1" }, { sku: "B2" }] }
    expect((await rawRequest(engine, "POST", "/collections/nested/documents", doc)).body).toBe(JSON.stringify(doc))
    const fields = (JSON.parse((await rawRequest(engine, "GET", "/collections/nested")).body) as {
      fields: Array<{ name: string; type: string }>
    }).fields
    expect(fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      "meta:object",
      "variants:object[]",
      "meta.pages:int64",
      "meta.publisher.name:string",
      "variants.sku:string[]"
    ])
    const found = await rawRequest(
      engine,
      "GET",
      "/collections/nested/documents/search?q=*&filter_by=meta.pages:>400&&variants.sku:=B2"
    )
    expect(ids(found.body)).toEqual(["1"])
  })
})

describe("engine: path segments are split before decoding (reference §0.1)", () => {
  it("engine: a collection named a/b and a document id `..` are addressable; a document `search` is not fetchable", async () => {
    const engine = await startEngine()
    try {
      await engine.createCollection({ name: "a/b", fields: [{ name: "t", type: "string" }] })
      await engine.importDocuments("a/b", [{ id: "..", t: "dots" }, { id: "search", t: "s" }])
      expect(JSON.parse((await rawRequest(engine, "GET", "/collections/a%2Fb")).body)).toMatchObject({
        name: "a/b",
        num_documents: 2
      })
      const dots = await new Promise<string>((resolve, reject) => {
        const request = get({
          host: engine.host,
          port: engine.port,
          path: "/collections/a%2Fb/documents/%2E%2E",
          headers: { "x-typesense-api-key": engine.apiKey }
        }, (response) => {
          let body = ""
          response.on("data", (chunk: Buffer) => (body += chunk.toString()))
          response.on("end", () => resolve(body))
        })
        request.on("error", reject)
      })
      expect(dots).toBe("{\"id\":\"..\",\"t\":\"dots\"}")
      expect((await rawRequest(engine, "GET", "/collections/a%2Fb/documents/search")).body).toBe(
        "{\"message\":\"Parameter `q` is required.\"}"
      )
    } finally {
      await engine.stop()
    }
  })
})
