import { FastCheck } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { CuratedToolDefinition } from "../../src/domain/CuratedTool.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

/** Strings built from what could end a literal, open a comment or start another statement, and anything else. */
const hostile = (withNul: boolean) =>
  FastCheck.oneof(
    FastCheck.string({
      unit: FastCheck.constantFrom(
        "'",
        "\"",
        "`",
        ";",
        "--",
        "-- ",
        "#",
        "/*",
        "*/",
        "/*!",
        "/*M!",
        "\\",
        "\\'",
        "$$",
        "$q$",
        ":t",
        "?",
        "$1",
        " ",
        "x",
        "\n",
        "DROP TABLE orders",
        ...(withNul ? ["\u0000"] : [])
      )
    }),
    FastCheck.string().filter((text) => withNul || !text.includes("\u0000"))
  )

const PARAMETERS: CuratedToolDefinition["parameters"] = [
  { name: "t", type: "text" },
  { name: "i", type: "integer" },
  { name: "n", type: "number" },
  { name: "b", type: "boolean" },
  { name: "d", type: "date" },
  { name: "ts", type: "timestamp" },
  { name: "e", type: "enum", values: ["a", "b"] }
]
const ARGUMENTS = { i: 7, n: 1.5, b: true, d: "2026-02-28", ts: "2026-02-28T12:00:00Z", e: "b" }

const startWith = async (connection: Record<string, unknown>, tools: ReadonlyArray<CuratedToolDefinition>) => {
  const home = tempHome()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [{
        id: "db",
        name: "DB",
        externalAccess: "readWrite",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes",
        ...connection
      }]
    }),
    { mode: 0o600 }
  )
  writeFileSync(join(home, "tools.json"), JSON.stringify({ version: 1, tools }))
  return startTestServer({
    home,
    ui: false,
    token: "readWrite",
    approvalPrompt: ApprovalPrompt.scripted(() => "denied"),
    settings: { limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64 } }
  })
}

const callOn = (server: TestServer) => (name: string, args: Record<string, unknown>) =>
  postMcp(server.url, modernRequest("tools/call", { name, arguments: args }), {
    authorization: `Bearer ${server.token}`
  })

describePostgres("curated tools on PostgreSQL: arguments are bound as values", () => {
  let pg: PostgresServer
  let server: TestServer
  beforeAll(async () => {
    pg = await startPostgres()
    await pg.sql(
      `CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL); INSERT INTO orders VALUES (1, 'north'), (2, 'south'); GRANT SELECT ON orders TO ${pg.user}`
    )
    server = await startWith({
      type: "postgresql",
      host: pg.host,
      port: pg.port,
      database: pg.database,
      user: pg.user,
      password: pg.password,
      sslMode: "disable"
    }, [
      {
        name: "echo_values",
        description: "Returns its arguments",
        connection: "DB",
        sql:
          "SELECT :t::text AS t, :i::int AS i, :n::float8 AS n, :b::boolean AS b, :d::date::text AS d, (:ts::timestamptz = '2026-02-28T12:00:00Z'::timestamptz) AS ts, :e::text AS e, $q$ :t $q$ AS fixed, (SELECT count(*) FROM orders WHERE region = :t) AS matched",
        parameters: PARAMETERS
      }
    ])
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await pg?.stop()
  })

  it("for any drawn text, one row holds it as given and the statement is the same", async () => {
    const call = callOn(server)
    await FastCheck.assert(
      FastCheck.asyncProperty(hostile(false), async (text) => {
        const answer = await call("echo_values", { t: text, ...ARGUMENTS })
        expect(answer.json.result.isError, answer.text).toBe(false)
        expect(answer.json.result.structuredContent.rows).toEqual([[
          text,
          7,
          1.5,
          true,
          "2026-02-28",
          true,
          "b",
          " :t ",
          0
        ]])
      }),
      { numRuns: 60 }
    )
    // PostgreSQL text cannot hold NUL: the database refuses the value, and nothing else happens.
    const nul = await call("echo_values", { t: "a\u0000'; DROP TABLE orders; --", ...ARGUMENTS })
    expect(nul.json.result.isError).toBe(true)
    expect((await pg.sql("SELECT count(*)::int AS n FROM orders"))[0]).toEqual({ n: 2 })
  }, 180_000)
})

describeMariadb("curated tools on MariaDB: arguments are bound as values", () => {
  let mariadb: MariadbServer
  let server: TestServer
  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(
      "CREATE TABLE orders (id INT PRIMARY KEY, region VARCHAR(200) NOT NULL); INSERT INTO orders VALUES (1, 'north'), (2, 'south')"
    )
    server = await startWith({
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      database: mariadb.database,
      user: mariadb.user,
      password: mariadb.password,
      sslMode: "preferred"
    }, [
      {
        name: "echo_values",
        description: "Returns its arguments",
        connection: "DB",
        sql:
          "SELECT CAST(:t AS CHAR) AS t, :i + 0 AS i, :n AS n, :b AS b, CAST(:d AS CHAR) AS d, CAST(:ts AS CHAR) AS ts, CAST(:e AS CHAR) AS e, ' :t /*! ?' AS fixed, (SELECT count(*) FROM orders WHERE region = :t) AS matched",
        parameters: PARAMETERS
      }
    ])
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await mariadb?.stop()
  })

  it(
    "for any drawn text (NUL, backslashes and executable-comment openers included), one row holds it as given",
    async () => {
      const call = callOn(server)
      const first = await call("echo_values", { t: "x", ...ARGUMENTS })
      expect(first.json.result.isError, first.text).toBe(false)
      const [, i, n, b, d, ts, e, fixed, matched] = first.json.result.structuredContent.rows[0]
      await FastCheck.assert(
        FastCheck.asyncProperty(hostile(true), async (text) => {
          const answer = await call("echo_values", { t: text, ...ARGUMENTS })
          expect(answer.json.result.isError, answer.text).toBe(false)
          expect(answer.json.result.structuredContent.rows).toEqual([[text, i, n, b, d, ts, e, fixed, matched]])
        }),
        { numRuns: 60 }
      )
      expect([Number(i), Number(n), Number(b), d, e, fixed, Number(matched)]).toEqual([
        7,
        1.5,
        1,
        "2026-02-28",
        "b",
        " :t /*! ?",
        0
      ])
      const [rows] = await mariadb.admin().query("SELECT count(*) AS n FROM orders")
      expect(rows).toEqual([{ n: 2 }])
    },
    180_000
  )
})
