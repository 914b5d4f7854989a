import { Agent } from "node:https"
import { Client, Errors } from "typesense"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { clientFor, rawRequest } from "./EngineFixtures.ts"

const FORBIDDEN = "{\"message\": \"Forbidden - a valid `x-typesense-api-key` header must be sent.\"}"

const createKey = async (engine: RunningEngine, body: object): Promise<string> => {
  const answer = await rawRequest(engine, "POST", "/keys", body)
  expect(answer.status).toBe(201)
  return (JSON.parse(answer.body) as { value: string }).value
}

describe("engine: scoped API keys (reference §5)", () => {
  let engine: RunningEngine
  beforeEach(async () => {
    engine = await startEngine()
    for (const name of ["books_2026", "orders"]) {
      await engine.createCollection({ name, fields: [{ name: "title", type: "string" }] })
      await engine.importDocuments(name, [{ id: "1", title: `${name} one` }])
    }
  })
  afterEach(() => engine.stop())

  it("S5-b a documents:search key on books.* searches books_2026 and is refused on orders and GET /keys", async () => {
    const key = await createKey(engine, {
      description: "search",
      actions: ["documents:search"],
      collections: ["books.*"]
    })
    const allowed = await rawRequest(engine, "GET", "/collections/books_2026/documents/search?q=*", undefined, key)
    expect(allowed.status).toBe(200)
    expect((JSON.parse(allowed.body) as { found: number }).found).toBe(1)
    const orders = await rawRequest(engine, "GET", "/collections/orders/documents/search?q=*", undefined, key)
    expect({ status: orders.status, body: orders.body }).toEqual({ status: 401, body: FORBIDDEN })
    const keys = await rawRequest(engine, "GET", "/keys", undefined, key)
    expect({ status: keys.status, body: keys.body }).toEqual({ status: 401, body: FORBIDDEN })
    await expect(clientFor(engine, key).collections("orders").documents().search({ q: "*" })).rejects.toBeInstanceOf(
      Errors.RequestUnauthorized
    )
  })

  it("S5-b multi_search is refused as a whole when one search's collection is not allowed", async () => {
    const key = await createKey(engine, { description: "s", actions: ["documents:search"], collections: ["books.*"] })
    const searches = (names: Array<string>) => ({ searches: names.map((collection) => ({ collection, q: "*" })) })
    expect((await rawRequest(engine, "POST", "/multi_search", searches(["books_2026"]), key)).status).toBe(200)
    const mixed = await rawRequest(engine, "POST", "/multi_search", searches(["books_2026", "orders"]), key)
    expect({ status: mixed.status, body: mixed.body }).toEqual({ status: 401, body: FORBIDDEN })
  })

  it("S2.1-c a key lacking collections:list is refused the listing; collections:* lists what its collections allow", async () => {
    const searchOnly = await createKey(engine, { description: "s", actions: ["documents:search"], collections: ["*"] })
    expect((await rawRequest(engine, "GET", "/collections", undefined, searchOnly)).status).toBe(401)
    const lister = await createKey(engine, { description: "l", actions: ["collections:*"], collections: ["books_.*"] })
    const listed = await rawRequest(engine, "GET", "/collections", undefined, lister)
    expect((JSON.parse(listed.body) as Array<{ name: string }>).map((c) => c.name)).toEqual(["books_2026"])
    const all = await createKey(engine, { description: "a", actions: ["collections:list"], collections: ["*"] })
    const everything = await rawRequest(engine, "GET", "/collections", undefined, all)
    expect((JSON.parse(everything.body) as Array<{ name: string }>).map((c) => c.name)).toEqual([
      "orders",
      "books_2026"
    ])
  })

  it("engine: action matching accepts `*`, the exact action and `<resource>:*` only", async () => {
    const cases: ReadonlyArray<[Array<string>, string, number]> = [
      [["*"], "/collections/orders/documents/1", 200],
      [["documents:get"], "/collections/orders/documents/1", 200],
      [["documents:*"], "/collections/orders/documents/1", 200],
      [["documents:search"], "/collections/orders/documents/1", 401],
      [["collections:*"], "/collections/orders/documents/1", 401],
      [["debug:list"], "/debug", 200],
      [["metrics.json:list"], "/metrics.json", 200],
      [["metrics.json:list"], "/stats.json", 401]
    ]
    for (const [actions, path, status] of cases) {
      const key = await createKey(engine, { description: "k", actions, collections: ["*"] })
      expect([actions, path, (await rawRequest(engine, "GET", path, undefined, key)).status]).toEqual([
        actions,
        path,
        status
      ])
    }
  })

  it("engine: collection matching is `*`, exact or a full-match regex; an invalid regex matches nothing", async () => {
    const cases: ReadonlyArray<[string, number]> = [["orders", 200], ["order", 401], ["ord.*", 200], ["rders", 401], [
      "(",
      401
    ]]
    for (const [entry, status] of cases) {
      const key = await createKey(engine, { description: "k", actions: ["documents:get"], collections: [entry] })
      const answer = await rawRequest(engine, "GET", "/collections/orders/documents/1", undefined, key)
      expect([entry, answer.status]).toEqual([entry, status])
    }
  })

  it("engine: an expired key (expires_at 0) and an unknown key are refused; the query parameter carries a key", async () => {
    const expired = await createKey(engine, { description: "e", actions: ["*"], collections: ["*"], expires_at: 0 })
    expect((await rawRequest(engine, "GET", "/debug", undefined, expired)).body).toBe(FORBIDDEN)
    expect((await rawRequest(engine, "GET", "/debug", undefined, "nope")).status).toBe(401)
    const viaQuery = await rawRequest(engine, "GET", `/debug?x-typesense-api-key=${engine.apiKey}`, undefined, null)
    expect(viaQuery.status).toBe(200)
    expect((await rawRequest(engine, "GET", "/health", undefined, null)).body).toBe("{\"ok\":true}")
  })

  it("engine: keys list in store order (ids compared as strings) with a 4-char value_prefix, 409 on a value conflict", async () => {
    for (let i = 0; i < 11; i++) {
      await createKey(engine, { description: `k${i}`, actions: ["*"], collections: ["*"], value: `value-${i}` })
    }
    const listed = JSON.parse((await rawRequest(engine, "GET", "/keys")).body) as {
      keys: Array<{ id: number; value_prefix: string }>
    }
    expect(listed.keys.map((k) => k.id)).toEqual([0, 1, 10, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(listed.keys[0]?.value_prefix).toBe("valu")
    const conflict = await rawRequest(engine, "POST", "/keys", {
      description: "d",
      actions: ["*"],
      collections: ["*"],
      value: "value-3"
    })
    expect({ status: conflict.status, body: conflict.body }).toEqual({
      status: 409,
      body: "{\"message\": \"API key generation conflict.\"}"
    })
  })

  it("engine: creating a collection checks the body's name against the key's collections", async () => {
    const key = await createKey(engine, {
      description: "c",
      actions: ["collections:create"],
      collections: ["books_.*"]
    })
    const schema = (name: string) => ({ name, fields: [{ name: "t", type: "string" }] })
    expect((await rawRequest(engine, "POST", "/collections", schema("books_2027"), key)).status).toBe(201)
    expect((await rawRequest(engine, "POST", "/collections", schema("invoices"), key)).status).toBe(401)
  })
})

describe("engine: aliases resolve on collection routes (reference §1.5)", () => {
  it("engine: an alias answers every collection-scoped route; a real collection name wins over an alias", async () => {
    const engine = await startEngine()
    try {
      await engine.createCollection({ name: "books_v2", fields: [{ name: "title", type: "string" }] })
      await engine.createCollection({ name: "other", fields: [{ name: "title", type: "string" }] })
      await rawRequest(engine, "PUT", "/aliases/books", { collection_name: "books_v2" })
      expect((await rawRequest(engine, "POST", "/collections/books/documents", { id: "a", title: "x" })).status).toBe(
        201
      )
      expect((await rawRequest(engine, "GET", "/collections/books/documents/a")).body).toBe(
        "{\"id\":\"a\",\"title\":\"x\"}"
      )
      expect((await rawRequest(engine, "GET", "/collections/books/documents/export")).body).toBe(
        "{\"id\":\"a\",\"title\":\"x\"}"
      )
      const found = await rawRequest(engine, "GET", "/collections/books/documents/search?q=*")
      expect(JSON.parse(found.body)).toMatchObject({ found: 1, request_params: { collection_name: "books_v2" } })
      await rawRequest(engine, "PUT", "/aliases/other", { collection_name: "books_v2" })
      expect(JSON.parse((await rawRequest(engine, "GET", "/collections/other")).body)).toMatchObject({ name: "other" })
      const unvalidated = await rawRequest(engine, "PUT", "/aliases/ghost", { collection_name: "nowhere", extra: 1 })
      expect(unvalidated.body).toBe("{\"collection_name\":\"nowhere\",\"extra\":1,\"name\":\"ghost\"}")
    } finally {
      await engine.stop()
    }
  })
})

describe("engine: HTTPS mode with a self-signed certificate", () => {
  it("S2.1-a an HTTPS engine is reachable by a client that trusts nothing only when verification is skipped", async () => {
    const engine = await startEngine({ https: true })
    try {
      expect(engine.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      await expect(clientFor(engine).health.retrieve()).rejects.toThrow(/self[- ]signed/i)
      const trustingClient = new Client({
        nodes: [{ host: engine.host, port: engine.port, protocol: "https" }],
        apiKey: engine.apiKey,
        numRetries: 0,
        logLevel: "silent",
        httpsAgent: new Agent({ rejectUnauthorized: false })
      })
      expect(await trustingClient.debug.retrieve()).toEqual({ state: 1, version: "29.0" })
    } finally {
      await engine.stop()
    }
  })
})
