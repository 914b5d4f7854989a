import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import {
  browseToEnd,
  expectNoHandle,
  fetchMore,
  handlesStayWithTheirCaller,
  pageOf,
  query,
  readToEnd
} from "../support/Continuation.ts"
import { connectModernClient } from "../support/McpClients.ts"
import {
  backendsSettle,
  busyBackends,
  eventually,
  type PostgresServer,
  startPostgres
} from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

const connectionFile = (postgres: PostgresServer, id: string) =>
  JSON.stringify({
    version: 1,
    connections: [{
      id,
      name: "Warehouse (PostgreSQL)",
      type: "postgresql",
      host: postgres.host,
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      password: postgres.password,
      sslMode: "disable",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow"
    }]
  })

const startServer = async (postgres: PostgresServer, id: string, limits: Record<string, number>) => {
  const home = tempHome()
  writeFileSync(join(home, "connections.json"), connectionFile(postgres, id), { mode: 0o600 })
  return startTestServer({
    home,
    settings: { mcp: { requireAuth: false }, limits: { requestsPerMinute: 1_000_000, ...limits } },
    token: "readOnly"
  })
}

const newToken = async (server: TestServer) =>
  (await Effect.runPromise(
    Context.get(server.context, Tokens).create({
      name: `caller ${randomUUID()}`,
      access: "readOnly",
      connections: "all"
    })
  )).value

/** Sessions of the role under test inside a transaction: the ones held for open handles. */
const heldSessions = async (postgres: PostgresServer) =>
  (await busyBackends(postgres)).filter((backend) => backend.state.startsWith("idle in transaction"))

