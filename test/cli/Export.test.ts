import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { beforeAll, describe, expect, it } from "vitest"
import { expectPrivateFile, filesIn, parseCsv, parseJsonLines } from "../support/ExportFiles.ts"
import { startTestServer, tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

// D-92: `dbdesk export` opens the connection in this process and streams the rows to the file.
let home: string
let folder: string
beforeAll(async () => {
  home = tempHome()
  const server = await startTestServer({ home, ui: false })
  await server.stop()
  folder = mkdtempSync(join(tmpdir(), "dbdesk-cli-export-"))
}, 60_000)

const sampleRows = (sql: string) => {
  const db = new Database(join(home, "sample.db"), { readonly: true })
  try {
    return db.prepare(sql).raw(true).all() as Array<Array<unknown>>
  } finally {
    db.close()
  }
}

describe("dbdesk export", () => {
  it("D-92 a table to CSV: every row as the database has it, the file 0600; the same export again is name-1, never an overwrite", async () => {
    const output = join(folder, "orders.csv")
    const first = await runInProcess(
      "export",
      "--home",
      home,
      "--connection",
      "Sample (SQLite)",
      "--table",
      "orders",
      "--format",
      "csv",
      "--output",
      output
    )
    expect(first.stderr).toBe("")
    expect(first.code).toBe(0)
    const expected = sampleRows("SELECT * FROM orders")
    expect(first.stdout).toMatch(new RegExp(`^Wrote ${expected.length} rows \\(.+\\) to ${output} in `))
    expectPrivateFile(output)
    const [header, ...rows] = parseCsv(readFileSync(output, "utf8"))
    expect(header!.length).toBe(expected[0]!.length)
    expect(rows).toEqual(expected.map((row) => row.map((value) => (value === null ? null : String(value)))))
    const second = await runInProcess(
      "export",
      "--home",
      home,
      "--connection",
      "Sample (SQLite)",
      "--table",
      "orders",
      "--format",
      "csv",
      "--output",
      output
    )
    expect(second.stdout).toContain(`to ${join(folder, "orders-1.csv")}`)
    expect(readFileSync(join(folder, "orders-1.csv"), "utf8")).toBe(readFileSync(output, "utf8"))
  })

  it("D-92 a statement to JSON Lines; a statement that writes is refused and no file is written", async () => {
    const output = join(folder, "two.jsonl")
    const run = await runInProcess(
      "export",
      "--home",
      home,
      "--connection",
      "Sample (SQLite)",
      "--sql",
      "SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, NULL",
      "--format",
      "jsonl",
      "--output",
      output
    )
    expect(run.code).toBe(0)
    expect(parseJsonLines(readFileSync(output, "utf8"))).toEqual([{ a: 1, b: "x" }, { a: 2, b: null }])
    const before = filesIn(folder)
    const write = await runInProcess(
      "export",
      "--home",
      home,
      "--connection",
      "Sample (SQLite)",
      "--sql",
      "DELETE FROM orders",
      "--format",
      "csv",
      "--output",
      join(folder, "deleted.csv")
    )
    expect(write.code).toBe(1)
    expect(write.stderr).toContain("export runs only a statement that reads")
    expect(filesIn(folder)).toEqual(before)
    expect(sampleRows("SELECT count(*) FROM orders")[0]![0]).toBeGreaterThan(0)
  })

  it("D-92 export needs exactly one of --sql and --table, and a known connection", async () => {
    const neither = await runInProcess(
      "export",
      "--home",
      home,
      "--connection",
      "Sample (SQLite)",
      "--format",
      "csv",
      "--output",
      join(folder, "x.csv")
    )
    expect(neither.stderr).toContain("give either --sql or --table")
    const unknown = await runInProcess(
      "export",
      "--home",
      home,
      "--connection",
      "Nope",
      "--table",
      "orders",
      "--format",
      "csv",
      "--output",
      join(folder, "x.csv")
    )
    expect(unknown.stderr).toContain("no connection has the id or name \"Nope\"")
  })
})
