import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { connectModernClient } from "../support/McpClients.ts"
import {
  cancelledByRequest,
  eventually,
  type PostgresServer,
  runningStatements,
  startPostgres
} from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

/** D-22: the PostgreSQL server functions refused whatever the tier, each with a call that would reach it. */
const REFUSED_CALLS = [
  "pg_read_file('/etc/passwd')",
  "pg_read_binary_file('/etc/passwd')",
  "pg_ls_dir('.')",
  "pg_stat_file('postgresql.conf')",
  "lo_import('/etc/passwd')",
  "lo_export(1, '/tmp/dbdesk-out')",
  "pg_file_write('x', 'y', false)",
  "dblink('host=127.0.0.1', 'SELECT 1')",
  "dblink_exec('host=127.0.0.1', 'DROP TABLE t')",
  "pg_terminate_backend(1)",
  "pg_cancel_backend(1)",
  "pg_reload_conf()",
  "pg_rotate_logfile()",
  "pg_promote()",
  "set_config('search_path', 'evil', false)"
]

describePostgres("MCP tools on a PostgreSQL connection (real server)", () => {
  let postgres: PostgresServer
  let server: TestServer
  const goodId = randomUUID()
  const badId = randomUUID()
  const lockyId = randomUUID()
  let wrongPassword = ""

  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql("CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL)")
    await postgres.sql(`ALTER TABLE items OWNER TO ${postgres.user}`)
    await postgres.sql("INSERT INTO items (label) VALUES ('first'), ('second')")
    await postgres.sql(
      "CREATE ROLE dbdesk_locky LOGIN PASSWORD 'locky-pw'; GRANT SELECT ON items TO dbdesk_locky; ALTER ROLE dbdesk_locky SET lock_timeout = '200ms'"
    )
    wrongPassword = `${postgres.password}-typo`
    const home = tempHome()
    const common = {
      type: "postgresql",
      host: postgres.host,
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      sslMode: "disable",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      confirmQueries: "writes"
    }
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [
          { ...common, id: goodId, name: "Warehouse (PostgreSQL)", password: postgres.password },
          { ...common, id: badId, name: "Typo (PostgreSQL)", password: wrongPassword },
          { ...common, id: lockyId, name: "Locky (PostgreSQL)", user: "dbdesk_locky", password: "locky-pw" }
        ]
      }),
      { mode: 0o600 }
    )
    server = await startTestServer({ home, settings: { mcp: { requireAuth: false } } })
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await postgres?.stop()
  }, 60_000)

  const callBody = (name: string, args: Record<string, unknown>, id: string | number) =>
    modernRequest("tools/call", { name, arguments: args }, id)
  const call = (name: string, args: Record<string, unknown>, id: string | number = 1) =>
    postMcp(server.url, callBody(name, args, id))
  const sleeping = (marker: string) => async () => (await runningStatements(postgres, marker)) === 1
  const gone = (marker: string) => async () => (await runningStatements(postgres, marker)) === 0

  it(
    "C3.2-d notifications/cancelled from the same principal cancels pg_sleep: it leaves pg_stat_activity",
    async () => {
      const answer = call(
        "execute_query",
        { connection_id: goodId, query: "SELECT pg_sleep(60) AS notified_sleep" },
        "sleep-notified"
      )
      await eventually(sleeping("notified_sleep"), "pg_sleep running")
      const notified = await postMcp(server.url, {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: "sleep-notified", reason: "test" }
      })
      expect(notified.status).toBe(202)
      await eventually(gone("notified_sleep"), "pg_sleep cancelled")
      await eventually(() => cancelledByRequest(postgres, "notified_sleep"), "a cancel request in the server log")
      await answer.catch(() => undefined)
    },
    60_000
  )

  it("C3.2-d a dropped client (aborted fetch) cancels pg_sleep: it leaves pg_stat_activity", async () => {
    const abort = new AbortController()
    const body = callBody(
      "execute_query",
      { connection_id: goodId, query: "SELECT pg_sleep(60) AS dropped_sleep" },
      "sleep-dropped"
    )
    const answer = fetch(server.url, {
      method: "POST",
      signal: abort.signal,
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "execute_query"
      },
      body: JSON.stringify(body)
    }).catch(() => undefined)
    await eventually(sleeping("dropped_sleep"), "pg_sleep running")
    abort.abort()
    await answer
    await eventually(gone("dropped_sleep"), "pg_sleep cancelled after the client dropped")
    await eventually(() => cancelledByRequest(postgres, "dropped_sleep"), "a cancel request in the server log")
  }, 60_000)

  it("C3.2-d timeout_seconds ends pg_sleep with -33003 data.deadline statement and nothing is left", async () => {
    const answer = await call("execute_query", {
      connection_id: goodId,
      query: "SELECT pg_sleep(60) AS deadline_sleep",
      timeout_seconds: 1
    })
    expect(answer.json.error).toMatchObject({ code: -33003, data: { deadline: "statement", seconds: 1 } })
    expect(await runningStatements(postgres, "deadline_sleep")).toBe(0)
    await eventually(() => cancelledByRequest(postgres, "deadline_sleep"), "a cancel request in the server log")
  }, 60_000)

  it("D-22 each refused server function is refused before it reaches the server", async () => {
    for (const [index, refused] of REFUSED_CALLS.entries()) {
      const answer = await call("execute_query", {
        connection_id: goodId,
        query: `SELECT ${refused} AS refused_marker_${index}`
      })
      expect(answer.json.result?.isError, refused).toBe(true)
      expect(answer.json.result.content[0].text, refused).toMatch(/^denied: /)
    }
    const safe = await call("execute_query", { connection_id: goodId, query: "SELECT 'reached' AS reached_marker" })
    expect(safe.json.result.structuredContent.rows).toEqual([["reached"]])
    await eventually(() => postgres.log().includes("reached_marker"), "the safe statement in the server log")
    expect(postgres.log()).not.toMatch(/refused_marker_/)
  }, 60_000)

  it("D-18 a lock timeout the database reports is the tool error timeout:, not -33003", async () => {
    const holder = await postgres.client()
    try {
      await holder.query("BEGIN; LOCK TABLE items IN ACCESS EXCLUSIVE MODE")
      const answer = await call("execute_query", { connection_id: lockyId, query: "SELECT * FROM items" })
      expect(answer.json.error).toBeUndefined()
      expect(answer.json.result.isError).toBe(true)
      expect(answer.json.result.content[0].text).toMatch(/^timeout: canceling statement due to lock timeout/)
    } finally {
      await holder.query("ROLLBACK")
      await holder.end()
    }
  }, 60_000)

  it("C7.2-b a wrong password: the error names the connection, never the password", async () => {
    const answer = await call("execute_query", { connection_id: badId, query: "SELECT 1" })
    const text: string = answer.json.result.content[0].text
    expect(answer.json.result.isError).toBe(true)
    expect(text).toMatch(/^not_connected: cannot connect to 'Typo \(PostgreSQL\)'/)
    expect(text).toContain("password authentication failed")
    const status = await call("get_connection_status", { connection_id: badId })
    expect(status.json.result.structuredContent).toMatchObject({
      status: "error",
      error: expect.stringContaining("'Typo (PostgreSQL)'")
    })
    for (const body of [answer.text, status.text]) {
      expect(body).not.toContain(wrongPassword)
      expect(body).not.toContain(postgres.password)
    }
  }, 60_000)

  it(
    "C1-f the official 2.4.0 client runs list_schemas, describe_table and execute_query on the PostgreSQL connection",
    async () => {
      const client = await connectModernClient(server.url)
      try {
        const schemas: any = await client.callTool({ name: "list_schemas", arguments: { connection_id: goodId } })
        expect(schemas.structuredContent.schemas).toContain("public")
        const described: any = await client.callTool({
          name: "describe_table",
          arguments: { connection_id: goodId, table: "items" }
        })
        expect(described.isError).toBe(false)
        expect(described.structuredContent.columns.map((c: any) => [c.name, c.data_type, c.is_primary_key])).toEqual([[
          "id",
          "integer",
          true
        ], ["label", "text", false]])
        expect(described.structuredContent.ddl).toContain("CREATE TABLE \"public\".\"items\"")
        const rows: any = await client.callTool({
          name: "execute_query",
          arguments: { connection_id: goodId, query: "SELECT id, label FROM items ORDER BY id", max_rows: 1 }
        })
        expect(rows.structuredContent).toMatchObject({
          columns: ["id", "label"],
          rows: [[1, "first"]],
          row_count: 1,
          is_truncated: true
        })
      } finally {
        await client.close()
      }
    },
    60_000
  )
})
