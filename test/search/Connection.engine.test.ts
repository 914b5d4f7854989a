import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { searchErrorCode } from "../../src/domain/SearchErrors.ts"
import { readPage } from "../../src/search/SearchBrowse.ts"
import { enginePath } from "../../src/search/SearchClient.ts"
import { connect, engineMajor, listCollections } from "../../src/search/SearchServer.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { books, clientFor } from "./EngineHelpers.ts"

const forbidden = "Forbidden - a valid `x-typesense-api-key` header must be sent."

const createKey = async (engine: RunningEngine, actions: ReadonlyArray<string>, collections: ReadonlyArray<string>) => {
  const response = await fetch(`${engine.url}/keys`, {
    method: "POST",
    headers: { "x-typesense-api-key": engine.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ description: actions.join(" "), actions, collections })
  })
  const created = (await response.json()) as { value: string }
  return created.value
}

describe.each([26, 29] as const)("connecting to engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
    await engine.createCollection(books)
    await engine.createCollection({ name: "a/b", fields: [{ name: "x", type: "string" }] })
    await engine.createCollection({ name: "v1.2", fields: [{ name: "x", type: "string" }] })
    await engine.importDocuments("books", [{
      id: "1",
      title: "Dune",
      year: 1965,
      rating: 4.5,
      pages: 412,
      in_stock: true
    }])
  })
  afterAll(() => engine.stop())

  it.scoped("S9-a S4-a connecting reads the engine version from /debug and lists collections as tables", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      engine.requests.length = 0
      const info = yield* connect(client)
      expect(info.version !== undefined && engineMajor(info.version)).toBe(version)
      expect(info.warnings).toEqual([])
      expect(engine.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /health", "GET /debug"])
      const listing = yield* listCollections(client)
      expect(listing.collections.map((c) => c.name).sort()).toEqual(["a/b", "books", "v1.2"])
      expect(listing.unavailableReason).toBeUndefined()
      expect(engineMajor("0.25.2")).toBe(0)
    }))

  it.scoped("S2.1-b S5-a the key travels on every request as x-typesense-api-key; trace context is forwarded", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      engine.requests.length = 0
      const trace = {
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        tracestate: "a=1",
        baggage: "k=v"
      }
      yield* connect(client, { trace })
      yield* listCollections(client, { trace })
      yield* readPage(client, { collection: "books" }, { trace })
      assert.isTrue(engine.requests.length >= 5)
      for (const request of engine.requests) {
        expect([
          request.headers["x-typesense-api-key"],
          request.headers.traceparent,
          request.headers.tracestate,
          request.headers.baggage
        ])
          .toEqual([engine.apiKey, trace.traceparent, trace.tracestate, trace.baggage])
      }
    }))

  it.scoped("S1-a collection names are percent-encoded per path segment", () =>
    Effect.gen(function*() {
      const client = yield* clientFor(engine)
      engine.requests.length = 0
      expect((yield* client.getCollection("a/b")).name).toBe("a/b")
      expect((yield* client.getCollection("v1.2")).name).toBe("v1.2")
      expect(engine.requests.map((r) => r.path)).toEqual(["/collections/a%2Fb", "/collections/v1%2E2"])
      expect(enginePath("collections", "a?x y", "documents", "1")).toBe("/collections/a%3Fx%20y/documents/1")
    }))

  it.scoped("S5-b a missing or wrong key surfaces the engine's Forbidden message", () =>
    Effect.gen(function*() {
      for (const apiKey of ["", "wrong-key"]) {
        const client = yield* clientFor(engine, { apiKey })
        const error = yield* Effect.flip(readPage(client, { collection: "books" }))
        expect([error._tag, error.message]).toEqual(["SearchEngineError", forbidden])
        if (error._tag === "SearchEngineError") expect(searchErrorCode(error)).toBe("denied")
      }
      engine.requests.length = 0
      const keyless = yield* clientFor(engine, { apiKey: "" })
      yield* Effect.flip(keyless.getCollection("books"))
      expect(engine.requests[0]?.headers["x-typesense-api-key"]).toBeUndefined()
    }))

  it.scoped("S2.1-c a key without collections:list connects and lists nothing, with the reason", () =>
    Effect.gen(function*() {
      const searchOnly = yield* Effect.promise(() => createKey(engine, ["documents:search"], ["*"]))
      const client = yield* clientFor(engine, { apiKey: searchOnly })
      const info = yield* connect(client)
      expect(info.version).toBeUndefined()
      expect(info.warnings[0]).toContain(forbidden)
      const listing = yield* listCollections(client)
      expect(listing.collections).toEqual([])
      expect(listing.unavailableReason).toContain(forbidden)
      expect(listing.unavailableReason).toContain("collections:list")
      const page = yield* readPage(client, {
        collection: "books",
        columns: [{
          name: "id",
          type: "string",
          isPrimaryKey: true,
          isReadOnly: true,
          isNullable: false,
          isSortable: false,
          isFacet: false
        }]
      })
      expect(page.rows).toEqual([["1"]])

      const all = yield* Effect.promise(() => createKey(engine, ["collections:*", "documents:*"], ["*"]))
      const listed = yield* listCollections(yield* clientFor(engine, { apiKey: all }))
      expect(listed.collections.length).toBe(3)
    }))
})

describe("requests are interruptible", () => {
  it.live("interrupting the caller aborts the HTTP request", () =>
    Effect.gen(function*() {
      const received = yield* Deferred.make<void>()
      const closed = yield* Deferred.make<void>()
      const server = createServer((request) => {
        request.on("close", () => Deferred.unsafeDone(closed, Effect.void))
        Deferred.unsafeDone(received, Effect.void)
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () => Effect.sync(() => server.close())
      )
      const port = (server.address() as AddressInfo).port
      const fake = { host: "127.0.0.1", port, url: `http://127.0.0.1:${port}`, apiKey: "k" } as RunningEngine
      const client = yield* clientFor(fake)
      const fiber = yield* Effect.fork(client.send("GET", "/collections"))
      yield* Deferred.await(received)
      // Forked, so a request that ignores the interruption fails the assertion below instead of hanging the test.
      const interrupted = yield* Effect.fork(Fiber.interrupt(fiber))
      const engineSaw = yield* Deferred.await(closed).pipe(
        Effect.as("closed" as const),
        Effect.timeoutTo({
          duration: "10 seconds",
          onSuccess: (outcome) => outcome,
          onTimeout: () => "still open" as const
        })
      )
      expect(
        engineSaw,
        "doc 2 / D-15: an interrupted search request must abort its HTTP request (the engine saw no close within 10 s)"
      ).toBe("closed")
      const exit = yield* Fiber.join(interrupted)
      expect(Exit.isInterrupted(exit)).toBe(true)
    }).pipe(Effect.scoped))

  it.scoped("an engine that is not there is a transport error (not_connected)", () =>
    Effect.gen(function*() {
      const gone = { host: "127.0.0.1", port: 1, url: "http://127.0.0.1:1", apiKey: "k" } as RunningEngine
      const client = yield* clientFor(gone)
      const error = yield* Effect.flip(connect(client))
      assert.strictEqual(error._tag, "SearchEngineError")
      if (error._tag !== "SearchEngineError") return
      expect(error.reason).toBe("Transport")
      expect(error.message).toMatch(/^Could not reach Typesense at http:\/\/127\.0\.0\.1:1: /)
      expect(searchErrorCode(error)).toBe("not_connected")
    }))
})
