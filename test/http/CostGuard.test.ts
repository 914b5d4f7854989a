import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { eventually, type PostgresServer, runningStatements, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

// D-95, D-96: the cost guard through the official 2.4.0 client against real servers.

interface Engine {
  readonly name: string
  readonly connection: (id: string, name: string, guard: Record<string, unknown>) => Record<string, unknown>
  /** The plan's top node for a full read of `big`, as the estimate names it. */
  readonly node: string
}

const guardedServer = async (engine: Engine, asked: Array<PendingApproval>, answer: () => ApprovalDecision) => {
  const ids = { ask: randomUUID(), refuse: randomUUID(), roomy: randomUUID() }
  const home = tempHome()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [
        engine.connection(ids.ask, "Ask", { costGuard: "ask", costMaxRows: 1000 }),
        engine.connection(ids.refuse, "Refuse", { costGuard: "refuse", costMaxRows: 1000 }),
        engine.connection(ids.roomy, "Roomy", { costGuard: "refuse", costMaxRows: 10_000_000 })
      ]
    }),
    { mode: 0o600 }
  )
  const server = await startTestServer({
    home,
    approvalPrompt: ApprovalPrompt.scripted(() => answer(), asked),
    token: "fullAccess"
  })
  return { server, ids }
}

const clientOf = async (server: TestServer, elicit: "accept" | "decline" | "none") => {
  const seen: Array<any> = []
  const client = new Client({ name: "cost-tests", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: elicit === "none" ? {} : { elicitation: { form: {} } }
  })
  if (elicit !== "none") {
    client.setRequestHandler("elicitation/create", async (request: any) => {
      seen.push(request.params)
      return elicit === "decline" ? { action: "decline" } : { action: "accept", content: { approved: true } }
    })
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${server.token}` } }
    })
  )
  return { client, seen }
}

const query = async (server: TestServer, elicit: "accept" | "decline" | "none", connectionId: string, sql: string) => {
  const { client, seen } = await clientOf(server, elicit)
  try {
    const result: any = await client.callTool({
      name: "execute_query",
      arguments: { connection_id: connectionId, query: sql }
    })
    return { result, seen }
  } finally {
    await client.close()
  }
}

const costGuardSuite = (
  engine: Engine,
  setup: () => Promise<{ server: TestServer; ids: Record<"ask" | "refuse" | "roomy", string> }>,
  asked: Array<PendingApproval>
) => {
  let server: TestServer
  let ids: Record<"ask" | "refuse" | "roomy", string>
  beforeAll(async () => {
    ;({ server, ids } = await setup())
  }, 120_000)
  afterAll(() => server?.stop(), 60_000)
  beforeEach(() => {
    asked.length = 0
  })

  it(`D-95: ${engine.name} ask: a read over the rows budget asks through the form with the estimate and the plan's top node; accepted, it runs`, async () => {
    const { result, seen } = await query(server, "accept", ids.ask, "SELECT id FROM big")
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(result.structuredContent.row_count).toBeGreaterThan(0)
    expect(seen).toHaveLength(1)
    expect(seen[0].message).toMatch(
      /^Allow SELECT on 'Ask'\? This reads more than this connection's cost budget allows\./
    )
    expect(seen[0].message).toMatch(
      /The planner's estimate \(the statement has not run\): [\d,]+ rows \(budget 1,000\)/
    )
    expect(seen[0].message).toMatch(new RegExp(`The plan starts with [^\\n]*${engine.node}\\.`))
  })

  it(`D-95: ${engine.name} ask: a declined form refuses the read`, async () => {
    const { result, seen } = await query(server, "decline", ids.ask, "SELECT id FROM big")
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toBe("denied: the user did not approve this operation")
    expect(seen).toHaveLength(1)
  })

  it(`D-95: ${engine.name} ask: without form elicitation the app's dialog shows the estimate`, async () => {
    const { result } = await query(server, "none", ids.ask, "SELECT id FROM big")
    expect(result.isError).toBe(false)
    expect(asked).toHaveLength(1)
    expect(asked[0]!.preview).toMatchObject({
      _tag: "Estimate",
      node: expect.stringContaining(engine.node),
      over: [expect.stringMatching(/ rows \(budget 1,000\)$/)]
    })
  })

  it(`D-95: ${engine.name} refuse: a read over budget is a tool error naming the estimate, the budget and what to change`, async () => {
    const { result, seen } = await query(server, "accept", ids.refuse, "SELECT id, t FROM big ORDER BY t")
    expect(result.isError).toBe(true)
    const text: string = result.content[0].text
    expect(text).toMatch(/^denied: the planner estimates [\d,]+ rows \(budget 1,000\)/)
    expect(text).toContain(engine.node)
    expect(text).toMatch(/add a WHERE .*an index .*a LIMIT/)
    expect(seen).toHaveLength(0)
    expect(asked).toHaveLength(0)
  })

  it(`D-95: ${engine.name} a read within the budget runs without a dialog or a form`, async () => {
    for (
      const [id, sql] of [[ids.ask, "SELECT id FROM big WHERE id = 5"], [ids.roomy, "SELECT id FROM big"]] as const
    ) {
      const { result, seen } = await query(server, "accept", id, sql)
      expect(result.isError, sql).toBe(false)
      expect(seen).toHaveLength(0)
    }
    expect(asked).toHaveLength(0)
  })

  it(`D-95: ${engine.name} explain_query with analyze runs the statement, so it is estimated first; without analyze nothing runs and it is not`, async () => {
    const { client } = await clientOf(server, "accept")
    try {
      const analyzed: any = await client.callTool({
        name: "explain_query",
        arguments: { connection_id: ids.refuse, query: "SELECT id, t FROM big ORDER BY t", analyze: true }
      })
      expect(analyzed.isError).toBe(true)
      expect(analyzed.content[0].text).toMatch(/^denied: the planner estimates [\d,]+ rows \(budget 1,000\)/)
      const planned: any = await client.callTool({
        name: "explain_query",
        arguments: { connection_id: ids.refuse, query: "SELECT id, t FROM big ORDER BY t" }
      })
      expect(planned.isError, JSON.stringify(planned)).toBe(false)
    } finally {
      await client.close()
    }
  })

  it(`D-95: ${engine.name} a statement the planner cannot estimate fails closed, and one it cannot plan fails with the database's message`, async () => {
    const closed = await query(server, "accept", ids.refuse, "/*!99999 SELECT 1 */ SELECT id FROM big")
    expect(closed.result.isError).toBe(true)
    expect(closed.result.content[0].text).toMatch(/^denied: this connection's cost guard needs the planner's estimate/)
    const missing = await query(server, "accept", ids.refuse, "SELECT * FROM no_such_table")
    expect(missing.result.isError).toBe(true)
    expect(missing.result.content[0].text).toMatch(
      /^query_failed: .*no_such_table.*\(the planner's check before the read; nothing ran\)$/
    )
    const catalog = await query(
      server,
      "accept",
      ids.refuse,
      "SHOW search_path".replace("search_path", engine.name === "PostgreSQL" ? "search_path" : "TABLES")
    )
    expect(catalog.result.isError, JSON.stringify(catalog.result)).toBe(false)
  })
}

