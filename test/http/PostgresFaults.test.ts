// D-73: PostgreSQL connections that die or stall under a running call, through the real MCP endpoint.
// Each scenario checks the whole oracle: the caller's error names the connection (or is -33002/-33003), the
// endpoint answers server/discover, within 2 s no dbdesk backend is busy, and the next call returns its row.
// No process-level safety net is installed here (only `serve` installs one): these prove the root causes.
import { afterAll, beforeAll, expect, it } from "vitest"
import { type FaultProxy, startFaultProxy } from "../support/FaultProxy.ts"
import { eventually, type PostgresServer, runningStatements, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { modernRequest } from "../support/TestServer.ts"
import {
  expectConnectionFailure,
  expectHealed,
  type PgConnection,
  pgConnection,
  type PostgresMcp,
  startPostgresMcp,
  terminateBackends
} from "../support/PostgresMcp.ts"

/** Rows of about 100 kB, the first three at once, then a long sleep: the answer is mid-transfer when it breaks. */
const midResult = (marker: string) =>
  `SELECT g AS ${marker}, repeat('x', 100000) AS filler, pg_sleep(CASE WHEN g > 3 THEN 30 ELSE 0 END) FROM generate_series(1, 10) g`

describePostgres("PostgreSQL faults under a running call (D-73)", () => {
  let postgres: PostgresServer
  let proxy: FaultProxy
  let mcp: PostgresMcp
  let direct: PgConnection
  let proxied: PgConnection

  beforeAll(async () => {
    postgres = await startPostgres()
    const owner = await postgres.client({ role: "app" })
    await owner.query(`
      CREATE TABLE t (id int PRIMARY KEY, label text NOT NULL);
      INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');
      CREATE TABLE notes (id serial PRIMARY KEY, label text NOT NULL);
      CREATE FUNCTION notes_slow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.label = 'slow' THEN PERFORM pg_sleep(30); END IF; RETURN NEW; END $$;
      CREATE TRIGGER notes_slow BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notes_slow();
    `)
    await owner.end()
    proxy = await startFaultProxy(postgres.port)
    direct = pgConnection("Direct (PostgreSQL)", postgres.port)
    proxied = pgConnection("Proxied (PostgreSQL)", proxy.port)
    mcp = await startPostgresMcp(postgres, [direct, proxied])
  }, 120_000)

  afterAll(async () => {
    await mcp?.stop()
    await proxy?.close()
    await postgres?.stop()
  }, 60_000)

  const running = (marker: string) =>
    eventually(async () => (await runningStatements(postgres, marker)) >= 1, `${marker} running`)

  it("a backend terminated mid-query: the caller gets an error naming the connection and the pool heals", async () => {
    const answer = mcp.call(direct, "execute_query", { query: "SELECT pg_sleep(20) AS killed_mid_query" })
    await running("killed_mid_query")
    await terminateBackends(postgres, "killed_mid_query")
    expectConnectionFailure(await answer, direct)
    await expectHealed(mcp, postgres, direct)
  }, 60_000)

  it("a backend terminated mid-result (rows already on the wire)", async () => {
    const answer = mcp.call(direct, "execute_query", { query: midResult("killed_mid_result") })
    await running("killed_mid_result")
    await terminateBackends(postgres, "killed_mid_result")
    expectConnectionFailure(await answer, direct)
    await expectHealed(mcp, postgres, direct)
  }, 60_000)

  it("a backend terminated inside insert_rows' transaction: nothing is committed and the pool heals", async () => {
    const answer = mcp.call(direct, "insert_rows", {
      table: "notes",
      columns: ["label"],
      rows: [["fast"], ["slow"], ["never"]]
    })
    // Not the quick first row: the second one, sleeping in its trigger inside the transaction.
    await eventually(
      async () =>
        (await postgres.sql(
          "SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND wait_event = 'PgSleep' AND position('notes' in query) > 0",
          [postgres.user]
        )).length === 1,
      "the second row's insert sleeping in its trigger"
    )
    await terminateBackends(postgres, "notes")
    expectConnectionFailure(await answer, direct)
    await expectHealed(mcp, postgres, direct)
    expect(await postgres.sql("SELECT label FROM notes")).toEqual([])
  }, 60_000)

  it("every pooled backend terminated between calls: the next call still returns its row", async () => {
    await Promise.all([1, 2, 3, 4].map(() => mcp.rows(direct, "SELECT pg_sleep(0.2), 'warm' AS between_calls")))
    const ended = await postgres.sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend'",
      [postgres.user]
    )
    expect(ended.length).toBeGreaterThan(0)
    await eventually(
      async () =>
        (await postgres.sql("SELECT 1 FROM pg_stat_activity WHERE usename = $1", [postgres.user])).length === 0,
      "the terminated backends gone"
    )
    expect(await mcp.rows(direct, "SELECT label FROM t WHERE id = 1")).toEqual([["one"]])
    await expectHealed(mcp, postgres, direct)
  }, 60_000)

  it(
    "a call still waiting for a session when its deadline passes answers -33003 while the sessions' statements still run",
    async () => {
      const holders = Array.from({ length: 4 }, () => new AbortController())
      const held = holders.map((holder, index) =>
        fetch(mcp.server.url, {
          method: "POST",
          signal: holder.signal,
          headers: {
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "execute_query",
            authorization: `Bearer ${mcp.server.token}`
          },
          body: JSON.stringify(
            modernRequest("tools/call", {
              name: "execute_query",
              arguments: { connection_id: direct.id, query: `SELECT pg_sleep(10) AS holding_${index}` }
            }, `hold-${index}`)
          )
        }).catch(() => undefined)
      )
      await eventually(
        async () => (await runningStatements(postgres, "holding_")) === 4,
        "every session of the pool busy"
      )
      const waiting = await mcp.call(direct, "execute_query", {
        query: "SELECT 'never ran' AS waiting",
        timeout_seconds: 1
      })
      expect(waiting.json.error, waiting.text).toMatchObject({
        code: -33003,
        data: { deadline: "statement", seconds: 1 }
      })
      expect(await runningStatements(postgres, "holding_")).toBe(4)
      for (const holder of holders) holder.abort()
      await Promise.all(held)
      await expectHealed(mcp, postgres, direct)
      expect(postgres.log()).not.toContain("'never ran'")
    },
    60_000
  )

  for (const mode of ["fast", "immediate"] as const) {
    it(
      `the server restarted with -m ${mode} mid-query: an error naming the connection, then the next call reconnects`,
      async () => {
        const answer = mcp.call(direct, "execute_query", { query: `SELECT pg_sleep(20) AS restarted_${mode}` })
        await running(`restarted_${mode}`)
        await postgres.restart(mode)
        expectConnectionFailure(await answer, direct)
        await expectHealed(mcp, postgres, direct)
      },
      90_000
    )
  }

  it("the proxy resets the connection mid-query", async () => {
    const answer = mcp.call(proxied, "execute_query", { query: "SELECT pg_sleep(20) AS reset_mid_query" })
    await running("reset_mid_query")
    proxy.reset()
    expectConnectionFailure(await answer, proxied)
    await expectHealed(mcp, postgres, proxied)
  }, 60_000)

  it("the proxy resets the connection mid-result", async () => {
    const before = proxy.downstreamBytes()
    const answer = mcp.call(proxied, "execute_query", { query: midResult("reset_mid_result") })
    await eventually(() => proxy.downstreamBytes() - before > 250_000, "three large rows on the wire")
    proxy.reset()
    expectConnectionFailure(await answer, proxied)
    await expectHealed(mcp, postgres, proxied)
  }, 60_000)

  it("the proxy half-closes the connection mid-query (FIN towards dbdesk)", async () => {
    const answer = mcp.call(proxied, "execute_query", { query: "SELECT pg_sleep(20) AS half_closed" })
    await running("half_closed")
    proxy.halfClose()
    expectConnectionFailure(await answer, proxied)
    await expectHealed(mcp, postgres, proxied)
  }, 60_000)

  it(
    "the proxy stalls the connection mid-query: the deadline answers -33003 and the stalled session is dropped",
    async () => {
      const answer = mcp.call(proxied, "execute_query", { query: "SELECT pg_sleep(20) AS stalled", timeout_seconds: 2 })
      await running("stalled")
      proxy.stall()
      const settled = await answer
      expect(settled.json.error, settled.text).toMatchObject({
        code: -33003,
        data: { deadline: "statement", seconds: 2 }
      })
      await expectHealed(mcp, postgres, proxied)
    },
    60_000
  )

  it("the proxy stalls the connection mid-result", async () => {
    const before = proxy.downstreamBytes()
    const answer = mcp.call(proxied, "execute_query", { query: midResult("stalled_mid_result"), timeout_seconds: 3 })
    await eventually(() => proxy.downstreamBytes() - before > 250_000, "three large rows on the wire")
    proxy.stall()
    const settled = await answer
    expect(settled.json.error, settled.text).toMatchObject({
      code: -33003,
      data: { deadline: "statement", seconds: 3 }
    })
    await expectHealed(mcp, postgres, proxied)
  }, 60_000)
})
