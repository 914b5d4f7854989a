// D-75: the official MCP client against the real server and a real MariaDB: every tool that applies,
// an approved write, a denied one, a cancelled SELECT SLEEP(60), a 1,000,000-row SELECT * truncated at the limit.
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { PendingApproval } from "../../src/domain/Approval.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Continuations } from "../../src/services/Continuations.ts"
import {
  eventually,
  idleInTransaction,
  type MariadbServer,
  runningStatements,
  startMariadb
} from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

/**
 * The general-log lines holding `marker` that ran outside an approval's check or dry run (D-69): a PREPARE, or the
 * statement followed on its session by ROLLBACK, is allowed; anything else reached the server for real.
 */
const ranForReal = (log: string, marker: string): Array<string> => {
  const lines = log.split("\n").map((line) => /^\S*\s+(\d+) (\w+(?: \w+)?)\t(.*)$/.exec(line)).flatMap((
    match
  ) => (match === null ? [] : [{ thread: match[1], command: match[2], text: match[3] ?? "" }]))
  if (log.includes(marker) && !lines.some((line) => line.text.includes(marker))) {
    return ["the log format was not understood"]
  }
  return lines.flatMap((line, index) => {
    if (!line.text.includes(marker) || line.command === "Prepare" || line.command === "Close stmt") return []
    const next = lines.slice(index + 1).find((other) => other.thread === line.thread)
    return next?.text === "ROLLBACK" ? [] : [`${line.command}: ${line.text}`]
  })
}