describePostgres("the cost guard on PostgreSQL", () => {
  let postgres: PostgresServer
  const asked: Array<PendingApproval> = []
  const engine: Engine = {
    name: "PostgreSQL",
    node: "Seq Scan on big",
    connection: (id, name, guard) => ({
      id,
      name,
      type: "postgresql",
      host: postgres.host,
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      password: postgres.password,
      sslMode: "disable",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow",
      ...guard
    })
  }
  afterAll(() => postgres?.stop(), 60_000)
  costGuardSuite(engine, async () => {
    postgres = await startPostgres()
    await postgres.sql(`
      CREATE TABLE big AS SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 50000) g;
      ALTER TABLE big ADD PRIMARY KEY (id);
      ANALYZE big;
      GRANT SELECT ON big TO ${postgres.user};
      CREATE FUNCTION trace(marker text) RETURNS int VOLATILE LANGUAGE plpgsql AS $$ BEGIN RAISE LOG 'cost-trace %', marker; RETURN 1; END $$;
    `)
    return guardedServer(engine, asked, () => "approved")
  }, asked)

  it("D-95: the estimate is EXPLAIN only: a volatile function with a side effect in a refused read leaves no trace", async () => {
    const home = tempHome()
    const id = randomUUID()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [engine.connection(id, "Refuse", { costGuard: "refuse", costMaxRows: 1000 })]
      }),
      { mode: 0o600 }
    )
    const own = await startTestServer({ home, token: "fullAccess" })
    const { result } = await query(own, "none", id, "SELECT trace('explained-only') FROM big").finally(() => own.stop())
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(/^denied: the planner estimates/)
    // The same function, run for real, does leave its trace: the log is where a run would show.
    await postgres.sql("SELECT trace('really-ran')")
    await eventually(
      () => postgres.log().includes("cost-trace really-ran"),
      "the function's trace reaches the server log"
    )
    expect(postgres.log()).not.toContain("cost-trace explained-only")
    expect(postgres.log()).toContain("EXPLAIN (FORMAT JSON) SELECT trace('explained-only') FROM big")
  })
  it(
    "D-95: the estimate runs under the call's cancel and deadline: an EXPLAIN waiting on a lock is stopped by either",
    async () => {
      const home = tempHome()
      const id = randomUUID()
      writeFileSync(
        join(home, "connections.json"),
        JSON.stringify({
          version: 1,
          connections: [engine.connection(id, "Ask", { costGuard: "ask", costMaxRows: 1000 })]
        }),
        { mode: 0o600 }
      )
      const own = await startTestServer({ home, token: "fullAccess" })
      const locker = await postgres.client()
      const { client } = await clientOf(own, "none")
      try {
        // EXPLAIN takes the table's lightest lock, which waits behind this one: the estimate cannot finish on its own. A
        // table of its own: the capped reads of the tests before hold big open for fetch_more.
        await postgres.sql(
          `CREATE TABLE locked AS SELECT * FROM big; ANALYZE locked; GRANT SELECT ON locked TO ${postgres.user}`
        )
        await locker.query("BEGIN; LOCK TABLE locked IN ACCESS EXCLUSIVE MODE")
        const controller = new AbortController()
        const call = client.callTool({
          name: "execute_query",
          arguments: {
            connection_id: id,
            query: "SELECT id FROM locked /* cancelled-estimate */",
            timeout_seconds: 120
          }
        }, { signal: controller.signal })
        await eventually(
          async () => (await runningStatements(postgres, "cancelled-estimate")) === 1,
          "the EXPLAIN waits on the lock"
        )
        controller.abort()
        await expect(call).rejects.toThrow()
        await eventually(
          async () => (await runningStatements(postgres, "cancelled-estimate")) === 0,
          "the cancelled call's EXPLAIN ends on the server"
        )
        expect(postgres.log()).toContain("EXPLAIN (FORMAT JSON) SELECT id FROM locked /* cancelled-estimate */")

        const timed: any = await client.callTool({
          name: "execute_query",
          arguments: { connection_id: id, query: "SELECT id FROM locked /* timed-estimate */", timeout_seconds: 1 }
        }).catch((error: unknown) => error)
        expect(String(timed?.message)).toContain("The statement ran past its 1 s deadline and was stopped")
        await eventually(
          async () => (await runningStatements(postgres, "timed-estimate")) === 0,
          "the EXPLAIN past its deadline ends on the server"
        )
      } finally {
        await locker.query("ROLLBACK").catch(() => undefined)
        await locker.end()
        await client.close()
        await own.stop()
      }
    },
    60_000
  )
})

