import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import { Context, Effect } from "effect"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import { backendsSettle, type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

// D-69, D-68 on a real PostgreSQL 15: BEGIN … ROLLBACK dry runs, the catalog's side-effect refusals, and
// the server's Parse before anyone is asked.
describePostgres("approval previews and checks on PostgreSQL", () => {
  let postgres: PostgresServer
  let server: TestServer
  const id = randomUUID()
  const asked: Array<PendingApproval> = []
  let answer: (approval: PendingApproval) => ApprovalDecision | "never" = () => "denied"

  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`
      CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, balance numeric NOT NULL);
      INSERT INTO accounts SELECT g, 'owner ' || g, g * 10 FROM generate_series(1, 20) g;
      CREATE TABLE events (id serial PRIMARY KEY, note text);
      CREATE TABLE audited (id int PRIMARY KEY, v int);
      CREATE FUNCTION audited_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER audited_touch BEFORE UPDATE ON audited FOR EACH ROW EXECUTE FUNCTION audited_touch();
      INSERT INTO audited VALUES (1, 1);
      CREATE SEQUENCE counter;
      GRANT SELECT, INSERT, UPDATE, DELETE ON accounts, events, audited TO ${postgres.user};
      GRANT USAGE, SELECT, UPDATE ON SEQUENCE events_id_seq, counter TO ${postgres.user};
    `)
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id,
          name: "PG",
          type: "postgresql",
          host: postgres.host,
          port: postgres.port,
          database: postgres.database,
          user: postgres.user,
          password: postgres.password,
          sslMode: "disable",
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
    await postgres?.stop()
  })
  beforeEach(() => {
    asked.length = 0
    answer = () => "denied"
  })

  const call = (query: string, elicitation = false) =>
    postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: id, query },
        ...(elicitation ? { _meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } } } : {})
      }),
      { authorization: `Bearer ${server.token}` }
    )
  const previewOf = async (query: string) => {
    const response = await call(query)
    expect(response.json.result.content[0].text, response.text).toBe("denied: the user did not approve this operation")
    return asked[0]?.preview
  }
  const sequence = async (name: string) =>
    (await postgres.sql(`SELECT last_value::int AS value, is_called FROM ${name}`))[0]

  it("an UPDATE is dry-run inside BEGIN … ROLLBACK: count, rows before → after by primary key, nothing kept or left open", async () => {
    const response = await call("UPDATE accounts SET balance = balance + 1 WHERE id <= 7", true)
    const message: string = response.json.result.inputRequests.approve_statement.params.message
    expect(message).toContain("Preview (run and rolled back): will change 7 rows in accounts.")
    expect(message).toContain("• id=1: balance: '10' → '11'")
    expect(message).toContain("… and 2 more rows")
    expect(await postgres.sql("SELECT sum(balance)::int AS total FROM accounts")).toEqual([{ total: 2100 }])
    expect(await backendsSettle(postgres)).toEqual([])
  })

  it("a DELETE shows the rows it would delete; the app dialog carries the same preview", async () => {
    const preview = await previewOf("DELETE FROM accounts WHERE id > 18")
    expect(preview).toMatchObject({
      _tag: "Changes",
      action: "delete",
      target: "accounts",
      count: 2,
      columns: ["id", "owner", "balance"]
    })
    expect(preview?._tag === "Changes" ? preview.rows : []).toEqual([{ before: [19, "owner 19", "190"], after: null }, {
      before: [20, "owner 20", "200"],
      after: null
    }])
    expect(await postgres.sql("SELECT count(*)::int AS n FROM accounts")).toEqual([{ n: 20 }])
  })

  it("no dry run when a rollback cannot undo it: a serial default, nextval(), a trigger; the sequences do not move", async () => {
    const events = await sequence("events_id_seq")
    const counter = await sequence("counter")
    expect(await previewOf("INSERT INTO events (note) VALUES ('x')")).toEqual({
      _tag: "NoPreview",
      reason: "inserting into events takes a value from the sequence behind id, which a rollback does not give back"
    })
    asked.length = 0
    expect(await previewOf("UPDATE accounts SET balance = nextval('counter') WHERE id = 1")).toEqual({
      _tag: "NoPreview",
      reason:
        "it calls nextval(), which is not marked immutable or stable: its effects (a sequence, a notification, a file) may outlast a rollback"
    })
    asked.length = 0
    expect(await previewOf("UPDATE audited SET v = 2")).toEqual({
      _tag: "NoPreview",
      reason: "audited has triggers (audited_touch), which run code a rollback may not undo"
    })
    asked.length = 0
    expect(await previewOf("INSERT INTO events (id, note) VALUES (100, 'explicit id')")).toMatchObject({
      _tag: "Changes",
      action: "insert",
      count: 1
    })
    expect(await sequence("events_id_seq")).toEqual(events)
    expect(await sequence("counter")).toEqual(counter)
    expect(await postgres.sql("SELECT count(*)::int AS n FROM events")).toEqual([{ n: 0 }])
  })

  it("a dry run past 2 s is cancelled: 'took too long', the dialog still asks, nothing is left running", async () => {
    const preview = await previewOf(
      "UPDATE accounts SET balance = balance WHERE id = (SELECT count(*) % 1 + 1 FROM generate_series(1, 2000000000))"
    )
    expect(preview).toEqual({ _tag: "Unavailable", reason: "took too long (over 2 s)" })
    expect(asked).toHaveLength(1)
    expect(await backendsSettle(postgres, 10)).toEqual([])
  }, 60_000)

  it.each([
    ["x".repeat(300), /^query_failed: syntax error at or near "x{300}" \(checked by the database/],
    [
      "UPDATE no_such_table SET a = 1",
      /^query_failed: relation "no_such_table" does not exist \(checked by the database/
    ],
    [
      "UPDATE accounts SET no_such_column = 1",
      /^query_failed: column "no_such_column" of relation "accounts" does not exist \(checked/
    ]
  ])(
    "D-68: %j fails at once with PostgreSQL's own message (Parse, nothing run); no dialog",
    async (query, expected) => {
      answer = () => "never"
      const response = await call(query)
      expect(response.json.result.content[0].text).toMatch(expected)
      expect(asked).toHaveLength(0)
    }
  )

  it("D-87: a grid page's console SQL (literals, exact LIMIT) returns the rows browse reads with bound values", async () => {
    const connection = (await Effect.runPromise(Context.get(server.context, Connections).get(id)))!
    const driver = await Effect.runPromise(Context.get(server.context, Drivers).forConnection(connection))
    const query = {
      filters: [{ column: "owner", operator: "contains" as const, value: "er 1" }, {
        column: "balance",
        operator: ">=" as const,
        value: "20"
      }],
      logic: "and" as const,
      sort: [{ column: "balance", direction: "desc" as const }],
      limit: 4,
      offset: 1
    }
    const text = await Effect.runPromise(driver.browseText("accounts", query))
    expect(text).toBe(
      `SELECT * FROM "public"."accounts" WHERE ("owner" LIKE '%er 1%' ESCAPE '\\') AND ("balance" >= '20') ORDER BY "balance" DESC LIMIT 4 OFFSET 1`
    )
    const grid = await Effect.runPromise(driver.browse("accounts", query))
    const console = await Effect.runPromise(
      driver.execute(text, { maxRows: 100, timeoutSeconds: 10, access: "readonly" })
    )
    expect(console.rows).toEqual(grid.rows)
    expect(grid.rows.map((row) => row[0])).toEqual([18, 17, 16, 15])
  })

  it("D-68: a NUL in the text is refused before any dialog, and the session survives (it used to be lost)", async () => {
    answer = () => "never"
    const response = await call("\u0000")
    expect(response.json.result.content[0].text).toMatch(
      /^query_failed: invalid byte sequence for encoding "UTF8": 0x00 /
    )
    expect(asked).toHaveLength(0)
    expect(postgres.log()).not.toContain("invalid message format")
  })
})
