// D-65 on a search-engine connection: the same masking rules on document fields (users.ssn masked,
// *.api_key hidden, a nested users.address.zip masked), in search_documents, browse_table and every console answer that
// carries documents (hits, multi-search batches with their highlights, one document, an export), under an alias too.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import {
  type CorpusServer,
  expectNoSecret,
  LEVELS,
  policyRefusalOf,
  secretForms,
  startCorpusServer
} from "../support/GuardCorpus.ts"

const SSN = ["111-22-3333", "444-55-6666"]
const KEYS = ["key-ann-5b1e90d2", "key-bob-c3a87f14"]
const ZIPS = ["75001-zip", "10115-zip"]
const SECRETS = [...SSN, ...KEYS, ...ZIPS].flatMap(secretForms)

describe("D-65 on a search-engine connection", () => {
  let engine: RunningEngine
  let corpus: CorpusServer
  const id = "search-rules"

  beforeAll(async () => {
    engine = await startEngine({ version: 29 })
    await engine.createCollection({
      name: "users",
      enable_nested_fields: true,
      fields: [{ name: "name", type: "string" }, { name: "ssn", type: "string" }, { name: "api_key", type: "string" }, {
        name: "address",
        type: "object"
      }]
    })
    await engine.importDocuments("users", [
      { id: "1", name: "ann", ssn: SSN[0], api_key: KEYS[0], address: { zip: ZIPS[0], city: "Paris" } },
      { id: "2", name: "bob", ssn: SSN[1], api_key: KEYS[1], address: { zip: ZIPS[1], city: "Berlin" } }
    ])
    const alias = await fetch(`${engine.url}/aliases/people`, {
      method: "PUT",
      headers: { "x-typesense-api-key": engine.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ collection_name: "users" })
    })
    expect(alias.status).toBe(200)
    corpus = await startCorpusServer([{
      id,
      name: "Guarded search",
      type: "search",
      host: engine.host,
      port: engine.port,
      apiKey: engine.apiKey,
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      maskingRules: [{ pattern: "users.ssn", action: "mask" }, { pattern: "*.api_key", action: "hide" }, {
        pattern: "users.address.zip",
        action: "mask"
      }]
    }])
  }, 60_000)

  afterAll(async () => {
    await corpus?.stop()
    await engine?.stop()
  })

  const requests: ReadonlyArray<readonly [string, string]> = [
    ["search hits", "GET /collections/users/documents/search?q=*&query_by=name"],
    ["search through an alias, with highlights", "GET /collections/people/documents/search?q=ann&query_by=name,ssn"],
    ["one document", "GET /collections/users/documents/1"],
    ["export", "GET /collections/users/documents/export"],
    [
      "multi_search, one search",
      "POST /multi_search\n{\"searches\":[{\"collection\":\"users\",\"q\":\"*\",\"query_by\":\"name\"}]}"
    ],
    [
      "multi_search, two searches",
      "POST /multi_search\n{\"searches\":[{\"collection\":\"users\",\"q\":\"*\",\"query_by\":\"name\"},{\"collection\":\"people\",\"q\":\"bob\",\"query_by\":\"name,ssn\"}]}"
    ]
  ]

  describe.each(LEVELS)("%s token", (level) => {
    it.each(requests)("D-65: execute_query %s answers masked documents only", async (what, query) => {
      const answer = await corpus.call(level, "execute_query", { connection_id: id, query })
      expect(answer.json.result.isError, answer.text).toBe(false)
      expectNoSecret(answer.text, SECRETS, what)
      expect(answer.text).toContain("[masked: text, 11 bytes]")
      expect(answer.json.result.structuredContent.columns).not.toContain("api_key")
    })

    it("D-65: search_documents and browse_table mask and hide the same fields, by alias too", async () => {
      for (const collection of ["users", "people"]) {
        const found = await corpus.call(level, "search_documents", { connection_id: id, collection, q: "*" })
        expect(found.json.result.isError, found.text).toBe(false)
        expect(
          found.json.result.structuredContent.hits.map((hit: any) => [hit.id, hit.ssn, hit.address, "api_key" in hit])
            .sort()
        ).toEqual([
          ["1", "[masked: text, 11 bytes]", { zip: "[masked: text, 9 bytes]", city: "Paris" }, false],
          ["2", "[masked: text, 11 bytes]", { zip: "[masked: text, 9 bytes]", city: "Berlin" }, false]
        ])
        expectNoSecret(found.text, SECRETS, `search_documents ${collection}`)
      }
      const browsed = await corpus.call(level, "browse_table", { connection_id: id, table: "users" })
      expect(browsed.json.result.structuredContent.columns).not.toContain("api_key")
      expect(browsed.json.result.structuredContent.rows.flat()).toContain("[masked: text, 11 bytes]")
      expectNoSecret(browsed.text, SECRETS, "browse_table")
    })
  })

  it("D-65: a multi_search whose collection cannot be told is refused, naming the rule", async () => {
    const answer = await corpus.call("readOnly", "execute_query", {
      connection_id: id,
      query: "POST /multi_search\n{\"searches\":[{\"q\":\"*\",\"query_by\":\"name\"}]}"
    })
    expectNoSecret(answer.text, SECRETS, "multi_search without a collection")
    expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "untraceable", setting: "maskingRules" })
  })
})
