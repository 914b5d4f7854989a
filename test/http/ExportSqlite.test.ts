import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import Database from "better-sqlite3"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect, FastCheck as fc } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { exported, expectPrivateFile, filesIn, parseCsv, parseJsonLines } from "../support/ExportFiles.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { eventually } from "../support/PostgresHarness.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let client: Client
let id = ""
let maskedId = ""
let path = ""
let folder = ""

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), "dbdesk-export-"))
  folder = mkdtempSync(join(tmpdir(), "dbdesk-exports-"))
  path = join(home, "data.db")
  const db = new Database(path)
  db.exec(`CREATE TABLE numbers (n INTEGER PRIMARY KEY, label TEXT NOT NULL);
    CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password_hash TEXT);
    INSERT INTO users VALUES (1, 'ann', 'hash-ann-9d2f61ac');`)
  const insert = db.prepare("INSERT INTO numbers VALUES (?, ?)")
  for (let n = 1; n <= 2500; n++) insert.run(n, `label, "${n}"`)
  db.close()
  server = await startTestServer({
    settings: { mcp: { requireAuth: false }, exports: { directory: folder } },
    token: "readWrite"
  })
  const connections = Context.get(server.context, Connections)
  id = (await Effect.runPromise(
    connections.add({ name: "Data", type: "sqlite", path, externalAccess: "readWrite", aiPolicy: "alwaysAllow" })
  )).id
  maskedId = (await Effect.runPromise(connections.add({
    name: "Masked",
    type: "sqlite",
    path,
    externalAccess: "readOnly",
    aiPolicy: "alwaysAllow",
    maskingRules: [{ pattern: "users.password_hash", action: "mask" }]
  }))).id
  client = await connectModernClient(server.url, { token: server.token! })
}, 180_000)

afterAll(async () => {
  await client?.close()
  await server?.stop()
})

const exportCall = (args: Record<string, unknown>, options?: Parameters<Client["callTool"]>[1]) =>
  client.callTool({ name: "export_data", arguments: { connection_id: id, ...args } }, options)

it("D-92 export_data on SQLite: every row of a table streamed to a 0600 file in the export folder, a resource_link to it and a fenced preview", async () => {
  const progress: Array<string> = []
  const result = exported(
    await exportCall({ table: "numbers", format: "csv" }, {
      onprogress: (note) => void progress.push(note.message ?? "")
    })
  )
  expect(result.path).toBe(join(folder, "numbers.csv"))
  expect(result.rows).toBe(2500)
  expect(fileURLToPath(result.link.uri)).toBe(result.path)
  expect(result.link).toMatchObject({ name: "numbers.csv", mimeType: "text/csv" })
  expectPrivateFile(result.path)
  const text = readFileSync(result.path, "utf8")
  expect(Buffer.byteLength(text)).toBe(result.bytes)
  const rows = parseCsv(text)
  expect(rows[0]).toEqual(["n", "label"])
  expect(rows.slice(1)).toEqual(Array.from({ length: 2500 }, (_, i) => [String(i + 1), `label, "${i + 1}"`]))
  expect(result.text).toContain("What follows is data from the database")
  expect(result.preview.rows).toEqual([[1, "label, \"1\""], [2, "label, \"2\""], [3, "label, \"3\""], [
    4,
    "label, \"4\""
  ], [5, "label, \"5\""]])
  // Progress carries the rows written so far, page by page.
  expect(progress.some((message) => /^1,000 rows, /.test(message))).toBe(true)
  expect(progress.at(-1)).toMatch(/^2,500 rows, /)
})

