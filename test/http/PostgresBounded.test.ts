// D-72 on PostgreSQL through the MCP tools: a read costs what its answer costs (items 1, 2, 5), database and
// schema arguments reach the objects they name (item 3), and a call leaves its session as it found it (D-73).
import { afterAll, beforeAll, expect, it } from "vitest"
import { backendsSettle, type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { type PgConnection, pgConnection, type PostgresMcp, startPostgresMcp } from "../support/PostgresMcp.ts"

const BIG_ROWS = 1_000_000
const BYTEA_BYTES = 50 * 1024 * 1024
const TEXT_BYTES = 5 * 1024 * 1024
/** A truncated read's handle, idle 1 s, is closed by the next sweep (every second): its session is then back. */
const HANDLE_GONE_SECONDS = 6

describePostgres("PostgreSQL reads bounded by their answer, and database/schema arguments (D-72)", () => {
  let postgres: PostgresServer
  let mcp: PostgresMcp
  let connection: PgConnection

  beforeAll(async () => {
    postgres = await startPostgres()
    const app = postgres.user
    await postgres.sql(`CREATE DATABASE analytics OWNER ${app}`)
    for (const name of ["spare1", "spare2", "spare3", "spare4", "spare5"]) {
      await postgres.sql(`CREATE DATABASE ${name} OWNER ${app}`)
    }
    const owner = await postgres.client({ role: "app" })
    await owner.query(`
      CREATE TABLE t (id int PRIMARY KEY, label text NOT NULL);
      INSERT INTO t VALUES (1, 'one'), (2, 'two');
      CREATE TABLE big AS SELECT g AS id, md5(g::text) AS label FROM generate_series(1, ${BIG_ROWS}) g;
      CREATE TABLE blobs (id int PRIMARY KEY, data bytea, note text);
      INSERT INTO blobs VALUES (1, decode(repeat('ab', ${BYTEA_BYTES}), 'hex'), repeat('x', ${TEXT_BYTES}));
      CREATE SCHEMA sales;
      CREATE TABLE sales.regions (code text PRIMARY KEY, name text);
      INSERT INTO sales.regions VALUES ('eu', 'Europe'), ('us', 'United States');
      CREATE TABLE regions (code text PRIMARY KEY);
      INSERT INTO regions VALUES ('public-only');
    `)
    await owner.end()
    const analytics = await postgres.client({ role: "app", database: "analytics" })
    await analytics.query(`
      CREATE TABLE events (id int PRIMARY KEY, kind text NOT NULL);
      INSERT INTO events VALUES (1, 'signup'), (2, 'login'), (3, 'login');
      CREATE SCHEMA reports;
      CREATE TABLE reports.daily (day date PRIMARY KEY, total int);
    `)
    await analytics.end()
    connection = pgConnection("Warehouse (PostgreSQL)", postgres.port)
    // A truncated read keeps its session for fetch_more until its handle is idle this long (then given back).
    mcp = await startPostgresMcp(postgres, [connection], { continuationIdleSeconds: 1 })
  }, 180_000)

  afterAll(async () => {
    await mcp?.stop()
    await postgres?.stop()
  }, 60_000)

  const result = async (name: string, args: Record<string, unknown>) => {
    const answer = await mcp.call(connection, name, args)
    expect(answer.json.result?.isError, answer.text.slice(0, 500)).toBe(false)
    return answer.json.result.structuredContent
  }
  const toolError = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const answer = await mcp.call(connection, name, args)
    expect(answer.json.result?.isError, answer.text.slice(0, 500)).toBe(true)
    return answer.json.result.content[0].text
  }

  it(
    "D-71 SELECT * FROM a 1,000,000-row table answers max_rows rows marked truncated, and the server computes only those",
    async () => {
      const answer = await result("execute_query", { query: "SELECT * FROM big" })
      expect(answer).toMatchObject({
        columns: ["id", "label"],
        row_count: 500,
        is_truncated: true,
        status_message: expect.stringMatching(/^showing the first 500 rows/)
      })
      expect(answer.rows[0]).toEqual([1, "c4ca4238a0b923820dcc509a6f75849b"])
      const browsed = await result("browse_table", { table: "big", limit: 3 })
      expect(browsed).toMatchObject({
        rows: [[1, expect.any(String)], [2, expect.any(String)], [3, expect.any(String)]],
        is_truncated: true
      })
      // A trap past row 1,001 (max_rows + 1 rows are read): a server that computed more would fail with division by zero.
      const trapped = await result("execute_query", {
        query: "SELECT id, CASE WHEN id > 1001 THEN 1 / (id - id) END AS trap FROM big",
        max_rows: 1000
      })
      expect(trapped).toMatchObject({ row_count: 1000, is_truncated: true })
    },
    120_000
  )

  it(
    "D-71 after a truncated read no session keeps a portal or a transaction once its handle is closed (pg_stat_activity, pg_cursors of every pooled session)",
    async () => {
      await result("execute_query", { query: "SELECT * FROM big" })
      expect(await backendsSettle(postgres, HANDLE_GONE_SECONDS)).toEqual([])
      // pg_cursors shows one session's own portals: ask it from as many sessions as the pool holds at once.
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          result("execute_query", {
            query:
              "SELECT pg_backend_pid() AS pid, pg_sleep(0.3)::text AS pause, (SELECT json_agg(statement) FROM pg_cursors) AS cursors"
          }))
      )
      const sessions = new Set(answers.map((answer) => answer.rows[0][0]))
      expect(sessions.size).toBeGreaterThan(1)
      for (const answer of answers) {
        const cursors = JSON.parse(answer.rows[0][2]) as Array<string>
        expect(cursors).toEqual([expect.stringContaining("pg_cursors")])
      }
    },
    60_000
  )

  it(
    "D-71 a 50 MB bytea cell and a 5 MB text cell come back cut at limits.maxCellBytes with their full lengths",
    async () => {
      for (
        const [tool, args] of [["execute_query", { query: "SELECT data, note FROM blobs" }], ["browse_table", {
          table: "blobs",
          columns: ["data", "note"]
        }]] as const
      ) {
        const answer = await result(tool, args)
        const [data, note] = answer.rows[0] as [string, string]
        expect(data.startsWith("\\xabab")).toBe(true)
        expect(data).toContain(`…[cut by dbdesk: ${2 + 2 * BYTEA_BYTES} bytes, first 32768 shown;`)
        expect(note.startsWith("xxxx")).toBe(true)
        expect(note).toContain(`…[cut by dbdesk: ${TEXT_BYTES} bytes, first 32768 shown;`)
        expect(data.length + note.length).toBeLessThan(70_000)
        expect(answer.is_truncated).toBe(false)
        expect(answer.status_message).toMatch(/2 (cells|values) were cut at .*32768 bytes/)
      }
    },
    120_000
  )

  it(
    "D-71 rows of megabytes stop once the rows read pass 4 × limits.maxAnswerBytes, and the answer says so",
    async () => {
      const answer = await result("execute_query", {
        query: "SELECT g, repeat('y', 1000000) AS wide FROM generate_series(1, 500) g"
      })
      expect(answer.is_truncated).toBe(true)
      expect(answer.row_count).toBeGreaterThan(0)
      expect(answer.row_count).toBeLessThan(500)
      expect(answer.status_message).toContain(`the rows read from the database passed ${4 * 8 * 1024 * 1024} bytes`)
      expect(answer.continuation).toBeUndefined()
      expect(await backendsSettle(postgres, HANDLE_GONE_SECONDS)).toEqual([])
    },
    60_000
  )

  it("D-72 list_databases names the databases the role can connect to, and database reaches them", async () => {
    const { databases } = await result("list_databases", {})
    expect(databases).toEqual(expect.arrayContaining(["analytics", "dbdesk_test", "postgres"]))
    expect(databases).not.toContain("template0")
    expect(databases).not.toContain("template1")
    expect((await result("list_tables", { database: "analytics" })).tables).toEqual([
      { name: "events", type: "table" },
      { name: "reports.daily", type: "table" }
    ])
    expect((await result("list_schemas", { database: "analytics" })).schemas).toEqual(["public", "reports"])
    expect((await result("describe_table", { database: "analytics", table: "events" })).columns.map((c: any) => c.name))
      .toEqual(["id", "kind"])
    expect((await result("get_table_ddl", { database: "analytics", table: "events" })).ddl).toContain(
      "CREATE TABLE \"public\".\"events\""
    )
    expect(
      (await result("count_rows", {
        database: "analytics",
        table: "events",
        filters: [{ column: "kind", operator: "=", value: "login" }]
      })).row_count
    ).toBe(2)
    expect(
      (await result("browse_table", {
        database: "analytics",
        table: "events",
        sort: [{ column: "id", direction: "desc" }],
        limit: 1
      })).rows
    ).toEqual([[3, "login"]])
    expect((await result("search_schema", { database: "analytics", term: "kin" })).matches).toEqual([{
      kind: "column",
      table: "events",
      name: "kind",
      data_type: "text"
    }])
    expect((await result("execute_query", { database: "analytics", query: "SELECT current_database()" })).rows).toEqual(
      [["analytics"]]
    )
    expect(await toolError("list_tables", { database: "nowhere" })).toMatch(
      /^not_found: the database "nowhere" does not exist on 'Warehouse \(PostgreSQL\)'; call list_databases/
    )
  }, 60_000)

  it(
    "D-71 schema selects the schema of listings and table names, and leads the search path of execute_query",
    async () => {
      expect((await result("list_tables", { schema: "sales" })).tables).toEqual([{ name: "regions", type: "table" }])
      expect((await result("list_tables", { database: "analytics", schema: "reports" })).tables).toEqual([{
        name: "daily",
        type: "table"
      }])
      expect((await result("describe_table", { schema: "sales", table: "regions" })).columns.map((c: any) => c.name))
        .toEqual(["code", "name"])
      expect((await result("describe_table", { table: "regions" })).columns.map((c: any) => c.name)).toEqual(["code"])
      expect((await result("get_table_ddl", { schema: "sales", table: "regions" })).ddl).toContain(
        "CREATE TABLE \"sales\".\"regions\""
      )
      expect(
        (await result("browse_table", {
          schema: "sales",
          table: "regions",
          sort: [{ column: "code", direction: "asc" }]
        })).rows
      ).toEqual([["eu", "Europe"], ["us", "United States"]])
      expect((await result("count_rows", { schema: "sales", table: "regions" })).row_count).toBe(2)
      expect((await result("search_schema", { schema: "sales", term: "region" })).matches).toEqual([{
        kind: "table",
        table: "regions",
        name: "regions"
      }])
      expect((await result("execute_query", { schema: "sales", query: "SELECT code FROM regions ORDER BY code" })).rows)
        .toEqual([["eu"], ["us"]])
      expect((await result("execute_query", { query: "SELECT code FROM regions" })).rows).toEqual([["public-only"]])
      expect(await toolError("list_tables", { schema: "nowhere" })).toMatch(
        /^not_found: the schema "nowhere" does not exist/
      )
      expect(await toolError("describe_table", { schema: "nowhere", table: "regions" })).toMatch(
        /^not_found: the schema "nowhere" does not exist/
      )
      expect(await toolError("execute_query", { schema: "nowhere", query: "SELECT 1" })).toMatch(
        /^not_found: schema "nowhere" does not exist in database "dbdesk_test" of 'Warehouse \(PostgreSQL\)'; call list_schemas/
      )
      expect(await toolError("describe_table", { schema: "sales", table: "missing" })).toMatch(
        /^not_found: the table "sales\.missing" does not exist/
      )
    },
    60_000
  )

  it("D-72 at most four other databases are open at once: the least recently used idle one is closed", async () => {
    for (const name of ["spare1", "spare2", "spare3", "spare4", "spare5", "analytics"]) {
      expect((await result("execute_query", { database: name, query: "SELECT current_database()" })).rows).toEqual([[
        name
      ]])
    }
    const open = await postgres.sql<{ datname: string }>(
      "SELECT DISTINCT datname FROM pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend'",
      [postgres.user]
    )
    expect(open.map((row) => row.datname).filter((name) => name !== "dbdesk_test").length).toBeLessThanOrEqual(4)
  }, 60_000)

  it(
    "D-73 a BEGIN through execute_query is rolled back and answered plainly; session settings a write changed do not reach the next call",
    async () => {
      expect(await toolError("execute_query", { query: "BEGIN" })).toMatch(
        /^unsupported: each execute_query call runs on its own and ends with no transaction open/
      )
      expect(await backendsSettle(postgres, HANDLE_GONE_SECONDS)).toEqual([])
      const set = await result("execute_query", { query: "SET work_mem = '64kB'" })
      expect(set.status_message).toBe("SET")
      const answers = await Promise.all(
        Array.from(
          { length: 8 },
          () => result("execute_query", { query: "SELECT current_setting('work_mem'), pg_sleep(0.2)::text" })
        )
      )
      for (const answer of answers) expect(answer.rows[0][0]).toBe("4MB")
    },
    60_000
  )
})
