import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { describeCollection } from "../../src/search/SearchBrowse.ts"
import {
  changedCells,
  deleteDocument,
  insertDocument,
  typeCellValue,
  updateDocument
} from "../../src/search/SearchEdits.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { books, clientFor } from "./EngineHelpers.ts"

describe("value typing", () => {
  it("S4-e values are typed from the schema: int32 numbers, bool true/false, arrays and objects parsed JSON", () => {
    expect(typeCellValue("1965", "int32")).toBe(1965)
    expect(typeCellValue("1965.5", "int32")).toBe(1965.5)
    expect(typeCellValue("9007199254740993", "int64")).toBe("9007199254740993")
    expect(typeCellValue("2.5", "float")).toBe(2.5)
    expect(typeCellValue("TRUE", "bool")).toBe(true)
    expect(typeCellValue("no", "bool")).toBe("no")
    expect(typeCellValue("[\"a\",\"b\"]", "string[]")).toEqual(["a", "b"])
    expect(typeCellValue("{\"pages\":3}", "object")).toEqual({ pages: 3 })
    expect(typeCellValue("not json", "object")).toBe("not json")
    expect(typeCellValue("12", "string")).toBe("12")
    expect(typeCellValue(null, "int32")).toBeNull()
    expect(typeCellValue(7, "int32")).toBe(7)
    expect(changedCells({ a: 1, b: "x", c: [1] }, { a: 1, b: "y", c: [1] })).toEqual({ b: "y" })
  })
})

describe.each([26, 29] as const)("grid edits against engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection(books)
    await engine.importDocuments("books", [
      { id: "dune", title: "Dune", year: 1965, rating: 4.5, pages: 412, in_stock: true, tags: ["sf"] }
    ])
  })
  afterAll(() => engine.stop())

  const setup = Effect.gen(function*() {
    const client = yield* clientFor(engine)
    const { columns } = yield* describeCollection(client, "books")
    engine.requests.length = 0
    return { client, columns }
  })

  it.scoped("S4-e S8-a an insert is one POST of typed values; a blank id is left to the engine", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* setup
      const stored = yield* insertDocument(client, "books", {
        id: " ",
        title: "Neuromancer",
        year: "1984",
        rating: "4",
        pages: "271",
        in_stock: "false",
        tags: "[\"cyber\",\"sf\"]",
        author: null
      }, columns)
      expect(engine.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /collections/books/documents"])
      expect(JSON.parse(engine.requests[0]?.body ?? "")).toEqual({
        title: "Neuromancer",
        year: 1984,
        rating: 4,
        pages: 271,
        in_stock: false,
        tags: ["cyber", "sf"]
      })
      assert.isString(stored.id)
      expect(stored.year).toBe(1984)
    }))

  it.scoped("S4-e S8-a an update PATCHes only the changed cells, one call per row", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* setup
      const original = { id: "dune", title: "Dune", year: 1965, pages: 412 }
      const edited = { id: "dune", title: "Dune", year: "1966", pages: 412 }
      const merged = yield* updateDocument(client, "books", "dune", changedCells(original, edited), columns)
      expect(engine.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        ["PATCH", "/collections/books/documents/dune", "{\"year\":1966}"]
      ])
      expect([merged.year, merged.title]).toEqual([1966, "Dune"])
    }))

  it.scoped("S7-d a decimal into an int32 column surfaces the engine's message", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* setup
      const error = yield* Effect.flip(updateDocument(client, "books", "dune", { year: "1965.5" }, columns))
      expect([error._tag, error.message]).toEqual(["SearchEngineError", "Field `year` must be an int32."])
    }))

  it.scoped("S2.2-b the id is read-only: a change to it is refused before any request", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* setup
      const error = yield* Effect.flip(updateDocument(client, "books", "dune", { id: "2", title: "x" }, columns))
      expect(error._tag).toBe("SearchEditRefused")
      expect(engine.requests).toEqual([])
    }))

  it.scoped("a document id . or .. is refused before sending, so the URL standard never turns it into another resource", () =>
    Effect.gen(function*() {
      const { client, columns } = yield* setup
      for (const id of ["..", "."]) {
        const deleted = yield* Effect.flip(deleteDocument(client, "books", id))
        expect(deleted._tag).toBe("SearchPathRefused")
        const updated = yield* Effect.flip(updateDocument(client, "books", id, { title: "x" }, columns))
        expect(updated._tag).toBe("SearchPathRefused")
      }
      const console = yield* Effect.flip(client.send("DELETE", "/collections/books/documents/%2e%2E"))
      expect(console._tag).toBe("SearchPathRefused")
      expect(engine.requests).toEqual([])
      expect((yield* client.getCollection("books")).name).toBe("books")
    }))

  it.scoped("S8-a a delete is one DELETE keyed by the document id", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      yield* insertDocument(
        client,
        "books",
        { id: "a/b", title: "T", year: 1, rating: 1, pages: 1, in_stock: true },
        []
      )
      yield* deleteDocument(client, "books", "a/b")
      expect(engine.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        "POST /collections/books/documents",
        "DELETE /collections/books/documents/a%2Fb"
      ])
      const again = yield* Effect.flip(deleteDocument(client, "books", "a/b"))
      expect([again.message, again._tag === "SearchEngineError" && again.status]).toEqual([
        "Could not find a document with id: a/b",
        404
      ])
    }))
})
