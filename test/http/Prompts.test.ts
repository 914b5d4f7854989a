import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let sampleId: string
let blockedId: string

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(effect as Effect.Effect<A, E, never>)
const post = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  postMcp(server.url, modernRequest(method, params), headers)
const getPrompt = (name: string, args: Record<string, unknown>) => post("prompts/get", { name, arguments: args })
const textOf = (json: any): string => json.result.messages[0].content.text

beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const connections = Context.get(server.context, Connections)
  const [sample] = await run(connections.list)
  sampleId = sample!.id
  blockedId = (await run(
    connections.add({
      name: "Blocked",
      type: "sqlite",
      path: (sample as { path: string }).path,
      externalAccess: "blocked"
    })
  )).id
})
afterAll(() => server.stop())

describe("prompts (D-49)", () => {
  it("C4.4-a prompts/list is 3600000 public and lists the five prompts, identical for every caller", async () => {
    const first = await post("prompts/list")
    expect(first.json.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public", resultType: "complete" })
    expect(first.json.result.prompts.map((prompt: { name: string }) => prompt.name)).toStrictEqual([
      "data_quality_audit",
      "explain_schema",
      "explain_table",
      "question_to_sql",
      "search_collection"
    ])
    const other = await post("prompts/list", {}, { "x-forwarded-for": "10.0.0.9" })
    expect(other.json.result.prompts).toStrictEqual(first.json.result.prompts)
  })

  it("C2.5-b explain_schema renders the live schema of the connection named by id or by name", async () => {
    for (const connection of [sampleId, "sample (sqlite)"]) {
      const { status, json } = await getPrompt("explain_schema", { connection })
      expect(status).toBe(200)
      expect(json.result.messages[0].role).toBe("user")
      const text = textOf(json)
      expect(text).toMatch(/^# Explain the schema of Sample \(SQLite\)/)
      for (const table of ["customers", "orders", "order_items", "products"]) expect(text).toContain(`**${table}**`)
      expect(text).toContain(sampleId)
    }
  })

  it("C2.5-b explain_table, question_to_sql and data_quality_audit are briefs a model can act on", async () => {
    const table = textOf((await getPrompt("explain_table", { connection: sampleId, table: "orders" })).json)
    expect(table).toContain("## Columns")
    expect(table).toMatch(/CREATE TABLE/i)
    expect(table).toContain("SELECT * FROM \"orders\" LIMIT 20;")
    const sql = textOf(
      (await getPrompt("question_to_sql", { connection: sampleId, question: "Who ordered most?" })).json
    )
    expect(sql).toContain("Who ordered most?")
    expect(sql).toMatch(/LIMIT/)
    expect(sql).toContain("execute_query")
    const audit = textOf((await getPrompt("data_quality_audit", { connection: sampleId, table: "order_items" })).json)
    expect(audit).toContain("SELECT COUNT(*) AS row_count FROM \"order_items\";")
    expect(audit).toMatch(/Orphans in/)
  })

  it.each([
    ["unknown prompt", "no_such_prompt", { connection: "x" }],
    ["undeclared argument", "explain_schema", { connection: "Sample (SQLite)", audience: "analyst" }],
    ["missing required argument", "explain_table", { connection: "Sample (SQLite)" }],
    ["empty required argument", "question_to_sql", { connection: "Sample (SQLite)", question: "  " }],
    ["non-string argument", "explain_table", { connection: "Sample (SQLite)", table: 3 }],
    ["unknown connection", "explain_schema", { connection: "nope" }],
    ["table that does not exist", "explain_table", { connection: "Sample (SQLite)", table: "nope" }],
    ["search_collection on a SQL connection", "search_collection", {
      connection: "Sample (SQLite)",
      collection: "orders",
      goal: "g"
    }]
  ])("C7.1-a prompts/get with an %s is 400 -32602", async (_case, name, args) => {
    const { status, json } = await getPrompt(name, args)
    expect(status).toBe(400)
    expect(json.error.code).toBe(-32602)
  })

  it("C5-h prompts/get on a hidden connection is 403 -33007 with data.reason, by id and by name", async () => {
    for (const connection of [blockedId, "Blocked"]) {
      const { status, json } = await getPrompt("explain_schema", { connection })
      expect(status).toBe(403)
      expect(json.error.code).toBe(-33007)
      expect(json.error.data.reason).toBe("external_access_blocked")
    }
  })

  it("C4.2-d Mcp-Name must equal params.name on prompts/get", async () => {
    const { status, json } = await post(
      "prompts/get",
      { name: "explain_schema", arguments: { connection: sampleId } },
      { "mcp-name": "explain_table" }
    )
    expect(status).toBe(400)
    expect(json.error.code).toBe(-32020)
  })

  it("C4.4-a the official 2.4.0 client lists and gets prompts with its strict result checks", async () => {
    const client = new Client({ name: "dbdesk-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      expect((await client.listPrompts()).prompts).toHaveLength(5)
      const prompt = await client.getPrompt({
        name: "explain_table",
        arguments: { connection: sampleId, table: "customers" }
      })
      expect(prompt.messages[0]?.content).toMatchObject({ type: "text" })
    } finally {
      await client.close()
    }
  })
})