describeMariadb("MCP tools on a MySQL/MariaDB connection (official client, real MariaDB)", () => {
  let mariadb: MariadbServer
  let server: TestServer
  let client: Awaited<ReturnType<typeof connectModernClient>>
  const asked: Array<PendingApproval> = []
  const shopId = randomUUID()
  const bareId = randomUUID()
  const typoId = randomUUID()
  let wrongPassword = ""

  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      CREATE TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, label VARCHAR(40) NOT NULL COMMENT 'shown to buyers', price DECIMAL(8,2));
      INSERT INTO items (label, price) VALUES ('first', 1.50), ('second', 2.00), ('third', 3.25);
      CREATE TABLE million (n INT PRIMARY KEY, pad CHAR(20) NOT NULL DEFAULT 'padding');
      INSERT INTO million (n) SELECT seq FROM seq_1_to_1000000;
      CREATE TABLE ${mariadb.otherDatabase}.regions (code VARCHAR(8) PRIMARY KEY);
      INSERT INTO ${mariadb.otherDatabase}.regions VALUES ('eu'), ('us');
      ANALYZE TABLE items, million;
    `)
    wrongPassword = `${mariadb.password}-typo`
    const home = tempHome()
    const common = {
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      user: mariadb.user,
      sslMode: "preferred",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      confirmQueries: "writes"
    }
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [
          { ...common, id: shopId, name: "Shop (MariaDB)", database: mariadb.database, password: mariadb.password },
          { ...common, id: bareId, name: "Bare (MariaDB)", password: mariadb.password },
          { ...common, id: typoId, name: "Typo (MariaDB)", database: mariadb.database, password: wrongPassword }
        ]
      }),
      { mode: 0o600 }
    )
    // The app dialog approves a statement that says so and denies every other one.
    const prompt = ApprovalPrompt.scripted(
      (
        approval
      ) => ((approval.statement ?? "").includes("approve_me") || (approval.statement ?? "").includes("INSERT INTO")
        ? "approved"
        : "denied"),
      asked
    )
    server = await startTestServer({ home, approvalPrompt: prompt, token: "fullAccess" })
    client = await connectModernClient(server.url, { token: server.token! })
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    await server?.stop()
    await mariadb?.stop()
  }, 60_000)

  const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
    client.callTool({ name, arguments: args })
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args)
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    return result.structuredContent
  }
  const failed = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = await call(name, args)
    expect(result.isError).toBe(true)
    return result.content[0].text
  }

  it(
    "D-75: connection tools: list_connections, get_connection_status, list_databases, list_schemas unsupported",
    async () => {
      const listed = (await ok("list_connections", {})).connections
      expect(listed.find((c: any) => c.id === shopId)).toMatchObject({
        type: "mysql",
        host: "127.0.0.1",
        port: mariadb.port,
        database: mariadb.database
      })
      expect(await ok("get_connection_status", { connection_id: shopId })).toMatchObject({
        status: "connected",
        server_version: expect.stringMatching(/^MariaDB 10\./)
      })
      expect((await ok("list_databases", { connection_id: shopId })).databases).toEqual([
        mariadb.otherDatabase,
        mariadb.database
      ])
      expect(await failed("list_schemas", { connection_id: shopId })).toMatch(
        /^unsupported: 'Shop \(MariaDB\)' is a MySQL\/MariaDB connection: a MySQL schema is a database/
      )
    },
    60_000
  )

  it(
    "D-75: schema tools: list_tables (estimates), describe_table, get_table_ddl, search_schema, and the database argument",
    async () => {
      const tables = (await ok("list_tables", { connection_id: shopId, include_row_counts: true })).tables
      expect(tables).toContainEqual({ name: "million", type: "table", row_count: expect.any(Number) })
      const described = await ok("describe_table", { connection_id: shopId, table: "items" })
      expect(described.columns.map((c: any) => [c.name, c.data_type, c.is_primary_key])).toEqual([
        ["id", "int(11)", true],
        ["label", "varchar(40)", false],
        ["price", "decimal(8,2)", false]
      ])
      expect(described.columns[1].comment).toBe("shown to buyers")
      expect((await ok("get_table_ddl", { connection_id: shopId, table: "items" })).ddl).toMatch(
        /^CREATE TABLE `items`/
      )
      expect((await ok("search_schema", { connection_id: shopId, term: "lab" })).matches).toContainEqual({
        kind: "column",
        table: "items",
        name: "label",
        data_type: "varchar(40)"
      })
      expect((await ok("list_tables", { connection_id: bareId, database: mariadb.otherDatabase })).tables).toEqual([{
        name: "regions",
        type: "table"
      }])
      expect(await failed("list_tables", { connection_id: bareId })).toMatch(
        /^invalid_argument: 'Bare \(MariaDB\)' has no default database: pass database/
      )
      expect(await failed("describe_table", { connection_id: shopId, table: "items", schema: "public" })).toMatch(
        /^invalid_argument: .*a schema is a database/
      )
    },
    60_000
  )

  it("D-75: browse_table and count_rows with filters, execute_query and explain_query", async () => {
    const page = await ok("browse_table", {
      connection_id: shopId,
      table: "items",
      columns: ["label", "price"],
      filters: [{ column: "label", operator: "contains", value: "ir" }],
      sort: [{ column: "id", direction: "desc" }]
    })
    expect(page.rows).toEqual([["third", "3.25"], ["first", "1.50"]])
    expect(
      await ok("count_rows", {
        connection_id: shopId,
        table: "items",
        filters: [{ column: "price", operator: ">=", value: 2 }]
      })
    ).toEqual({ row_count: 2, is_approximate: false })
    expect(
      (await ok("execute_query", {
        connection_id: bareId,
        query: "SELECT code FROM regions ORDER BY code",
        database: mariadb.otherDatabase
      })).rows
    ).toEqual([["eu"], ["us"]])
    const plan = await ok("explain_query", { connection_id: shopId, query: "SELECT * FROM items WHERE id = 1" })
    expect(String(plan.rows[0][0])).toContain("query_block")
    expect(await failed("explain_query", { connection_id: shopId, query: "DELETE FROM items", analyze: true })).toMatch(
      /^denied: analyze runs the statement/
    )
  }, 60_000)

  it(
    "D-75: an approved write changes the table; a denied one does not reach the server; insert_rows approved",
    async () => {
      const written = await ok("execute_query", {
        connection_id: shopId,
        query: "UPDATE items SET label = 'renamed' WHERE id = 2 /* approve_me */"
      })
      expect(written).toMatchObject({ rows_affected: 1, status_message: "1 row affected" })
      const denied = await call("execute_query", {
        connection_id: shopId,
        query: "UPDATE items SET label = 'denied_marker' WHERE id = 3"
      })
      expect(JSON.stringify(denied)).toMatch(/denied/)
      const inserted = await ok("insert_rows", {
        connection_id: shopId,
        table: "items",
        columns: ["label", "price"],
        rows: [["fourth", 4], [null, 5]]
      })
      expect(inserted.rows_affected).toBe(1)
      expect(inserted.failed_rows.map((row: any) => row.index)).toEqual([1])
      const [rows] = await mariadb.admin().query("SELECT label FROM items ORDER BY id")
      expect((rows as Array<{ label: string }>).map((row) => row.label)).toEqual([
        "first",
        "renamed",
        "third",
        "fourth"
      ])
      expect(mariadb.log()).toContain("denied_marker") // checked and dry-run before the dialog (D-69), never committed
      expect(ranForReal(mariadb.log(), "denied_marker")).toEqual([])
      expect(asked.map((a) => a.statement)).toEqual(expect.arrayContaining([expect.stringContaining("denied_marker")]))
    },
    60_000
  )

  it("D-23: every executable-comment form is refused or held; a refused one never reaches the server", async () => {
    const refused = await failed("execute_query", {
      connection_id: shopId,
      query: "SELECT 1 /*!, LOAD_FILE('/etc/passwd') AS refused_marker */"
    })
    expect(refused).toMatch(/^denied: .*load_file/)
    const destructive = await failed("execute_query", { connection_id: shopId, query: "/*!50000 DROP TABLE items */" })
    expect(destructive).toMatch(/^denied: this statement drops or truncates data; use confirm_destructive_operation/)
    const held = await call("execute_query", {
      connection_id: shopId,
      query: "/*M! DELETE FROM items WHERE label = 'held_marker' */"
    })
    expect(JSON.stringify(held)).toMatch(/denied/)
    expect(asked.some((a) => (a.statement ?? "").includes("held_marker"))).toBe(true)
    expect(mariadb.log()).not.toMatch(/refused_marker|DROP TABLE items/)
    expect(ranForReal(mariadb.log(), "held_marker")).toEqual([])
  }, 60_000)

  it("D-75: a cancelled SELECT SLEEP(60) leaves PROCESSLIST (KILL QUERY on another session)", async () => {
    const controller = new AbortController()
    const sleeping = client.callTool({
      name: "execute_query",
      arguments: { connection_id: shopId, query: "SELECT SLEEP(60) AS cancelled_sleep", timeout_seconds: 120 }
    }, { signal: controller.signal })
    await eventually(async () => (await runningStatements(mariadb, "cancelled_sleep")) === 1, "SLEEP running")
    controller.abort()
    await sleeping.catch(() => undefined)
    await eventually(async () => (await runningStatements(mariadb, "cancelled_sleep")) === 0, "SLEEP killed")
    expect(mariadb.log()).toMatch(/KILL QUERY \d+/)
    expect((await ok("execute_query", { connection_id: shopId, query: "SELECT 'after' AS a" })).rows).toEqual([[
      "after"
    ]])
    expect(await idleInTransaction(mariadb)).toBe(0)
  }, 60_000)

  it("D-75: timeout_seconds ends SLEEP with -33003 data.deadline statement and nothing is left", async () => {
    const answer = await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: shopId, query: "SELECT SLEEP(60) AS deadline_sleep", timeout_seconds: 1 }
      }),
      { authorization: `Bearer ${server.token}` }
    )
    expect(answer.json.error).toMatchObject({ code: -33003, data: { deadline: "statement", seconds: 1 } })
    await eventually(async () => (await runningStatements(mariadb, "deadline_sleep")) === 0, "SLEEP killed")
  }, 60_000)

  it(
    "D-71, D-93: SELECT * of 1,000,000 rows answers the first max_rows, says so, and the rest waits unread until its handle closes (then killed)",
    async () => {
      const answer = await ok("execute_query", {
        connection_id: shopId,
        query: "SELECT *, 'million_marker' FROM million",
        max_rows: 1000
      })
      expect(answer).toMatchObject({
        row_count: 1000,
        is_truncated: true,
        status_message: expect.stringMatching(/^showing the first 1000 rows; .*fetch_more/)
      })
      expect(answer.rows[999][0]).toBe(1000)
      await Effect.runPromise(Context.get(server.context, Continuations).close(answer.continuation.handle))
      await eventually(async () => (await runningStatements(mariadb, "million_marker")) === 0, "the statement killed")
      expect(await idleInTransaction(mariadb)).toBe(0)
    },
    60_000
  )

  it("C7.2-b a wrong password: the error names the connection, never the password", async () => {
    const result = await call("execute_query", { connection_id: typoId, query: "SELECT 1" })
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(/^not_connected: cannot connect to 'Typo \(MariaDB\)'.*Access denied/)
    expect(JSON.stringify(result)).not.toContain(wrongPassword)
  }, 60_000)

  it(
    "D-75: KILL CONNECTION and a crash restart mid-query: a tool error naming the connection, server/discover still answers, nothing left, the next call returns the right row",
    async () => {
      const auth = { authorization: `Bearer ${server.token}` }
      for (const fault of ["kill", "restart"] as const) {
        const marker = `${fault}_mid_query`
        const pending = call("execute_query", { connection_id: shopId, query: `SELECT SLEEP(30) AS ${marker}` })
        await eventually(async () => (await runningStatements(mariadb, marker)) === 1, "SLEEP running")
        if (fault === "kill") {
          const [rows] = await mariadb.admin().query(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE INSTR(INFO, ?) > 0 AND ID <> CONNECTION_ID()",
            [marker]
          )
          await mariadb.admin().query(`KILL CONNECTION ${(rows as Array<{ ID: number }>)[0]!.ID}`)
        } else {
          await mariadb.restart("crash")
        }
        const result = await pending
        expect(result.isError).toBe(true)
        expect(result.content[0].text).toMatch(/^not_connected: 'Shop \(MariaDB\)' lost its connection/)
        const discover = await postMcp(server.url, modernRequest("server/discover"), auth)
        expect(discover.json.result.supportedVersions).toContain("2026-07-28")
        await eventually(
          async () => (await runningStatements(mariadb, marker)) === 0 && (await idleInTransaction(mariadb)) === 0,
          "nothing left"
        )
        expect(
          (await ok("execute_query", { connection_id: shopId, query: "SELECT label FROM items WHERE id = 1" })).rows
        ).toEqual([["first"]])
      }
    },
    60_000
  )

  it("D-75: resources and completion read the MySQL connection", async () => {
    const schema: any = await client.readResource({ uri: `dbdesk://connections/${shopId}/schema` })
    expect(schema.contents[0].text).toContain("million")
    const completion: any = await client.complete({
      ref: { type: "ref/resource", uri: "dbdesk://connections/{connection_id}/tables/{table}" },
      argument: { name: "table", value: "mil" },
      context: { arguments: { connection_id: shopId } }
    })
    expect(completion.completion.values).toContain("million")
  }, 60_000)
})