describeMariadb("the cost guard on MariaDB", () => {
  let mariadb: MariadbServer
  const asked: Array<PendingApproval> = []
  const engine: Engine = {
    name: "MariaDB",
    node: "scan of big",
    connection: (id, name, guard) => ({
      id,
      name,
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      user: mariadb.user,
      password: mariadb.password,
      database: mariadb.database,
      sslMode: "preferred",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow",
      ...guard
    })
  }
  afterAll(() => mariadb?.stop(), 60_000)
  costGuardSuite(engine, async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      CREATE TABLE big (id INT PRIMARY KEY, t VARCHAR(40)) ENGINE=InnoDB;
      INSERT INTO big SELECT seq, md5(seq) FROM seq_1_to_50000;
      ANALYZE TABLE big;
    `)
    return guardedServer(engine, asked, () => "approved")
  }, asked)
})

describe("the cost guard on SQLite", () => {
  it("D-95: a SQLite connection is not guarded, whatever its file says: a large read runs without asking", async () => {
    const home = tempHome()
    const path = join(home, "rows.db")
    const db = new Database(path)
    db.exec(
      "CREATE TABLE big (id INTEGER PRIMARY KEY); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO big SELECT i FROM n"
    )
    db.close()
    const id = randomUUID()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id,
          name: "Lite",
          type: "sqlite",
          path,
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow",
          costGuard: "refuse",
          costMaxRows: 1
        }]
      }),
      { mode: 0o600 }
    )
    const asked: Array<PendingApproval> = []
    const server = await startTestServer({
      home,
      approvalPrompt: ApprovalPrompt.scripted(() => "denied", asked),
      token: "fullAccess"
    })
    try {
      const { result, seen } = await query(server, "accept", id, "SELECT count(*) AS n FROM big a, big b")
      expect(result.isError, JSON.stringify(result)).toBe(false)
      expect(result.structuredContent.rows).toEqual([[4_000_000]])
      expect(seen).toHaveLength(0)
      expect(asked).toHaveLength(0)
    } finally {
      await server.stop()
    }
  }, 60_000)
})
