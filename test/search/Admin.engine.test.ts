import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as SearchAdmin from "../../src/search/SearchAdmin.ts"
import { runConsoleInput } from "../../src/search/SearchConsole.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { bookDocuments, books, clientFor } from "./EngineHelpers.ts"

describe.each([26, 29] as const)("console, Users & Roles and dashboard against engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(3))
    await engine.createCollection({ ...books, name: "single" })
    await engine.importDocuments("single", bookDocuments(1))
  })
  afterAll(() => engine.stop())

  const run = (input: string) =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      return yield* runConsoleInput(client, input)
    })

  it.scoped("S4.3-b hits, and a multi_search with a single search, render as a grid of documents", () =>
    Effect.gen(function*() {
      const hits = yield* run("GET /collections/books/documents/search?q=*&per_page=10&sort_by=pages:asc")
      assert.strictEqual(hits._tag, "Grid")
      if (hits._tag !== "Grid") return
      expect(hits.columns).toEqual(["id", "author", "in_stock", "pages", "rating", "tags", "title", "year"])
      expect(hits.rows.map((row) => row[0])).toEqual(["0", "1", "2"])
      expect(hits.rows[0]?.[5]).toBe("[\"classic\"]")
      const single = yield* run(
        "POST /multi_search\n{\"searches\":[{\"collection\":\"books\",\"q\":\"*\",\"sort_by\":\"pages:asc\"}]}"
      )
      expect(single).toEqual(hits)
    }))

  it.scoped("S4.3-d a multi_search of several searches, and other objects, render as one pretty JSON cell", () =>
    Effect.gen(function*() {
      const batch = yield* run(
        "POST /multi_search\n{\"searches\":[{\"collection\":\"books\",\"q\":\"*\"},{\"collection\":\"single\",\"q\":\"*\"}]}"
      )
      assert.strictEqual(batch._tag, "Json")
      if (batch._tag === "Json") expect(JSON.parse(batch.text).results.length).toBe(2)
      const keys = yield* run("GET /keys")
      expect(keys).toEqual({ _tag: "Json", text: "{\n  \"keys\": []\n}" })
      const debug = yield* run("GET /debug")
      expect(debug).toEqual({ _tag: "Json", text: `{\n  "state": 1,\n  "version": "${version}.0"\n}` })
    }))

  it.scoped("S4.3-c S4-d arrays and export JSONL render as grids, export even with one document", () =>
    Effect.gen(function*() {
      const collections = yield* run("GET /collections")
      assert.strictEqual(collections._tag, "Grid")
      if (collections._tag === "Grid") expect(collections.columns).toContain("num_documents")
      const many = yield* run("GET /collections/books/documents/export")
      expect(many._tag === "Grid" && many.rows.length).toBe(3)
      const one = yield* run("GET /collections/single/documents/export")
      assert.strictEqual(one._tag, "Grid")
      if (one._tag === "Grid") {
        expect(one.rows).toEqual([["0", "Author 0", true, 100, 0, "[\"classic\"]", "Book 0", 1900]])
      }
    }))

  it.scoped("S4-c S8-a collections are created and documents imported from the console, one HTTP call each", () =>
    Effect.gen(function*() {
      engine.requests.length = 0
      const created = yield* run(
        "POST /collections\n{\"name\":\"notes\",\"fields\":[{\"name\":\"text\",\"type\":\"string\"}]}"
      )
      assert.strictEqual(created._tag, "Json")
      const imported = yield* run(
        "POST /collections/notes/documents/import\n{\"id\":\"1\",\"text\":\"a\"}\n{\"id\":\"2\",\"text\":\"b\"}"
      )
      expect(imported).toEqual({ _tag: "Grid", columns: ["success"], rows: [[true], [true]] })
      expect(engine.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        "POST /collections",
        "POST /collections/notes/documents/import"
      ])
      expect(engine.requests[1]?.headers["content-type"]).toMatch(/^text\/plain/)
    }))

  it.scoped("S4.3-e S7-f SQL-like input sends nothing; S7-b an engine error shows its message", () =>
    Effect.gen(function*() {
      engine.requests.length = 0
      const sql = yield* Effect.flip(run("DELETE FROM books"))
      expect(sql._tag).toBe("SearchConsoleRefused")
      const away = yield* Effect.flip(run("GET //127.0.0.1:1/collections"))
      expect(away._tag).toBe("SearchConsoleRefused")
      expect(engine.requests).toEqual([])
      const tooMany = yield* Effect.flip(run("GET /collections/books/documents/search?q=*&per_page=251"))
      expect([tooMany._tag, tooMany.message]).toEqual([
        "SearchEngineError",
        "Only upto 250 hits can be fetched per page."
      ])
    }))

  it.scoped("S1-e S2.3-a S2.3-b keys list their reach, a new key's value is shown once, keys can be deleted", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const created = yield* SearchAdmin.createKey(client, {
        description: "search only",
        actions: ["documents:search"],
        collections: ["books"]
      })
      const value = Redacted.value(created.value)
      assert.isTrue(value.length >= 8)
      yield* SearchAdmin.createKey(client, { description: "", actions: ["*"], collections: [] })
      engine.requests.length = 0
      const keys = yield* SearchAdmin.listKeys(client)
      expect(keys.map((k) => [k.name, k.collections, k.serverWide, k.actions])).toEqual([
        [`search only (#${created.key.id})`, ["books"], false, ["documents:search"]],
        [`Key #${keys[1]?.id}`, ["*"], true, ["*"]]
      ])
      expect(keys[0]?.valuePrefix).toBe(value.slice(0, 4))
      assert.notInclude(engine.requests.map((r) => r.body).join(""), value)
      const console = yield* runConsoleInput(client, `GET /keys/${created.key.id}`)
      assert.notInclude(JSON.stringify(console), value)
      yield* SearchAdmin.deleteKey(client, created.key.id)
      expect((yield* SearchAdmin.listKeys(client)).map((k) => k.id)).not.toContain(created.key.id)
      // keys are immutable: there is nothing to edit them with, and no delete-and-recreate emulation
      expect(Object.keys(SearchAdmin).filter((name) => /update|edit|alter|rotate/i.test(name))).toEqual([])
    }))

  it.scoped("S2.4-a S2.4-b S4-a dashboard panels carry the engine's metrics; sessions and slow queries are not available", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      const dashboard = yield* SearchAdmin.readDashboard(client)
      const raw = (path: string) =>
        Effect.promise(() =>
          fetch(`${engine.url}${path}`, { headers: { "x-typesense-api-key": engine.apiKey } })
            .then((r) => r.json() as Promise<Record<string, unknown>>)
        )
      const metrics = yield* raw("/metrics.json")
      const stats = yield* raw("/stats.json")
      // live values (disk, memory) move between two reads, so the mapping is checked on one engine answer
      const mapped = SearchAdmin.dashboardFrom(metrics, stats)
      expect(mapped.disk).toEqual({
        _tag: "Available",
        value: Number(metrics.system_disk_used_bytes),
        unit: "bytes",
        total: Number(metrics.system_disk_total_bytes)
      })
      expect(mapped.memoryFragmentation).toEqual({
        _tag: "Available",
        value: Number(metrics.typesense_memory_fragmentation_ratio),
        unit: "ratio"
      })
      expect(mapped.processMemory).toEqual({
        _tag: "Available",
        value: Number(metrics.typesense_memory_resident_bytes),
        unit: "bytes"
      })
      expect(mapped.requestsPerSecond).toEqual({
        _tag: "Available",
        value: stats.total_requests_per_second,
        unit: "per_second"
      })
      expect(mapped.searchLatency).toEqual({ _tag: "Available", value: stats.search_latency_ms, unit: "ms" })
      expect(mapped.pendingWriteBatches).toEqual({
        _tag: "Available",
        value: stats.pending_write_batches,
        unit: "count"
      })
      expect(dashboard.disk._tag === "Available" && dashboard.disk.total).toBe(Number(metrics.system_disk_total_bytes))
      expect(dashboard.systemMemory._tag === "Available" && dashboard.systemMemory.total).toBe(
        Number(metrics.system_memory_total_bytes)
      )
      for (
        const panel of [
          "processMemory",
          "systemMemory",
          "requestsPerSecond",
          "searchLatency",
          "writeLatency",
          "pendingWriteBatches"
        ] as const
      ) {
        expect([panel, dashboard[panel]._tag]).toEqual([panel, "Available"])
      }
      expect(dashboard.cacheHitRatio._tag).toBe(version >= 29 ? "Available" : "Unavailable")
      expect(dashboard.sessions).toEqual({ _tag: "Unavailable", reason: "not available for this engine" })
      expect(dashboard.slowQueries).toEqual({ _tag: "Unavailable", reason: "not available for this engine" })
    }))
})
