import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Continuations } from "../../src/services/Continuations.ts"
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
import {
  eventually,
  idleInTransaction,
  type MariadbServer,
  runningStatements,
  startMariadb,
  threadsRunning
} from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

const connectionFile = (mariadb: MariadbServer, id: string) =>
  JSON.stringify({
    version: 1,
    connections: [{
      id,
      name: "Ledger (MariaDB)",
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      database: mariadb.database,
      user: mariadb.user,
      password: mariadb.password,
      sslMode: "disabled",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow"
    }]
  })

const startServer = async (mariadb: MariadbServer, id: string, limits: Record<string, number>) => {
  const home = tempHome()
  writeFileSync(join(home, "connections.json"), connectionFile(mariadb, id), { mode: 0o600 })
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

/** The account's sessions as PROCESSLIST shows them (id, command). */
const sessions = async (mariadb: MariadbServer) => {
  const [rows] = await mariadb.admin().query(
    "SELECT ID AS id, COMMAND AS command FROM information_schema.PROCESSLIST WHERE USER = ?",
    [mariadb.user]
  )
  return (rows as Array<{ id: number; command: string }>).map((row) => ({ id: Number(row.id), command: row.command }))
}

/** A read large enough that the server waits for the client between pages (more than the sockets buffer). */
const big = (marker: string) => `SELECT seq AS n, REPEAT('x', 200) AS ${marker} FROM seq_1_to_200000`
/** The same count of rows, narrow: a page holds thousands of them. */
const narrow = (marker: string) => `SELECT seq AS n, 0 AS ${marker} FROM seq_1_to_200000`

describeMariadb("fetch_more on MariaDB: a capped read continues on its open stream (real server)", () => {
  let mariadb: MariadbServer
  let server: TestServer
  let client: Client
  const id = randomUUID()

  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      CREATE TABLE numbers (n INT PRIMARY KEY, label VARCHAR(40) NOT NULL) ENGINE=InnoDB;
      INSERT INTO numbers SELECT seq, CONCAT('label ', seq) FROM seq_1_to_25;
    `)
    server = await startServer(mariadb, id, { maxAnswerBytes: 65_536 })
    client = await connectModernClient(server.url, { token: server.token! })
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    await server?.stop()
    await mariadb?.stop()
  }, 60_000)

  it(
    "D-93: a capped answer says so and carries a handle; fetch_more reads the next pages to the end, in order",
    async () => {
      const { pages, rows } = await readToEnd(client, id, "SELECT n, label FROM numbers ORDER BY n", 10)
      expect(pages.map((page) => page.rows.length)).toEqual([10, 10, 5])
      expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
      expect(pages[0]!.columns).toEqual(["n", "label"])
      await eventually(
        async () => (await idleInTransaction(mariadb)) === 0,
        "the stream's session given back at the end"
      )
    },
    60_000
  )

  it("D-93: an answer that is not cut has no handle and holds no session", async () => {
    const page = await query(client, id, "SELECT n FROM numbers ORDER BY n", 25)
    expect(page.rows).toHaveLength(25)
    expect(page.truncated).toBe(false)
    expect(page.handle).toBeUndefined()
    expect(await idleInTransaction(mariadb)).toBe(0)
  }, 60_000)

  it("D-93: a continued read does not run the statement again: the server received it once", async () => {
    const marker = `once_${randomUUID().replaceAll("-", "")}`
    const { pages, rows } = await readToEnd(client, id, narrow(marker), 5000, 10_000)
    expect(pages.length).toBeGreaterThan(3)
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 200_000 }, (_, i) => i + 1))
    // The guard's catalog lookup names the marker too; the statement itself is the line that starts with it.
    const lines = mariadb.log().split("\n").filter((line) => line.includes(narrow(marker)))
    expect(lines, lines.join("\n")).toHaveLength(1)
  }, 120_000)

  it(
    "D-93: between pages the statement waits on the server, paused, and its snapshot holds (REPEATABLE READ)",
    async () => {
      await mariadb.admin().query(
        "CREATE TABLE snap (n INT PRIMARY KEY, pad CHAR(200) NOT NULL DEFAULT 'p') ENGINE=InnoDB"
      )
      await mariadb.admin().query("INSERT INTO snap (n) SELECT seq FROM seq_1_to_50000")
      const marker = `snap_${randomUUID().replaceAll("-", "")}`
      const first = await query(client, id, `SELECT n, pad AS ${marker} FROM snap ORDER BY n`, 100)
      expect(first.handle).toBeDefined()
      expect(await runningStatements(mariadb, marker)).toBe(1)
      await mariadb.admin().query("DELETE FROM snap WHERE n > 100")
      const rest: Array<unknown> = []
      for (let handle = first.handle; handle !== undefined;) {
        const page = pageOf(await fetchMore(client, handle, 10_000))
        rest.push(...page.rows.map((row) => row[0]))
        handle = page.handle
      }
      expect(rest).toEqual(Array.from({ length: 49_900 }, (_, i) => i + 101))
      expect((await query(client, id, "SELECT COUNT(*) FROM snap")).rows).toEqual([[100]])
    },
    120_000
  )

  it("D-93: a page cut by limits.maxAnswerBytes continues with the row it could not take", async () => {
    const { pages, rows } = await readToEnd(
      client,
      id,
      "SELECT seq AS n, REPEAT('x', 5000) AS wide FROM seq_1_to_40",
      1000
    )
    expect(pages.length).toBeGreaterThan(2)
    expect(pages[0]!.message).toContain("fetch_more")
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
  }, 60_000)

  it("D-93: a spent handle is not_found, and max_rows of fetch_more sets the page size", async () => {
    const first = await query(client, id, "SELECT n FROM numbers ORDER BY n", 5)
    const second = pageOf(await fetchMore(client, first.handle!, 15))
    expect(second.rows.map((row) => row[0])).toEqual(Array.from({ length: 15 }, (_, i) => i + 6))
    expectNoHandle(await fetchMore(client, first.handle!))
    const last = pageOf(await fetchMore(client, second.handle!, 100))
    expect(last.rows).toHaveLength(5)
    expect(last.handle).toBeUndefined()
  }, 60_000)

  it("D-93: handles never read for another token (property over interleavings)", async () => {
    const other = await connectModernClient(server.url, { token: await newToken(server) })
    try {
      await handlesStayWithTheirCaller(
        [client, other],
        id,
        (caller) => `SELECT seq AS n, CONCAT('caller${caller}-', seq) AS who FROM seq_1_to_20`,
        [1, 2, 3, 4, 5]
      )
    } finally {
      await other.close()
    }
    await eventually(async () => (await idleInTransaction(mariadb)) === 0, "every session back")
  }, 120_000)

  it(
    "D-93: browse_table: a cut page continues with fetch_more from the row after it (offset and filters kept)",
    async () => {
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
    },
    60_000
  )

  it("D-93: masking rules apply to every continued page, as to the first", async () => {
    const masked = (await Effect.runPromise(
      Context.get(server.context, Connections).add({
        name: "Ledger masked",
        type: "mysql",
        host: mariadb.host,
        port: mariadb.port,
        database: mariadb.database,
        user: mariadb.user,
        password: mariadb.password,
        sslMode: "disabled",
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow",
        maskingRules: [{ pattern: "numbers.label", action: "mask" }]
      } as never)
    )).id
    const { pages, rows } = await readToEnd(client, masked, "SELECT n, label FROM numbers ORDER BY n", 10)
    expect(pages.length).toBe(3)
    for (const row of rows) expect(String(row[1])).not.toMatch(/^label \d+$/)
    const browsed = await browseToEnd(client, masked, { table: "numbers", limit: 7 })
    expect(browsed.pages.length).toBe(4)
    for (const row of browsed.rows) expect(String(row[1])).not.toMatch(/^label \d+$/)
  }, 60_000)

  it("D-93: a cancelled fetch_more kills the statement (KILL QUERY) and its session goes back clean", async () => {
    const marker = `slow_${randomUUID().replaceAll("-", "")}`
    // Rows half the server's network buffer: it sends them as they are made; a page (by bytes) then takes seconds.
    const first = await query(
      client,
      id,
      `SELECT seq AS n, SLEEP(1) AS ${marker}, REPEAT('x', 8000) AS wide FROM seq_1_to_1000`,
      1
    )
    expect(first.handle).toBeDefined()
    const controller = new AbortController()
    const reading = client.callTool({ name: "fetch_more", arguments: { handle: first.handle!, max_rows: 500 } }, {
      signal: controller.signal
    })
    expect(await runningStatements(mariadb, marker)).toBe(1)
    await new Promise((done) => setTimeout(done, 500))
    controller.abort()
    await reading.catch(() => undefined)
    await eventually(async () => (await runningStatements(mariadb, marker)) === 0, "the statement killed")
    await eventually(async () => (await idleInTransaction(mariadb)) === 0, "the session given back")
    expectNoHandle(await fetchMore(client, first.handle!))
    expect((await query(client, id, "SELECT 'after' AS a")).rows).toEqual([["after"]])
  }, 60_000)

  it(
    "D-93: closing an open handle kills its paused statement and puts its session back in the pool (not destroyed)",
    async () => {
      const marker = `close_${randomUUID().replaceAll("-", "")}`
      const first = await query(client, id, big(marker), 10)
      const [thread] = await threadsRunning(mariadb, marker)
      expect(thread).toBeDefined()
      await Effect.runPromise(Context.get(server.context, Continuations).close(first.handle!))
      await eventually(async () => (await runningStatements(mariadb, marker)) === 0, "the statement killed")
      expect(await sessions(mariadb)).toContainEqual({ id: thread, command: "Sleep" })
      expect(await idleInTransaction(mariadb)).toBe(0)
      expectNoHandle(await fetchMore(client, first.handle!))
    },
    60_000
  )

  describe("expiry", () => {
    let short: TestServer
    let shortClient: Client
    const shortId = randomUUID()

    beforeAll(async () => {
      short = await startServer(mariadb, shortId, { continuationIdleSeconds: 1 })
      shortClient = await connectModernClient(short.url, { token: short.token! })
    }, 60_000)

    afterAll(async () => {
      await shortClient?.close()
      await short?.stop()
    }, 60_000)

    it(
      "D-93: every expired handle's session is back in the pool: statements killed, none left in a transaction",
      async () => {
        const marker = `expire_${randomUUID().replaceAll("-", "")}`
        const handles = await Promise.all(
          [1, 2].map(async (i) => (await query(shortClient, shortId, `${big(marker)} WHERE seq > ${i}`, 2)).handle)
        )
        expect(handles.every((handle) => handle !== undefined)).toBe(true)
        const threads = await threadsRunning(mariadb, marker)
        expect(threads).toHaveLength(2)
        await eventually(
          async () => (await runningStatements(mariadb, marker)) === 0,
          "every expired handle's statement killed"
        )
        await eventually(
          async () => (await idleInTransaction(mariadb)) === 0,
          "every expired handle's session given back"
        )
        const now = await sessions(mariadb)
        for (const thread of threads) expect(now).toContainEqual({ id: thread, command: "Sleep" })
        for (const handle of handles) expectNoHandle(await fetchMore(shortClient, handle!))
        expect((await query(shortClient, shortId, "SELECT COUNT(*) FROM numbers")).rows).toEqual([[25]])
      },
      60_000
    )
  })
})
