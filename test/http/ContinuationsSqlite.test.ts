import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
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
import { eventually } from "../support/PostgresHarness.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let client: Client
let id = ""
let path = ""

const series = (count: number, label: string) =>
  `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${count}) SELECT n, '${label}' || n AS who FROM s`

beforeAll(async () => {
  path = join(mkdtempSync(join(tmpdir(), "dbdesk-more-")), "numbers.db")
  const db = new Database(path)
  db.pragma("journal_mode = WAL")
  db.exec("CREATE TABLE numbers (n INTEGER PRIMARY KEY, label TEXT NOT NULL)")
  const insert = db.prepare("INSERT INTO numbers VALUES (?, ?)")
  for (let n = 1; n <= 25; n++) insert.run(n, `label ${n}`)
  db.close()
  server = await startTestServer({
    settings: { mcp: { requireAuth: false }, limits: { continuationIdleSeconds: 2 } },
    token: "readOnly"
  })
  id = (await Effect.runPromise(
    Context.get(server.context, Connections).add({
      name: "Numbers",
      type: "sqlite",
      path,
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow"
    })
  )).id
  client = await connectModernClient(server.url, { token: server.token! })
}, 60_000)

afterAll(async () => {
  await client?.close()
  await server?.stop()
})

it("fetch_more on SQLite: a capped answer carries a handle, and the pages run to the end in order", async () => {
  const { pages, rows } = await readToEnd(client, id, "SELECT n, label FROM numbers ORDER BY n", 10)
  expect(pages.map((page) => page.rows.length)).toEqual([10, 10, 5])
  expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
})

it("fetch_more on SQLite: the continued read is the statement started once; rows deleted since are still read (its snapshot)", async () => {
  const first = await query(client, id, "SELECT n FROM numbers ORDER BY n", 5)
  const writer = new Database(path)
  writer.exec("DELETE FROM numbers WHERE n > 5")
  writer.close()
  const rest: Array<unknown> = []
  for (let handle = first.handle; handle !== undefined;) {
    const page = pageOf(await fetchMore(client, handle))
    rest.push(...page.rows.map((row) => row[0]))
    handle = page.handle
  }
  expect(rest).toEqual(Array.from({ length: 20 }, (_, i) => i + 6))
  // A statement run again now sees only what is left.
  expect((await query(client, id, "SELECT count(*) FROM numbers")).rows).toEqual([[5]])
  const restore = new Database(path)
  const insert = restore.prepare("INSERT INTO numbers VALUES (?, ?)")
  for (let n = 6; n <= 25; n++) insert.run(n, `label ${n}`)
  restore.close()
})

it(
  "fetch_more on SQLite, browse_table: a cut page continues with fetch_more from the row after it (offset and filters kept)",
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
    const whole = await browseToEnd(client, id, { table: "numbers", limit: 100 })
    expect(whole.pages).toHaveLength(1)
    expect(whole.rows).toHaveLength(25)
  },
  60_000
)

it("fetch_more on SQLite: a page cut by max_rows of fetch_more, a spent handle, an unknown one", async () => {
  const first = await query(client, id, series(30, "x"), 10)
  const second = pageOf(await fetchMore(client, first.handle!, 15))
  expect(second.rows.map((row) => row[0])).toEqual(Array.from({ length: 15 }, (_, i) => i + 11))
  expectNoHandle(await fetchMore(client, first.handle!))
  expectNoHandle(await fetchMore(client, "c_made-up"))
  const last = pageOf(await fetchMore(client, second.handle!, 100))
  expect(last.rows).toHaveLength(5)
  expect(last.handle).toBeUndefined()
})

it("fetch_more on SQLite: handles never read for another token (property over interleavings)", async () => {
  const value = (await Effect.runPromise(
    Context.get(server.context, Tokens).create({ name: "other", access: "readOnly", connections: "all" })
  )).value
  const other = await connectModernClient(server.url, { token: value })
  try {
    await handlesStayWithTheirCaller([client, other], id, (caller) => series(20, `caller${caller}-`), [11, 12, 13])
  } finally {
    await other.close()
  }
}, 60_000)

it(
  "fetch_more on SQLite: an idle handle expires, its read transaction ends (a checkpoint is no longer held back), and it is not_found",
  async () => {
    const page = await query(client, id, "SELECT n FROM numbers ORDER BY n", 5)
    expect(page.handle).toBeDefined()
    const writer = new Database(path)
    try {
      writer.prepare("INSERT INTO numbers VALUES (26, 'label 26')").run()
      const checkpoint = () => (writer.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>)[0]!.busy
      expect(checkpoint()).toBe(1)
      await eventually(() => checkpoint() === 0, "the expired handle's read transaction ended")
      expectNoHandle(await fetchMore(client, page.handle!))
      writer.prepare("DELETE FROM numbers WHERE n = 26").run()
    } finally {
      writer.close()
    }
  },
  30_000
)

it("fetch_more on SQLite: masking rules apply to every continued page, as to the first", async () => {
  const connections = Context.get(server.context, Connections)
  const masked = (await Effect.runPromise(connections.add({
    name: "Numbers masked",
    type: "sqlite",
    path,
    externalAccess: "readOnly",
    aiPolicy: "alwaysAllow",
    maskingRules: [{ pattern: "numbers.label", action: "mask" }]
  }))).id
  const { pages, rows } = await readToEnd(client, masked, "SELECT n, label FROM numbers ORDER BY n", 10)
  expect(pages.length).toBe(3)
  expect(rows).toHaveLength(25)
  for (const row of rows) expect(String(row[1])).not.toMatch(/^label \d+$/)
  const browsed = await browseToEnd(client, masked, { table: "numbers", limit: 7 })
  expect(browsed.pages.length).toBe(4)
  for (const row of browsed.rows) expect(String(row[1])).not.toMatch(/^label \d+$/)
})