describePostgres("fetch_more on PostgreSQL: a capped read continues on its open cursor (real server)", () => {
  let postgres: PostgresServer
  let server: TestServer
  let client: Client
  const id = randomUUID()

  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql("CREATE TABLE numbers (n int PRIMARY KEY, label text NOT NULL)")
    await postgres.sql(`ALTER TABLE numbers OWNER TO ${postgres.user}`)
    await postgres.sql("INSERT INTO numbers SELECT n, 'label ' || n FROM generate_series(1, 25) n")
    server = await startServer(postgres, id, { maxAnswerBytes: 65_536 })
    client = await connectModernClient(server.url, { token: server.token! })
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    await server?.stop()
    await postgres?.stop()
  }, 60_000)

  it("a capped answer says so and carries a handle; fetch_more reads the next pages to the end, in order", async () => {
    const { pages, rows } = await readToEnd(client, id, "SELECT n, label FROM numbers ORDER BY n", 10)
    expect(pages.map((page) => page.rows.length)).toEqual([10, 10, 5])
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    expect(pages[0]!.columns).toEqual(["n", "label"])
    expect(pages[2]!.handle).toBeUndefined()
    await eventually(
      async () => (await heldSessions(postgres)).length === 0,
      "the cursor's session given back at the end"
    )
  }, 60_000)

  it("an answer that is not cut has no handle and holds no session", async () => {
    const page = await query(client, id, "SELECT n FROM numbers ORDER BY n", 25)
    expect(page.rows).toHaveLength(25)
    expect(page.truncated).toBe(false)
    expect(page.handle).toBeUndefined()
    expect(await backendsSettle(postgres)).toEqual([])
  }, 60_000)

  it("a continued read does not run the statement again: the server received it once", async () => {
    const marker = `once_${randomUUID().replaceAll("-", "")}`
    const { pages, rows } = await readToEnd(client, id, `SELECT n AS ${marker} FROM numbers ORDER BY n`, 4, 6)
    expect(rows).toHaveLength(25)
    // The server logs every Execute: the statement ran once, and each later page is a fetch from its open portal.
    const lines = postgres.log().split("\n").filter((line) => line.includes(`SELECT n AS ${marker}`))
    expect(lines.filter((line) => !line.includes("fetch from"))).toHaveLength(1)
    expect(lines.filter((line) => line.includes("execute fetch from <unnamed>"))).toHaveLength(pages.length - 1)
  }, 60_000)

  it("a page cut by limits.maxAnswerBytes continues with the row it could not take", async () => {
    const { pages, rows } = await readToEnd(
      client,
      id,
      "SELECT n, repeat('x', 5000) AS wide FROM generate_series(1, 40) n",
      1000
    )
    expect(pages.length).toBeGreaterThan(2)
    expect(pages[0]!.message).toContain("fetch_more")
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
  }, 60_000)

  it("a spent handle is not_found, and max_rows of fetch_more sets the page size", async () => {
    const first = await query(client, id, "SELECT n FROM numbers ORDER BY n", 5)
    const second = pageOf(await fetchMore(client, first.handle!, 15))
    expect(second.rows.map((row) => row[0])).toEqual(Array.from({ length: 15 }, (_, i) => i + 6))
    expectNoHandle(await fetchMore(client, first.handle!))
    const last = pageOf(await fetchMore(client, second.handle!, 100))
    expect(last.rows).toHaveLength(5)
    expect(last.handle).toBeUndefined()
    expectNoHandle(await fetchMore(client, "c_made-up"))
  }, 60_000)

  it("handles never read for another token (property over interleavings)", async () => {
    const other = await connectModernClient(server.url, { token: await newToken(server) })
    try {
      await handlesStayWithTheirCaller(
        [client, other],
        id,
        (caller) => `SELECT n, 'caller${caller}-' || n AS who FROM generate_series(1, 20) n`,
        [1, 2, 3, 4, 5]
      )
    } finally {
      await other.close()
    }
    await eventually(async () => (await heldSessions(postgres)).length === 0, "every session back")
  }, 120_000)

  it("browse_table: a cut page continues with fetch_more from the row after it (offset and filters kept)", async () => {
    const { pages, rows } = await browseToEnd(client, id, {
      table: "numbers",
      limit: 10,
      offset: 3,
      sort: [{ column: "n", direction: "asc" }]
    })
    expect(pages.map((page) => page.rows.length)).toEqual([10, 10, 2])
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 22 }, (_, i) => i + 4))
    const filtered = await browseToEnd(client, id, {
      table: "numbers",
      limit: 4,
      filters: [{ column: "n", operator: ">", value: 15 }],
      sort: [{ column: "n", direction: "desc" }]
    })
    expect(filtered.rows.map((row) => row[0])).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16])
    const whole = await browseToEnd(client, id, { table: "numbers", limit: 100 })
    expect(whole.pages).toHaveLength(1)
    expect(whole.rows).toHaveLength(25)
  }, 60_000)

  it("masking rules apply to every continued page, as to the first", async () => {
    const masked = (await Effect.runPromise(
      Context.get(server.context, Connections).add({
        name: "Warehouse masked",
        type: "postgresql",
        host: postgres.host,
        port: postgres.port,
        database: postgres.database,
        user: postgres.user,
        password: postgres.password,
        sslMode: "disable",
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow",
        maskingRules: [{ pattern: "numbers.label", action: "mask" }]
      } as never)
    )).id
    const { pages, rows } = await readToEnd(client, masked, "SELECT n, label FROM numbers ORDER BY n", 10)
    expect(pages.length).toBe(3)
    expect(rows).toHaveLength(25)
    for (const row of rows) expect(String(row[1])).not.toMatch(/^label \d+$/)
    const browsed = await browseToEnd(client, masked, { table: "numbers", limit: 7 })
    expect(browsed.pages.length).toBe(4)
    for (const row of browsed.rows) expect(String(row[1])).not.toMatch(/^label \d+$/)
  }, 60_000)

  it("a safe statement that is not a SELECT (SHOW ALL) continues too", async () => {
    const { pages, rows } = await readToEnd(client, id, "SHOW ALL", 100)
    expect(pages.length).toBeGreaterThan(2)
    expect(new Set(rows.map((row) => row[0])).size).toBe(rows.length)
  }, 60_000)

  describe("expiry and bounds", () => {
    let short: TestServer
    let shortClient: Client
    const shortId = randomUUID()

    beforeAll(async () => {
      short = await startServer(postgres, shortId, { continuationIdleSeconds: 1 })
      shortClient = await connectModernClient(short.url, { token: short.token! })
    }, 60_000)

    afterAll(async () => {
      await shortClient?.close()
      await short?.stop()
    }, 60_000)

    it("an idle handle expires: its session is back in the pool, and the handle is not_found", async () => {
      const page = await query(shortClient, shortId, "SELECT n FROM numbers ORDER BY n", 5)
      expect(page.handle).toBeDefined()
      expect(await heldSessions(postgres)).toHaveLength(1)
      await eventually(
        async () => (await heldSessions(postgres)).length === 0,
        "the expired handle's session given back"
      )
      expectNoHandle(await fetchMore(shortClient, page.handle!))
      expect(await backendsSettle(postgres)).toEqual([])
    }, 60_000)

    it("every expired handle's session is back: several opened, none left in a transaction", async () => {
      const handles = await Promise.all(
        [1, 2, 3, 4].map(async (i) => (await query(shortClient, shortId, `SELECT n + ${i} FROM numbers`, 2)).handle)
      )
      expect(handles.every((handle) => handle !== undefined)).toBe(true)
      expect((await heldSessions(postgres)).length).toBeLessThanOrEqual(2)
      await eventually(
        async () => (await heldSessions(postgres)).length === 0,
        "every expired handle's session given back"
      )
      for (const handle of handles) expectNoHandle(await fetchMore(shortClient, handle!))
      // The pool still serves: sessions came back usable.
      expect((await query(shortClient, shortId, "SELECT count(*) FROM numbers")).rows).toEqual([[25]])
    }, 60_000)
  })
})
