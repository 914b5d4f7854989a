import type { Client } from "@modelcontextprotocol/client"
import Database from "better-sqlite3"
import { Context, Effect } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { QueryHistory } from "../../src/services/QueryHistory.ts"
import { SettingsStore } from "../../src/services/Settings.ts"
import { createLargeSqlite, WIDE_BLOB_BYTES, WIDE_TEXT_BYTES } from "../support/LargeTables.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"
import { unfence } from "../support/Fence.ts"

const ROWS = 1_000_000
const DEFAULT_ANSWER_BYTES = 8 * 1024 * 1024

let server: TestServer
let client: Client
let id: string

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(effect as Effect.Effect<A, E, never>)
const jsonSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8")
const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
  client.callTool({ name, arguments: { connection_id: id, ...args } }, { timeout: 120_000 })
const query = (sql: string, extra: Record<string, unknown> = {}) => call("execute_query", { query: sql, ...extra })
const withLimits = async <A>(limits: { maxCellBytes?: number; maxAnswerBytes?: number }, body: () => Promise<A>) => {
  const store = Context.get(server.context, SettingsStore)
  const before = (await run(store.current)).limits
  await run(store.update({ limits }))
  try {
    return await body()
  } finally {
    await run(store.update({ limits: { maxCellBytes: before.maxCellBytes, maxAnswerBytes: before.maxAnswerBytes } }))
  }
}

beforeAll(async () => {
  const home = tempHome()
  const path = join(home, "large.db")
  createLargeSqlite(path, ROWS)
  const db = new Database(path)
  db.exec(`CREATE TABLE checked (a TEXT CHECK (a <> '${"x".repeat(100_000)}'))`)
  db.close()
  server = await startTestServer({ home, settings: { mcp: { requireAuth: false } } })
  id = (await run(
    Context.get(server.context, Connections).add({ name: "Large", type: "sqlite", path, aiPolicy: "alwaysAllow" })
  )).id
  client = await connectModernClient(server.url)
}, 120_000)
afterAll(async () => {
  await client?.close()
  await server?.stop()
})