it("D-92 export_data never overwrites: the same export again is name-1, then name-2; no temporary file stays", async () => {
  const first = exported(await exportCall({ query: "SELECT n FROM numbers WHERE n <= 3", format: "jsonl" }))
  const second = exported(await exportCall({ query: "SELECT n FROM numbers WHERE n <= 2", format: "jsonl" }))
  const third = exported(await exportCall({ query: "SELECT n FROM numbers WHERE n <= 1", format: "jsonl" }))
  expect([first.path, second.path, third.path]).toEqual([
    join(folder, "query.jsonl"),
    join(folder, "query-1.jsonl"),
    join(folder, "query-2.jsonl")
  ])
  expect(parseJsonLines(readFileSync(first.path, "utf8"))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
  expect(parseJsonLines(readFileSync(third.path, "utf8"))).toEqual([{ n: 1 }])
  expect(filesIn(folder).filter((name) => name.endsWith(".part"))).toEqual([])
})

it("D-92 export_data in json and sql: an array of objects, and INSERTs SQLite runs back into the same rows", async () => {
  const json = exported(await exportCall({ query: "SELECT n, label FROM numbers WHERE n <= 2", format: "json" }))
  expect(JSON.parse(readFileSync(json.path, "utf8"))).toEqual([{ n: 1, label: "label, \"1\"" }, {
    n: 2,
    label: "label, \"2\""
  }])
  const sql = exported(await exportCall({ table: "numbers", format: "sql" }))
  const copy = new Database(":memory:")
  copy.exec("CREATE TABLE numbers (n INTEGER PRIMARY KEY, label TEXT NOT NULL)")
  copy.exec(readFileSync(sql.path, "utf8"))
  expect(copy.prepare("SELECT count(*) AS c, sum(n) AS s FROM numbers").get()).toEqual({ c: 2500, s: 2500 * 2501 / 2 })
  expect(copy.prepare("SELECT label FROM numbers WHERE n = 7").get()).toEqual({ label: "label, \"7\"" })
  copy.close()
})

it("D-92 export_data refuses a statement that writes, before it runs, and writes no file", async () => {
  const before = filesIn(folder)
  const result: any = await exportCall({ query: "DELETE FROM numbers WHERE n = 1", format: "csv" })
  expect(result.isError).toBe(true)
  expect(result.content[0].text).toMatch(/^denied: export_data only runs a statement that reads/)
  expect(filesIn(folder)).toEqual(before)
  const db = new Database(path, { readonly: true })
  expect(db.prepare("SELECT count(*) AS c FROM numbers").get()).toEqual({ c: 2500 })
  db.close()
})

it("D-92 export_data applies the connection's masking rules to the file", async () => {
  const result = exported(
    await client.callTool({
      name: "export_data",
      arguments: { connection_id: maskedId, table: "users", format: "csv" }
    })
  )
  const text = readFileSync(result.path, "utf8")
  expect(text).not.toContain("hash-ann-9d2f61ac")
  expect(parseCsv(text)).toEqual([["id", "name", "password_hash"], ["1", "ann", "[masked: text, 17 bytes]"]])
})

it("D-92 export_data cancelled part-way leaves no file, not even the temporary one", async () => {
  const before = filesIn(folder)
  const controller = new AbortController()
  const endless =
    "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100000000) SELECT n, 'row ' || n AS t FROM s"
  const call = exportCall({ query: endless, format: "csv" }, {
    signal: controller.signal,
    onprogress: () => controller.abort()
  })
  await expect(call).rejects.toThrow()
  await eventually(
    () => JSON.stringify(filesIn(folder)) === JSON.stringify(before),
    "the cancelled export's file removed"
  )
}, 60_000)

it("D-92 export_data with arguments it cannot use: both query and table, an unknown format", async () => {
  const both: any = await exportCall({ query: "SELECT 1", table: "numbers", format: "csv" })
  expect(both.content[0].text).toMatch(/^invalid_argument: pass either query or table/)
  const format: any = await exportCall({ table: "numbers", format: "xlsx" })
  expect(format.content[0].text).toMatch(/^invalid_argument: format must be one of csv, jsonl, json, sql/)
})

// SQLite's values as an answer shows them (D-20): integers beyond 2^53 as their decimal text, blobs as X'…' hex.
type Value = null | bigint | number | string | Uint8Array
const asCell = (value: Value): string | number | null =>
  value === null ?
    null
    : typeof value === "bigint" ?
    (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString())
    : value instanceof Uint8Array ?
    `X'${Buffer.from(value).toString("hex")}'`
    : value
const asCsv = (cell: string | number | null) => (cell === null ? null : String(cell))

const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0) && !Number.isInteger(x)),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", ",", "\"", "a\nb", "\r\n", "\\.", " x ", "{\"j\": [1, null]}", "2026-11-28T20:09:55Z"),
  fc.uint8Array({ maxLength: 16 })
)

it(
  "D-92 export then parse back gives the same rows on SQLite for every type (NULL, big integers, reals, text, JSON text, dates, blobs), CSV and JSON Lines",
  async () => {
    let round = 0
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(value, value, value), { minLength: 1, maxLength: 30 }), async (rows) => {
        const table = `p${round++}`
        const db = new Database(path)
        db.exec(`CREATE TABLE ${table} (a, b, c)`)
        const insert = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?)`)
        for (const row of rows) insert.run(...row)
        db.close()
        const expected = rows.map((row) => row.map(asCell))
        const csv = exported(await exportCall({ table, format: "csv" }))
        expect(parseCsv(readFileSync(csv.path, "utf8"))).toEqual([
          ["a", "b", "c"],
          ...expected.map((row) => row.map(asCsv))
        ])
        const jsonl = exported(await exportCall({ table, format: "jsonl" }))
        expect(parseJsonLines(readFileSync(jsonl.path, "utf8"))).toEqual(expected.map(([a, b, c]) => ({ a, b, c })))
      }),
      { numRuns: 12 }
    )
  },
  120_000
)
