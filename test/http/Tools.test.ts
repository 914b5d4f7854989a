import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import type { SqliteDriver } from "../../src/services/drivers/SqliteDriver.ts"
import { connectModernClient, sseMessages } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let connectionId: string
beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const connections = await Effect.runPromise(Context.get(server.context, Connections).list)
  connectionId = connections[0]!.id
})
afterAll(() => server.stop())

const call = (
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
  id: number | string = 1
) => postMcp(server.url, modernRequest("tools/call", { name, arguments: args, _meta: meta }, id))

describe("the read tools on the embedded SQLite sample", () => {
  it("C1-f C2.3-a C2.4-b the official 2.4.0 client lists and calls every read tool", async () => {
    const client = await connectModernClient(server.url)
    try {
      const { tools } = await client.listTools()
      const names = tools.map((tool) => tool.name)
      for (
        const name of [
          "list_connections",
          "describe_table",
          "execute_query",
          "get_connection_status",
          "list_databases",
          "list_tables",
          "get_table_ddl",
          "search_schema",
          "browse_table",
          "count_rows",
          "explain_query"
        ]
      ) {
        expect(names).toContain(name)
      }
      expect(names).toStrictEqual([...names].sort())
      const listed: any = await client.callTool({ name: "list_connections", arguments: {} })
      expect(listed.isError).toBe(false)
      expect(listed.structuredContent.connections[0]).toMatchObject({
        id: connectionId,
        name: "Sample (SQLite)",
        type: "sqlite",
        external_access: "readWrite",
        ai_policy: "alwaysAllow",
        confirm_queries: "writes"
      })
      expect(JSON.parse(listed.content[0].text)).toStrictEqual(listed.structuredContent)

      const tables: any = await client.callTool({
        name: "list_tables",
        arguments: { connection_id: connectionId, include_row_counts: true }
      })
      expect(tables.structuredContent.tables.map((table: any) => table.name)).toStrictEqual([
        "customers",
        "order_items",
        "orders",
        "products"
      ])
      expect(tables.structuredContent.tables.every((table: any) => table.row_count > 0)).toBe(true)

      const described: any = await client.callTool({
        name: "describe_table",
        arguments: { connection_id: connectionId, table: "orders" }
      })
      expect(described.structuredContent.columns[0]).toMatchObject({ name: "id", is_primary_key: true })
      expect(described.structuredContent.foreign_keys[0]).toMatchObject({ referenced_table: "customers" })

      const ddl: any = await client.callTool({
        name: "get_table_ddl",
        arguments: { connection_id: connectionId, table: "orders" }
      })
      expect(ddl.structuredContent.ddl).toMatch(/CREATE TABLE/i)

      const matches: any = await client.callTool({
        name: "search_schema",
        arguments: { connection_id: connectionId, term: "price" }
      })
      expect(matches.structuredContent.matches.some((match: any) => match.kind === "column")).toBe(true)

      const browsed: any = await client.callTool({
        name: "browse_table",
        arguments: {
          connection_id: connectionId,
          table: "customers",
          limit: 3,
          sort: [{ column: "id", direction: "desc" }],
          filters: [{ column: "id", operator: ">", value: 10 }]
        }
      })
      expect(browsed.structuredContent.row_count).toBe(3)
      expect(browsed.structuredContent.rows[0][0]).toBe(400)

      const counted: any = await client.callTool({
        name: "count_rows",
        arguments: {
          connection_id: connectionId,
          table: "orders",
          filters: [{ column: "id", operator: "<=", value: 100 }]
        }
      })
      expect(counted.structuredContent).toStrictEqual({ row_count: 100, is_approximate: false })

      const queried: any = await client.callTool({
        name: "execute_query",
        arguments: { connection_id: connectionId, query: "SELECT count(*) AS n FROM products" }
      })
      expect(queried.structuredContent).toMatchObject({
        columns: ["n"],
        rows: [[60]],
        row_count: 1,
        is_truncated: false
      })

      const plan: any = await client.callTool({
        name: "explain_query",
        arguments: { connection_id: connectionId, query: "SELECT * FROM orders WHERE id = 1" }
      })
      expect(plan.isError).toBe(false)
      expect(plan.structuredContent.row_count).toBeGreaterThan(0)

      const databases: any = await client.callTool({
        name: "list_databases",
        arguments: { connection_id: connectionId }
      })
      expect(databases.structuredContent.databases).toStrictEqual(["main"])

      const status: any = await client.callTool({
        name: "get_connection_status",
        arguments: { connection_id: connectionId }
      })
      expect(status.structuredContent.status).toBe("connected")
    } finally {
      await client.close()
    }
  })

  it("C2.7-a C4.1-l C6-a the official client's onprogress sees 0, 0.3, 1 and then the result", async () => {
    const client = await connectModernClient(server.url)
    try {
      const seen: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
      const result: any = await client.callTool(
        { name: "execute_query", arguments: { connection_id: connectionId, query: "SELECT 1 AS one" } },
        { onprogress: (progress) => seen.push(progress) }
      )
      expect(seen.map((update) => update.progress)).toStrictEqual([0, 0.3, 1])
      expect(seen.map((update) => update.message)).toStrictEqual(["Resolving connection", "Executing", "Done"])
      expect(seen.every((update) => update.total === 1)).toBe(true)
      expect(result.structuredContent.rows).toStrictEqual([[1]])
    } finally {
      await client.close()
    }
  })

  it("C4.1-i C4.1-j C4.1-k with a progressToken the answer is SSE: data-only frames, increasing progress, the response last", async () => {
    const response = await call("execute_query", { connection_id: connectionId, query: "SELECT 2 AS two" }, {
      progressToken: "p-1"
    }, 41)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const frames = response.text.split("\n\n").filter((frame) => frame !== "")
    expect(
      frames.every((frame) => frame.startsWith("data: ") && !frame.includes("\nevent:") && !frame.includes("\nid:"))
    ).toBe(true)
    const messages = sseMessages(response.text)
    const progress = messages.filter((message) => message.method === "notifications/progress")
    expect(progress.map((message) => message.params.progressToken)).toStrictEqual(["p-1", "p-1", "p-1"])
    const values = progress.map((message) => message.params.progress)
    expect(values).toStrictEqual([...values].sort((a, b) => a - b))
    expect(new Set(values).size).toBe(values.length)
    expect(messages.at(-1)).toMatchObject({ id: 41, result: { structuredContent: { rows: [[2]] } } })
    expect(messages.slice(0, -1).every((message) => message.id === undefined)).toBe(true)
  })

  it("C4.1-i without a progressToken the answer is plain JSON", async () => {
    const response = await call("execute_query", { connection_id: connectionId, query: "SELECT 3" })
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.json.result.isError).toBe(false)
  })

  it("C7.2-a a database refusal is a successful result with isError, resultType complete and a coded text", async () => {
    const response = await call("execute_query", { connection_id: connectionId, query: "SELECT * FROM no_such_table" })
    expect(response.status).toBe(200)
    expect(response.json.result).toMatchObject({ isError: true, resultType: "complete" })
    expect(response.json.result.content[0].text).toMatch(/^query_failed: .*no_such_table/)
    const missing = await call("describe_table", { connection_id: connectionId, table: "nope" })
    expect(missing.json.result.content[0].text).toMatch(/^not_found: /)
  })

  it("C7.2-a value errors and input-schema failures are invalid_argument tool errors naming the argument; an unknown tool stays -32602", async () => {
    const outOfRange = await call("execute_query", { connection_id: connectionId, query: "SELECT 1", max_rows: 0 })
    expect(outOfRange.json.result.content[0].text).toMatch(/^invalid_argument: max_rows/)
    const empty = await call("describe_table", { connection_id: connectionId, table: "" })
    expect(empty.json.result.content[0].text).toMatch(/^invalid_argument: /)
    const badOperator = await call("browse_table", {
      connection_id: connectionId,
      table: "orders",
      filters: [{ column: "id", operator: "like", value: 1 }]
    })
    expect(badOperator.json.result.content[0].text).toMatch(/^invalid_argument: /)
    const schemaFailures = await Promise.all([
      call("execute_query", { connection_id: connectionId, query: "SELECT 1", bogus: true }),
      call("execute_query", { connection_id: connectionId, query: 42 }),
      call("execute_query", { connection_id: connectionId }),
      call("browse_table", {}),
      call("list_tables", { connection_id: connectionId, include_row_counts: "yes" })
    ])
    expect(
      schemaFailures.map((response) => [response.status, response.json.result.isError, response.json.result.resultType])
    ).toStrictEqual(Array(5).fill([200, true, "complete"]))
    expect(schemaFailures.map((response) => response.json.result.content[0].text)).toStrictEqual([
      "invalid_argument: bogus is not an argument of execute_query; it takes connection_id, query, max_rows, timeout_seconds, database, schema. The input schema is in tools/list.",
      "invalid_argument: query: expected string, got 42. The input schema is in tools/list.",
      "invalid_argument: query is required (a string). The input schema is in tools/list.",
      "invalid_argument: connection_id is required (a string); table is required (a string). The input schema is in tools/list.",
      "invalid_argument: include_row_counts: expected boolean, got \"yes\". The input schema is in tools/list."
    ])
    expect(schemaFailures[2].json.result.structuredContent).toStrictEqual({
      error: { code: "invalid_argument", message: "query is required (a string). The input schema is in tools/list." }
    })
    const unknownTool = await call("drop_everything", {})
    expect([unknownTool.status, unknownTool.json.error.code]).toStrictEqual([400, -32602])
  })

  it("C7.2-a statements that are not plain reads are refused before they reach the database", async () => {
    const two = await call("execute_query", { connection_id: connectionId, query: "SELECT 1; SELECT 2" })
    expect(two.json.result.content[0].text).toBe("invalid_argument: send one statement at a time")
    const attach = await call("execute_query", {
      connection_id: connectionId,
      query: "ATTACH DATABASE '/tmp/x.db' AS x"
    })
    expect(attach.json.result.content[0].text).toMatch(/^denied: /)
  })

  it("C4.1-i a long recursive CTE does not hold up a concurrent tools/list; its deadline ends it with -33003 and the child is replaced", async () => {
    const drivers = Context.get(server.context, Drivers)
    const connection = (await Effect.runPromise(Context.get(server.context, Connections).get(connectionId)))!
    const driver = (await Effect.runPromise(drivers.forConnection(connection))) as SqliteDriver
    await call("execute_query", { connection_id: connectionId, query: "SELECT 1" })
    const pidBefore = driver.childPid()
    expect(pidBefore).toBeTypeOf("number")
    const order: Array<string> = []
    const slow = call(
      "execute_query",
      {
        connection_id: connectionId,
        query: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        timeout_seconds: 2
      },
      {},
      "slow"
    )
      .then((response) => {
        order.push("cte")
        return response
      })
    const list = await postMcp(server.url, modernRequest("tools/list")).then((response) => {
      order.push("tools/list")
      return response
    })
    expect(list.status).toBe(200)
    const slowResponse = await slow
    expect(order).toStrictEqual(["tools/list", "cte"])
    expect(slowResponse.status).toBe(200)
    expect(slowResponse.json.error).toMatchObject({ code: -33003, data: { deadline: "statement", seconds: 2 } })
    let alive = true
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pidBefore!, 0)
        await new Promise((resolve) => setTimeout(resolve, 20))
      } catch {
        alive = false
      }
    }
    expect(alive).toBe(false)
    const after = await call("execute_query", { connection_id: connectionId, query: "SELECT 7" })
    expect(after.json.result.structuredContent.rows).toStrictEqual([[7]])
    expect(driver.childPid()).not.toBe(pidBefore)
  })
})
