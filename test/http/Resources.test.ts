import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { QueryHistory } from "../../src/services/QueryHistory.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let sampleId: string
let blockedId: string
let neverId: string

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(effect as Effect.Effect<A, E, never>)
const post = (method: string, params: Record<string, unknown> = {}) =>
  postMcp(server.url, modernRequest(method, params))
const read = (uri: string) => post("resources/read", { uri })

beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const connections = Context.get(server.context, Connections)
  const all = await run(connections.list)
  sampleId = all[0]!.id
  const samplePath = (all[0] as { path: string }).path
  blockedId =
    (await run(connections.add({ name: "Blocked", type: "sqlite", path: samplePath, externalAccess: "blocked" }))).id
  neverId = (await run(connections.add({ name: "Never", type: "sqlite", path: samplePath, aiPolicy: "never" }))).id
})
afterAll(() => server.stop())

describe("resources (D-47)", () => {
  it("C4.4-a resources/list is 30000 private and lists connections plus schema, tables and history per visible connection", async () => {
    const { status, json } = await post("resources/list")
    expect(status).toBe(200)
    expect(json.result).toMatchObject({ ttlMs: 30_000, cacheScope: "private", resultType: "complete" })
    const uris = json.result.resources.map((resource: { uri: string }) => resource.uri)
    expect(uris).toStrictEqual([
      "dbdesk://connections",
      `dbdesk://connections/${sampleId}/schema`,
      `dbdesk://connections/${sampleId}/tables`,
      `dbdesk://connections/${sampleId}/history`
    ])
    expect(uris.join(" ")).not.toContain(blockedId)
    expect(uris.join(" ")).not.toContain(neverId)
    for (const resource of json.result.resources) expect(resource.mimeType).toBe("application/json")
  })

  it("C4.4-a resources/templates/list is 3600000 public and lists the five templates", async () => {
    const { json } = await post("resources/templates/list")
    expect(json.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" })
    expect(json.result.resourceTemplates.map((template: { uriTemplate: string }) => template.uriTemplate))
      .toStrictEqual([
        "dbdesk://connections/{connection_id}/schema",
        "dbdesk://connections/{connection_id}/tables",
        "dbdesk://connections/{connection_id}/tables/{table}",
        "dbdesk://connections/{connection_id}/tables/{table}/ddl",
        "dbdesk://connections/{connection_id}/history{?limit}"
      ])
  })

  it.each([
    ["connections", () => "dbdesk://connections", 15_000],
    ["schema", () => `dbdesk://connections/${sampleId}/schema`, 60_000],
    ["tables", () => `dbdesk://connections/${sampleId}/tables`, 60_000],
    ["table", () => `dbdesk://connections/${sampleId}/tables/orders`, 60_000],
    ["ddl", () => `dbdesk://connections/${sampleId}/tables/orders/ddl`, 300_000],
    ["history", () => `dbdesk://connections/${sampleId}/history?limit=5`, 5_000]
  ])("C4.4-a resources/read of %s carries its own TTL, private, application/json", async (_kind, uri, ttl) => {
    const { status, json } = await read(uri())
    expect(status).toBe(200)
    expect(json.result).toMatchObject({ ttlMs: ttl, cacheScope: "private", resultType: "complete" })
    expect(json.result.contents).toHaveLength(1)
    expect(json.result.contents[0]).toMatchObject({ uri: uri(), mimeType: "application/json" })
    expect(typeof JSON.parse(json.result.contents[0].text)).toBe("object")
  })

  it("C4.4-a resources/read mirrors the tools: connections, tables, describe_table, get_table_ddl and the schema", async () => {
    const payload = async (uri: string) => JSON.parse((await read(uri)).json.result.contents[0].text)
    const connections = await payload("dbdesk://connections")
    expect(connections.connections.map((item: { id: string }) => item.id)).toStrictEqual([sampleId])
    const tables = await payload(`dbdesk://connections/${sampleId}/tables`)
    expect(tables.tables.map((table: { name: string }) => table.name)).toEqual(
      expect.arrayContaining(["customers", "orders", "order_items", "products"])
    )
    const orders = await payload(`dbdesk://connections/${sampleId}/tables/orders`)
    expect(orders.table).toBe("orders")
    expect(orders.columns.some((column: { is_primary_key: boolean }) => column.is_primary_key)).toBe(true)
    const ddl = await payload(`dbdesk://connections/${sampleId}/tables/orders/ddl`)
    expect(ddl.ddl).toMatch(/CREATE TABLE/i)
    const schema = await payload(`dbdesk://connections/${sampleId}/schema`)
    expect(schema.total_tables).toBe(schema.tables.length)
    expect(schema.truncated).toBeUndefined()
    expect(schema.tables.find((table: { name: string }) => table.name === "orders").columns.length).toBeGreaterThan(1)
  })

  it("C4.4-a the history resource serves what QueryHistory recorded, newest first, honouring ?limit", async () => {
    const history = Context.get(server.context, QueryHistory)
    for (const text of ["SELECT 1", "SELECT 2", "SELECT 3"]) {
      await run(
        history.record({ connectionId: sampleId, text, durationMs: 4, rowCount: 1, outcome: "success", source: "mcp" })
      )
    }
    const { json } = await read(`dbdesk://connections/${sampleId}/history?limit=2`)
    const payload = JSON.parse(json.result.contents[0].text)
    expect(payload.history.map((entry: { query: string }) => entry.query)).toStrictEqual(["SELECT 3", "SELECT 2"])
    expect(payload.history[0]).toMatchObject({ execution_time_ms: 4, row_count: 1, outcome: "success", source: "mcp" })
  })

  it.each([
    ["blocked", () => blockedId, "external_access_blocked"],
    ["AI policy never", () => neverId, "ai_policy_never"]
  ])(
    "C5-h a %s connection is refused 403 -33007 with data.reason on every per-connection resource",
    async (_name, id, reason) => {
      for (const suffix of ["schema", "tables", "tables/orders", "tables/orders/ddl", "history"]) {
        const { status, json } = await read(`dbdesk://connections/${id()}/${suffix}`)
        expect(status).toBe(403)
        expect(json.error.code).toBe(-33007)
        expect(json.error.data.reason).toBe(reason)
      }
    }
  )

  it.each([
    () => "dbdesk://nothing",
    () => "dbdesk://connections/00000000-0000-0000-0000-000000000000/schema",
    () => `dbdesk://connections/${sampleId}/tables/no_such_table`,
    () => `dbdesk://connections/${sampleId}/tables/no_such_table/ddl`,
    () => `dbdesk://connections/${sampleId}/views`,
    () => `dbdesk://connections/${sampleId}/history?limit=0`,
    () => `dbdesk://connections/${sampleId}/schema?x=1`
  ])("C7.1-b a resource that does not exist is 400 -32602 (%#)", async (uri) => {
    const { status, json } = await read(uri())
    expect(status).toBe(400)
    expect(json.error.code).toBe(-32602)
  })

  it("C4.2-d Mcp-Name must equal params.uri on resources/read", async () => {
    const { status, json } = await postMcp(
      server.url,
      modernRequest("resources/read", { uri: "dbdesk://connections" }),
      { "mcp-name": "dbdesk://other" }
    )
    expect(status).toBe(400)
    expect(json.error.code).toBe(-32020)
  })

  it("C4.4-a the official 2.4.0 client lists, reads and lists templates with its strict result checks", async () => {
    const client = new Client({ name: "dbdesk-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      const listed = await client.listResources()
      expect(listed.resources.map((resource) => resource.uri)).toContain(`dbdesk://connections/${sampleId}/schema`)
      const templates = await client.listResourceTemplates()
      expect(templates.resourceTemplates).toHaveLength(5)
      const contents = await client.readResource({ uri: `dbdesk://connections/${sampleId}/tables/orders` })
      expect(JSON.parse((contents.contents[0] as { text: string }).text).table).toBe("orders")
    } finally {
      await client.close()
    }
  })
})

describe("a connection whose database does not answer (found by the reliability suite's fuzzer)", () => {
  it("C7.1-a resources/read, prompts/get and completion/complete answer 503 -33000 naming the connection, never 500 -32603 Internal error", async () => {
    const connections = Context.get(server.context, Connections)
    const down = await run(
      connections.add({
        name: "Down PG",
        type: "postgresql",
        host: "127.0.0.1",
        port: 1,
        database: "app",
        user: "app",
        aiPolicy: "alwaysAllow"
      })
    )
    const answers = [
      await read(`dbdesk://connections/${down.id}/schema`),
      await read(`dbdesk://connections/${down.id}/tables/orders`),
      await post("prompts/get", { name: "explain_table", arguments: { connection: down.id, table: "orders" } }),
      await post("completion/complete", {
        ref: { type: "ref/prompt", name: "explain_table" },
        argument: { name: "table", value: "o" },
        context: { arguments: { connection: down.id } }
      })
    ]
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(503)
      expect(answer.json.error, answer.text).toMatchObject({ code: -33000, data: { reason: "not_connected" } })
      expect(answer.json.error.message).toContain("Down PG")
    }
  })
})
