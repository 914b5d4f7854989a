import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import { Context, Effect } from "effect"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

// D-69, D-68 on a real MariaDB: START TRANSACTION … ROLLBACK dry runs (counted), the refusals
// information_schema shows, and the server's PREPARE before anyone is asked.
describeMariadb("approval previews and checks on MySQL/MariaDB", () => {
  let mariadb: MariadbServer
  let server: TestServer
  const id = randomUUID()
  const asked: Array<PendingApproval> = []
  let answer: (approval: PendingApproval) => ApprovalDecision | "never" = () => "denied"

  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      CREATE TABLE stock (sku VARCHAR(8) PRIMARY KEY, qty INT NOT NULL) ENGINE=InnoDB;
      INSERT INTO stock VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4);
      CREATE TABLE counters (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(8)) ENGINE=InnoDB;
      CREATE TABLE flat (k INT PRIMARY KEY) ENGINE=MyISAM;
      INSERT INTO flat VALUES (1);
    `)
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id,
          name: "Maria",
          type: "mysql",
          host: mariadb.host,
          port: mariadb.port,
          user: mariadb.user,
          password: mariadb.password,
          database: mariadb.database,
          sslMode: "preferred",
          externalAccess: "readWrite",
          aiPolicy: "alwaysAllow",
          confirmQueries: "writes"
        }]
      }),
      { mode: 0o600 }
    )
    server = await startTestServer({
      home,
      approvalPrompt: ApprovalPrompt.scripted((approval) => answer(approval), asked),
      token: "readWrite"
    })
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await mariadb?.stop()
  }, 60_000)
  beforeEach(() => {
    asked.length = 0
    answer = () => "denied"
  })

  const call = (query: string) =>
    postMcp(
      server.url,
      modernRequest("tools/call", { name: "execute_query", arguments: { connection_id: id, query } }),
      { authorization: `Bearer ${server.token}` }
    )
  const previewOf = async (query: string) => {
    const response = await call(query)
    expect(response.json.result.content[0].text, response.text).toBe("denied: the user did not approve this operation")
    return asked[0]?.preview
  }
  const rows = async (sql: string) => (await mariadb.admin().query(sql))[0]

  it("D-69: an UPDATE is counted inside START TRANSACTION … ROLLBACK and nothing changes", async () => {
    expect(await previewOf("UPDATE stock SET qty = qty + 10 WHERE qty >= 2")).toEqual({
      _tag: "Changes",
      action: "change",
      target: "stock",
      unit: "row",
      count: 3,
      columns: [],
      rows: [],
      note: "MySQL and MariaDB dry runs count the rows; they do not show them"
    })
    expect(await rows("SELECT sum(qty) AS total FROM stock")).toEqual([{ total: "10" }])
  })

  it("D-69: no dry run for an AUTO_INCREMENT insert or a table without transactions", async () => {
    expect(await previewOf("INSERT INTO counters (note) VALUES ('x')")).toEqual({
      _tag: "NoPreview",
      reason: "inserting into counters advances the counter behind id, which a rollback does not give back"
    })
    asked.length = 0
    expect(await previewOf("DELETE FROM flat")).toEqual({
      _tag: "NoPreview",
      reason: "flat uses the MyISAM engine, which cannot roll a change back"
    })
    expect(await rows("SELECT count(*) AS n FROM flat")).toEqual([{ n: 1 }])
  })

  it("D-87: a grid page's console SQL (literals with MySQL's backslash escapes, exact LIMIT) returns the rows browse reads", async () => {
    await mariadb.admin().query(
      "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(20)); INSERT INTO notes VALUES (1, 'a\\\\b'), (2, 'it''s'), (3, '100%'), (4, 'plain')"
    )
    const connection = (await Effect.runPromise(Context.get(server.context, Connections).get(id)))!
    const driver = await Effect.runPromise(Context.get(server.context, Drivers).forConnection(connection))
    for (const value of ["\\", "'", "%", "a"]) {
      const query = {
        filters: [{ column: "body", operator: "contains" as const, value }],
        logic: "and" as const,
        sort: [{ column: "id", direction: "asc" as const }],
        limit: 10,
        offset: 0
      }
      const text = await Effect.runPromise(driver.browseText("notes", query))
      const grid = await Effect.runPromise(driver.browse("notes", query))
      const console = await Effect.runPromise(
        driver.execute(text, { maxRows: 100, timeoutSeconds: 10, access: "readonly" })
      )
      expect(console.rows, text).toEqual(grid.rows)
      expect(grid.rows.length, text).toBe(value === "a" ? 2 : 1)
    }
  })

  it.each([
    ["x".repeat(300), /^query_failed: You have an error in your SQL syntax.* \(checked by the database/],
    [
      "UPDATE no_such_table SET a = 1",
      /^query_failed: Table '[^']+\.no_such_table' doesn't exist \(checked by the database/
    ]
  ])(
    "D-68: %j fails at once with the server's own message (PREPARE, nothing run); no dialog",
    async (query, expected) => {
      answer = () => "never"
      const response = await call(query)
      expect(response.json.result.content[0].text).toMatch(expected)
      expect(asked).toHaveLength(0)
    }
  )
})
