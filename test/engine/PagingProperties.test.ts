import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { rawRequest } from "./EngineFixtures.ts"

interface Hit {
  readonly document: { readonly id: string }
}
interface SearchResult {
  readonly found: number
  readonly hits: ReadonlyArray<Hit>
}

const docArb = (id: string) =>
  fc.record({ n: fc.integer({ min: 0, max: 3 }), s: fc.constantFrom("a", "B", "c"), flag: fc.boolean() }, {
    requiredKeys: []
  })
    .map((fields) => ({ id, ...fields }))
const docsArb = fc.integer({ min: 0, max: 30 }).chain((size) =>
  fc.tuple(...Array.from({ length: size }, (_, i) => docArb(`d${i}`)))
)
const sortArb = fc
  .uniqueArray(fc.constantFrom("n", "s", "flag", "_seq_id"), { maxLength: 3 })
  .chain((fields) => fc.tuple(...fields.map((f) => fc.constantFrom(`${f}:asc`, `${f}:desc`))))
  .map((entries) => entries.join(","))

describe("engine: paging property", () => {
  let engine: RunningEngine
  let round = 0
  beforeAll(async () => {
    engine = await startEngine()
  })
  afterAll(() => engine.stop())

  it("engine: paging through any sort order with offset/limit returns every document exactly once, in the full order", async () => {
    await fc.assert(
      fc.asyncProperty(docsArb, sortArb, fc.integer({ min: 1, max: 7 }), async (docs, sortBy, limit) => {
        const name = `p${round++}`
        await engine.createCollection({
          name,
          fields: [
            { name: "n", type: "int32", optional: true },
            { name: "s", type: "string", sort: true, optional: true },
            { name: "flag", type: "bool", optional: true }
          ]
        })
        await engine.importDocuments(name, docs)
        const searchAt = async (offset: number, size: number): Promise<SearchResult> => {
          const body = {
            searches: [{ collection: name, q: "*", offset, limit: size, ...(sortBy === "" ? {} : { sort_by: sortBy }) }]
          }
          const answer = await rawRequest(engine, "POST", "/multi_search", body)
          return (JSON.parse(answer.body) as { results: Array<SearchResult> }).results[0]!
        }
        const full = (await searchAt(0, 250)).hits.map((h) => h.document.id)
        const paged: Array<string> = []
        for (let offset = 0;; offset += limit) {
          const page = await searchAt(offset, limit)
          expect(page.found).toBe(docs.length)
          paged.push(...page.hits.map((h) => h.document.id))
          if (page.hits.length < limit) break
        }
        expect(paged).toEqual(full)
        expect([...paged].sort()).toEqual(docs.map((d) => d.id).sort())
        await rawRequest(engine, "DELETE", `/collections/${name}`)
      }),
      { numRuns: 100 }
    )
  })
})
