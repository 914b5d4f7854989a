import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { describeCollection, readPage } from "../../src/search/SearchBrowse.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { clientFor } from "./EngineHelpers.ts"

describe.each([26, 29] as const)("collections as tables on engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection({
      name: "library",
      enable_nested_fields: true,
      fields: [
        { name: "title", type: "string" },
        { name: "year", type: "int32" },
        { name: "scores", type: "int32[]" },
        { name: "author", type: "string", sort: true },
        { name: "meta", type: "object" },
        { name: "meta.pages", type: "int32", optional: true }
      ]
    })
    await engine.importDocuments("library", [
      { id: "b1", title: "Dune", year: 1965, scores: [5, 4], author: "Herbert", meta: { pages: 412, lang: "en" } }
    ])
    await engine.createCollection({ name: "auto", fields: [{ name: ".*", type: "auto" }] })
    await engine.importDocuments("auto", [{ id: "1", color: "red" }])
  })
  afterAll(() => engine.stop())

  it.scoped("S1-a S2.2-a S2.2-b S2.2-c S2.2-d S2.2-f columns from the schema (learned leaves included); values as cells, arrays as JSON text", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const { columns } = yield* describeCollection(client, "library")
      expect(columns.map((c) => [c.name, c.isPrimaryKey, c.isReadOnly, c.isSortable])).toEqual([
        ["id", true, true, false],
        ["author", false, false, true],
        ["meta.lang", false, false, false],
        ["meta.pages", false, false, true],
        ["scores", false, false, false],
        ["title", false, false, false],
        ["year", false, false, true]
      ])
      const page = yield* readPage(client, { collection: "library", columns })
      expect(page.rows).toEqual([["b1", "Herbert", "en", 412, "[5,4]", "Dune", 1965]])
    }))

  it.scoped("S2.2-e learned auto-schema fields become columns once the structure is reloaded", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const before = yield* describeCollection(client, "auto")
      expect(before.columns.map((c) => c.name)).toEqual(["id", "color"])
      yield* Effect.promise(() => engine.importDocuments("auto", [{ id: "2", color: "blue", size: 3 }]))
      const stale = yield* readPage(client, { collection: "auto", columns: before.columns })
      expect(stale.columns.map((c) => c.name)).toEqual(["id", "color"])
      const reloaded = yield* describeCollection(client, "auto")
      expect(reloaded.columns.map((c) => [c.name, c.type, c.isSortable])).toEqual([
        ["id", "string", false],
        ["color", "string", false],
        ["size", "int64", true]
      ])
      const page = yield* readPage(client, {
        collection: "auto",
        columns: reloaded.columns,
        sort: [{ column: "size", direction: "desc" }]
      })
      expect(page.rows).toEqual([["2", "blue", 3], ["1", "red", null]])
    }))
})
