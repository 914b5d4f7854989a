import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let connectionId: string
beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  connectionId = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!.id
})
afterAll(() => server.stop())

const call = (name: string, args: Record<string, unknown>) =>
  postMcp(server.url, modernRequest("tools/call", { name, arguments: { connection_id: connectionId, ...args } }))

/** Every SQL tool that takes `database` and `schema` (D-72), with the arguments it needs besides them. */
const NAMESPACED_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["list_tables", {}],
  ["describe_table", { table: "orders" }],
  ["get_table_ddl", { table: "orders" }],
  ["search_schema", { term: "order" }],
  ["browse_table", { table: "orders", limit: 1 }],
  ["count_rows", { table: "orders" }],
  ["execute_query", { query: "SELECT 1 AS one" }]
]

describe("database and schema on a SQLite connection (D-72)", () => {
  it("list_databases names the one database, main", async () => {
    const answer = await call("list_databases", {})
    expect(answer.json.result.structuredContent).toEqual({ databases: ["main"] })
  })

  it("main is accepted as database and schema by every tool that takes them", async () => {
    for (const [name, args] of NAMESPACED_CALLS) {
      const answer = await call(name, { ...args, database: "main", schema: "main" })
      expect(answer.json.result?.isError, name).toBe(false)
    }
  })

  it("any other database or schema is invalid_argument naming main, never silently ignored", async () => {
    for (const [name, args] of NAMESPACED_CALLS) {
      for (const other of [{ database: "analytics" }, { schema: "sales" }]) {
        const answer = await call(name, { ...args, ...other })
        expect(answer.json.result?.isError, `${name} ${JSON.stringify(other)}`).toBe(true)
        expect(answer.json.result.content[0].text, name).toMatch(
          /^invalid_argument: a SQLite connection has one database and schema, main; got "(analytics|sales)"$/
        )
      }
    }
  })

  it("an empty database or schema is invalid_argument naming the argument", async () => {
    const database = await call("list_tables", { database: " " })
    expect(database.json.result.content[0].text).toBe("invalid_argument: database must not be empty")
    const schema = await call("describe_table", { table: "orders", schema: "" })
    expect(schema.json.result.content[0].text).toBe("invalid_argument: schema must not be empty")
  })
})
