import { it as effectIt } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect, FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { MAX_COMPLETIONS, rankCompletions } from "../../src/services/resources/Completions.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let sampleId: string
let blockedId: string

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(effect as Effect.Effect<A, E, never>)
const complete = (params: Record<string, unknown>) => postMcp(server.url, modernRequest("completion/complete", params))

beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const connections = Context.get(server.context, Connections)
  const [sample] = await run(connections.list)
  sampleId = sample!.id
  const path = (sample as { path: string }).path
  blockedId = (await run(connections.add({ name: "Blocked", type: "sqlite", path, externalAccess: "blocked" }))).id
  for (let index = 0; index < 120; index++) {
    await run(connections.add({ name: `Warehouse ${index}`, type: "sqlite", path, aiPolicy: "alwaysAllow" }))
  }
})
afterAll(() => server.stop())

describe("completion/complete (D-49)", () => {
  effectIt.prop(
    "C2.5-b ranking: prefix matches first, then substring, all containing the text, at most 100, total counts all",
    [
      FastCheck.array(FastCheck.string({ maxLength: 6 }), { maxLength: 250 }),
      FastCheck.string({ maxLength: 2 })
    ],
    ([candidates, typed]) => {
      const result = rankCompletions(candidates, typed)
      const matching = new Set(candidates.filter((value) => value.toLowerCase().includes(typed.toLowerCase())))
      expect(result.total).toBe(matching.size)
      expect(result.values.length).toBe(Math.min(MAX_COMPLETIONS, matching.size))
      expect(result.hasMore).toBe(matching.size > MAX_COMPLETIONS)
      const isPrefix = result.values.map((value) => value.toLowerCase().startsWith(typed.toLowerCase()))
      expect(isPrefix.indexOf(false) === -1 || isPrefix.lastIndexOf(true) < isPrefix.indexOf(false)).toBe(true)
      for (const value of result.values) expect(matching.has(value)).toBe(true)
    }
  )

  it("C2.5-b prompt argument connection: names and ids of visible connections, capped at 100 with total and hasMore", async () => {
    const { status, json } = await complete({
      ref: { type: "ref/prompt", name: "explain_schema" },
      argument: { name: "connection", value: "ware" }
    })
    expect(status).toBe(200)
    expect(json.result.completion.values).toHaveLength(100)
    expect(json.result.completion.total).toBe(120)
    expect(json.result.completion.hasMore).toBe(true)
    expect(json.result.completion.values.slice(0, 3)).toStrictEqual(["Warehouse 0", "Warehouse 1", "Warehouse 2"])
    const hidden = await complete({
      ref: { type: "ref/prompt", name: "explain_schema" },
      argument: { name: "connection", value: "Bl" }
    })
    expect(hidden.json.result.completion.values).toStrictEqual([])
  })

  it("C2.5-b prompt argument table and template variable table complete from the referenced connection; prefix first", async () => {
    const prompt = await complete({
      ref: { type: "ref/prompt", name: "explain_table" },
      argument: { name: "table", value: "order" },
      context: { arguments: { connection: "Sample (SQLite)" } }
    })
    expect(prompt.json.result.completion.values).toStrictEqual(["order_items", "orders"])
    const template = await complete({
      ref: { type: "ref/resource", uri: "dbdesk://connections/{connection_id}/tables/{table}" },
      argument: { name: "table", value: "s" },
      context: { arguments: { connection_id: sampleId } }
    })
    expect(template.json.result.completion.values).toEqual(expect.arrayContaining(["customers", "orders", "products"]))
    const limit = await complete({
      ref: { type: "ref/resource", uri: "dbdesk://connections/{connection_id}/history{?limit}" },
      argument: { name: "limit", value: "" }
    })
    expect(limit.json.result.completion.values).toStrictEqual(["10", "50", "100", "500"])
  })

  it("C5-h C7.1-a an unknown argument completes to nothing; unknown prompts and templates are -32602; a hidden connection is -33007", async () => {
    const unknownArgument = await complete({
      ref: { type: "ref/prompt", name: "explain_table" },
      argument: { name: "colour", value: "" }
    })
    expect(unknownArgument.json.result.completion).toStrictEqual({ values: [], total: 0, hasMore: false })
    const unknownPrompt = await complete({
      ref: { type: "ref/prompt", name: "nope" },
      argument: { name: "connection", value: "" }
    })
    expect([unknownPrompt.status, unknownPrompt.json.error.code]).toStrictEqual([400, -32602])
    const unknownTemplate = await complete({
      ref: { type: "ref/resource", uri: "dbdesk://x/{y}" },
      argument: { name: "y", value: "" }
    })
    expect([unknownTemplate.status, unknownTemplate.json.error.code]).toStrictEqual([400, -32602])
    const hidden = await complete({
      ref: { type: "ref/prompt", name: "explain_table" },
      argument: { name: "table", value: "" },
      context: { arguments: { connection: blockedId } }
    })
    expect([hidden.status, hidden.json.error.code, hidden.json.error.data.reason]).toStrictEqual([
      403,
      -33007,
      "external_access_blocked"
    ])
  })

  it("C4.5-a resources/list pages 50 at a time through 120+ connections; the official client walks every page", async () => {
    const first = await postMcp(server.url, modernRequest("resources/list"))
    expect(first.json.result.resources).toHaveLength(50)
    expect(typeof first.json.result.nextCursor).toBe("string")
    const client = new Client({ name: "dbdesk-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      const all = await client.listResources()
      expect(all.resources).toHaveLength(1 + 121 * 3)
      expect(new Set(all.resources.map((resource) => resource.uri)).size).toBe(all.resources.length)
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "explain_table" },
        argument: { name: "table", value: "cust" },
        context: { arguments: { connection: sampleId } }
      })
      expect(completion.completion.values).toStrictEqual(["customers"])
    } finally {
      await client.close()
    }
  })
})
