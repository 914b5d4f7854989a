import { Errors } from "typesense"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { books, booksSchema, clientFor, seedBooks } from "./EngineFixtures.ts"

const serverSaid = (status: number, message: string) =>
  `Request failed with HTTP code ${status} | Server said: ${message}`

describe("engine: official typesense client against the engine (v29)", () => {
  let engine: RunningEngine
  beforeEach(async () => {
    engine = await startEngine()
  })
  afterEach(() => engine.stop())

  it("engine: collections create, list newest first, get, patch and delete", async () => {
    const client = clientFor(engine)
    const created = await client.collections().create({ name: "first", fields: [{ name: "title", type: "string" }] })
    expect(created.fields[0]).toEqual({
      facet: false,
      index: true,
      infix: false,
      locale: "",
      name: "title",
      optional: false,
      sort: false,
      stem: false,
      stem_dictionary: "",
      store: true,
      type: "string"
    })
    expect(created.num_documents).toBe(0)
    await client.collections().create({ name: "second", fields: [{ name: "year", type: "int32" }] })
    const listed = await client.collections().retrieve()
    expect(listed.map((c) => c.name)).toEqual(["second", "first"])
    expect((await client.collections("second").retrieve()).fields[0]?.sort).toBe(true)
    const patch = { fields: [{ name: "pages", type: "int32", optional: true }, { name: "year", drop: true }] }
    expect(await client.collections("second").update(patch as never)).toEqual(patch)
    expect((await client.collections("second").retrieve()).fields.map((f) => f.name)).toEqual(["pages"])
    expect((await client.collections("first").delete()).name).toBe("first")
    await expect(client.collections("first").retrieve()).rejects.toThrow(serverSaid(404, "Collection not found"))
    await expect(client.collections("first").retrieve()).rejects.toBeInstanceOf(Errors.ObjectNotFound)
  })

  it("engine: collection create errors map to the client's error classes", async () => {
    const client = clientFor(engine)
    await client.collections().create(booksSchema as never)
    await expect(client.collections().create(booksSchema as never)).rejects.toBeInstanceOf(Errors.ObjectAlreadyExists)
    await expect(client.collections().create({ name: "x", fields: [{ name: "a", type: "strin" }] } as never)).rejects
      .toThrow(
        serverSaid(400, "Field `a` has an invalid data type `strin`, see docs for supported data types.")
      )
  })

  it("engine: documents create, upsert, update, emplace, get, patch, delete", async () => {
    const client = clientFor(engine)
    await client.collections().create(booksSchema as never)
    const documents = client.collections("books").documents()
    expect(await documents.create({ title: "Auto", year: 2000 })).toEqual({ id: "0", title: "Auto", year: 2000 })
    expect(await documents.create({ id: "b", title: "B", year: 1 })).toEqual({ id: "b", title: "B", year: 1 })
    await expect(documents.create({ id: "b", title: "B", year: 1 })).rejects.toThrow(
      serverSaid(409, "A document with id b already exists.")
    )
    expect(await documents.upsert({ id: "b", title: "B2", year: 2 })).toEqual({ id: "b", title: "B2", year: 2 })
    expect(await documents.update({ id: "b", year: 3 }, {})).toEqual({ id: "b", title: "B2", year: 3 })
    expect(await documents.create({ id: "e", title: "E", year: 5 }, { action: "emplace" } as never)).toEqual({
      id: "e",
      title: "E",
      year: 5
    })
    expect(await client.collections("books").documents("b").retrieve()).toEqual({ id: "b", title: "B2", year: 3 })
    expect(await client.collections("books").documents("b").update({ rating: 4.5 })).toEqual({
      id: "b",
      title: "B2",
      year: 3,
      rating: 4.5
    })
    expect(await client.collections("books").documents("b").update({ rating: null })).toEqual({
      id: "b",
      title: "B2",
      year: 3
    })
    expect(await client.collections("books").documents("b").delete()).toEqual({ id: "b", title: "B2", year: 3 })
    await expect(client.collections("books").documents("b").retrieve()).rejects.toThrow(
      serverSaid(404, "Could not find a document with id: b")
    )
    await expect(documents.create({ title: "T", year: "1965" })).rejects.toBeInstanceOf(
      Errors.RequestMalformed
    )
  })

  it("engine: import returns one result per line, export returns JSONL without trailing newline", async () => {
    const client = clientFor(engine)
    await client.collections().create(booksSchema as never)
    const documents = client.collections("books").documents()
    const results = await documents.import(
      "{\"id\":\"1\",\"title\":\"A\",\"year\":1}\n{\"id\":\"2\",\"title\":\"B\"}",
      { action: "create" }
    )
    expect(results).toBe(
      "{\"success\":true}\n{\"code\":400,\"error\":\"Field `year` has been declared in the schema, but is not found in the document.\",\"success\":false}"
    )
    const failing = documents.import([{ id: "1", title: "A", year: 1 }], { action: "create" })
    await expect(failing).rejects.toBeInstanceOf(Errors.ImportError)
    await documents.import([{ id: "3", title: "C", year: 3 }], { action: "create" })
    expect(await documents.export()).toBe(
      "{\"id\":\"1\",\"title\":\"A\",\"year\":1}\n{\"id\":\"3\",\"title\":\"C\",\"year\":3}"
    )
    expect(await documents.delete({ filter_by: "year:>2" })).toEqual({ num_deleted: 1 })
    expect(await documents.update({ title: "Z" }, { filter_by: "year:1" })).toEqual({ num_updated: 1 })
    expect(await documents.export()).toBe("{\"id\":\"1\",\"title\":\"Z\",\"year\":1}")
  })

  it("engine: search, filter, sort and page through the client", async () => {
    await seedBooks(engine)
    const client = clientFor(engine)
    const result = await client.collections("books").documents().search({
      q: "*",
      filter_by: "tags:=classic",
      sort_by: "year:desc"
    })
    expect(result.found).toBe(2)
    expect(result.out_of).toBe(books.length)
    expect(result.hits?.map((h) => (h.document as Record<string, unknown>)["id"])).toEqual(["2", "1"])
    expect(result.request_params).toEqual({ collection_name: "books", first_q: "*", per_page: 10, q: "*" })
    const text = await client.collections("books").documents().search({ q: "dune", query_by: "title" })
    expect(text.hits?.map((h) => (h.document as Record<string, unknown>)["id"]).sort()).toEqual(["2", "4"])
    await expect(client.collections("books").documents().search({ q: "*", sort_by: "title:asc" })).rejects.toThrow(
      serverSaid(404, "Could not find a field named `title` in the schema for sorting.")
    )
    await expect(client.collections("books").documents().search({ q: "*", per_page: 251 })).rejects.toBeInstanceOf(
      Errors.ObjectUnprocessable
    )
    await expect(client.collections("books").documents().search({ q: "*", filter_by: "nope:1" })).rejects.toThrow(
      serverSaid(404, "Could not find a filter field named `nope` in the schema.")
    )
  })

  it("engine: multi_search puts per-search errors in their slots of a 200 answer", async () => {
    await seedBooks(engine)
    const client = clientFor(engine)
    const answer = await client.multiSearch.perform({
      searches: [
        { collection: "books", q: "*", filter_by: "year:<1950" },
        { collection: "books", q: "*", sort_by: "title:asc" },
        { collection: "missing", q: "*" }
      ]
    })
    const [first, second, third] = answer.results as Array<Record<string, unknown>>
    expect(first?.["found"]).toBe(1)
    expect(second).toEqual({ code: 404, error: "Could not find a field named `title` in the schema for sorting." })
    expect(third).toEqual({ code: 404, error: "Collection not found" })
  })

  it("engine: keys, aliases and operations through the client", async () => {
    await seedBooks(engine)
    const client = clientFor(engine)
    const key = await client.keys().create({
      description: "search",
      actions: ["documents:search"],
      collections: ["books"]
    })
    expect(key.value).toHaveLength(32)
    const listed = await client.keys().retrieve()
    expect(listed.keys[0]).toEqual({
      actions: ["documents:search"],
      autodelete: false,
      collections: ["books"],
      description: "search",
      expires_at: 64723363199,
      id: key.id,
      value_prefix: key.value!.slice(0, 4)
    })
    expect(await client.keys(key.id).delete()).toEqual({ id: key.id })
    await expect(client.keys(key.id).retrieve()).rejects.toThrow(serverSaid(404, "Not found."))
    expect(await client.aliases().upsert("library", { collection_name: "books" })).toEqual({
      collection_name: "books",
      name: "library"
    })
    expect((await client.collections("library").retrieve()).name).toBe("books")
    expect(await client.aliases().retrieve()).toEqual({ aliases: [{ collection_name: "books", name: "library" }] })
    expect(await client.aliases("library").delete()).toEqual({ collection_name: "books", name: "library" })
    expect(await client.health.retrieve()).toEqual({ ok: true })
    expect(await client.debug.retrieve()).toEqual({ state: 1, version: "29.0" })
    expect(await client.operations.perform("cache/clear")).toEqual({ success: true })
    expect(await client.operations.perform("db/compact")).toEqual({ success: true })
    const metrics = (await client.metrics.retrieve()) as unknown as Record<string, unknown>
    expect(Object.values(metrics).every((value) => typeof value === "string")).toBe(true)
    const stats = (await client.stats.retrieve()) as unknown as Record<string, unknown>
    expect(typeof stats["total_requests_per_second"]).toBe("number")
  })

  it("S5-b engine: a wrong key is RequestUnauthorized with the exact message", async () => {
    const client = clientFor(engine, "wrong")
    await expect(client.collections().retrieve()).rejects.toBeInstanceOf(Errors.RequestUnauthorized)
    await expect(client.collections().retrieve()).rejects.toThrow(
      serverSaid(401, "Forbidden - a valid `x-typesense-api-key` header must be sent.")
    )
  })
})