describe("answers cost what the answer costs, not what the table costs (D-71)", () => {
  it("SELECT * on a 1,000,000-row table answers max_rows rows, truncated, and says how to see the others", async () => {
    const result = await query("SELECT * FROM big")
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toMatchObject({
      columns: ["id", "name", "amount", "note"],
      row_count: 500,
      is_truncated: true
    })
    expect(result.structuredContent.rows[499]).toEqual([500, "customer 500", 250, "x".repeat(40)])
    // The statement stays open: the answer says how to read on, and carries the handle to do it.
    expect(result.structuredContent.status_message).toBe(
      "showing the first 500 rows; the statement is still open: call fetch_more with continuation.handle for the next rows"
    )
    expect(result.structuredContent.continuation.handle).toMatch(/^c_/)
  })

  it("a 50 MB blob and a 5 MB text cell come back cut at limits.maxCellBytes with their full lengths", async () => {
    const result = await query("SELECT id, data, body FROM wide")
    const [rowId, blob, text] = result.structuredContent.rows[0]
    expect(rowId).toBe(1)
    expect(blob).toBe(
      `X'${
        "00".repeat(16_382)
      }' …[cut by dbdesk: blob of ${WIDE_BLOB_BYTES} bytes, first 16382 bytes shown; read it in parts with substr()]`
    )
    expect(text).toBe(
      `${
        "y".repeat(32_768)
      } …[cut by dbdesk: ${WIDE_TEXT_BYTES} bytes, first 32768 shown; read it in parts with substr()]`
    )
    expect(result.structuredContent).toMatchObject({ row_count: 1, is_truncated: false })
    expect(result.structuredContent.status_message).toBe(
      "2 values were cut at limits.maxCellBytes (32768 bytes); select length() or substr() of long columns"
    )
    // the marker's advice works: the rest is read in parts
    const part = await query("SELECT length(body) AS n, substr(body, 32769, 10) AS next FROM wide")
    expect(part.structuredContent.rows).toEqual([[WIDE_TEXT_BYTES, "yyyyyyyyyy"]])
  })

  it("browse_table caps the same cells, with browse_table's own advice", async () => {
    const result = await call("browse_table", { table: "wide", columns: ["body"] })
    expect(result.structuredContent.rows[0][0]).toMatch(
      new RegExp(`^y{32768} …\\[cut by dbdesk: ${WIDE_TEXT_BYTES} bytes, first 32768 shown`)
    )
    expect(result.structuredContent.status_message).toBe(
      "1 value was cut at limits.maxCellBytes (32768 bytes); use execute_query with length() or substr() on long columns"
    )
  })

  it("rows stop before the answer passes limits.maxAnswerBytes, and the answer says why and how to narrow the query", async () => {
    const result = await query("SELECT id, printf('%.2000c', 'z') AS filler FROM big", { max_rows: 10_000 })
    const content = result.structuredContent
    expect(jsonSize(content)).toBeLessThanOrEqual(DEFAULT_ANSWER_BYTES)
    expect(content.row_count).toBeGreaterThan(4000)
    expect(content.row_count).toBeLessThan(4200)
    expect(content).toMatchObject({ is_truncated: true })
    expect(content.rows.at(-1)[0]).toBe(content.row_count)
    expect(content.status_message).toBe(
      `showing the first ${content.row_count} rows: the answer reached limits.maxAnswerBytes (${DEFAULT_ANSWER_BYTES} bytes); the statement is still open: call fetch_more with continuation.handle for the next rows, or select fewer columns`
    )
    expect(unfence(result.content[0].text).json).toEqual(content)
  })

  it("the caps are read from the settings at each call", async () => {
    const result = await withLimits(
      { maxCellBytes: 1024, maxAnswerBytes: 65_536 },
      () => query("SELECT id, body FROM wide UNION ALL SELECT id, note FROM big", { max_rows: 5000 })
    )
    expect(jsonSize(result.structuredContent)).toBeLessThanOrEqual(65_536)
    expect(result.structuredContent.rows[0][1]).toMatch(/^y{1024} …\[cut by dbdesk: 5000000 bytes, first 1024 shown/)
    expect(result.structuredContent.status_message).toMatch(
      /the answer reached limits\.maxAnswerBytes \(65536 bytes\).*; 1 value was cut at limits\.maxCellBytes \(1024 bytes\)/
    )
    const after = await query("SELECT id, body FROM wide")
    expect(after.structuredContent.rows[0][1]).toMatch(/^y{32768} …/)
  })

  it("resources are capped too: a long DDL is cut at limits.maxCellBytes and a long history stops at limits.maxAnswerBytes", async () => {
    const read = async (uri: string) =>
      JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text)
    // the statement as stored (42 + 100,000 + 3 characters) and the semicolon the catalog ends it with
    const ddl = await read(`dbdesk://connections/${id}/tables/checked/ddl`)
    expect(ddl.ddl).toMatch(
      /^CREATE TABLE checked \(a TEXT CHECK \(a <> 'x{32726} …\[cut by dbdesk: 100046 bytes, first 32768 shown; raise limits\.maxCellBytes to see more\]$/
    )
    expect(ddl).toMatchObject({
      truncated: true,
      status_message:
        "1 text was cut at limits.maxCellBytes (32768 bytes); raise limits.maxCellBytes to see long texts whole, or read them with execute_query and substr()"
    })
    const history = Context.get(server.context, QueryHistory)
    for (let index = 0; index < 120; index++) {
      await run(
        history.record({
          connectionId: id,
          text: `SELECT ${index}, '${"h".repeat(1000)}'`,
          durationMs: 1,
          rowCount: 1,
          outcome: "success",
          source: "ui"
        })
      )
    }
    const cappedHistory = await withLimits(
      { maxAnswerBytes: 65_536 },
      () => read(`dbdesk://connections/${id}/history?limit=120`)
    )
    expect(jsonSize(cappedHistory)).toBeLessThanOrEqual(65_536)
    expect(cappedHistory.history.length).toBeLessThan(120)
    expect(cappedHistory).toMatchObject({ truncated: true })
    expect(cappedHistory.status_message).toMatch(
      new RegExp(
        `^the answer reached limits\\.maxAnswerBytes \\(65536 bytes\\): history shows ${cappedHistory.history.length} of 120 items; read a narrower resource`
      )
    )
  })
})
