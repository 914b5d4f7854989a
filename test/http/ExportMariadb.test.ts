// D-92 on a real MariaDB: the official client exports through the MySQL driver's held cursor; CSV and JSON Lines
// parse back to the values the server itself prints (NULL, big integers, decimals, text with quotes, commas and line
// ends, blobs as hex, JSON, dates and datetimes), a write and a secret catalog are refused, and a cancelled export
// leaves no file and gives its session back to the pool.
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, expect, it } from "vitest"
import { exported, expectPrivateFile, filesIn, parseCsv, parseJsonLines } from "../support/ExportFiles.ts"
import {
  eventually,
  idleInTransaction,
  type MariadbServer,
  runningStatements,
  startMariadb
} from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

const TEXTS = ["", "plain", "a,b", "say \"hi\"", "line\nbreak", "crlf\r\nend", "\\.", " x ", "naïve ✓"]

describeMariadb("export_data on MariaDB (real server)", () => {
  let mariadb: MariadbServer
  let server: TestServer
  let client: Client
  let folder = ""
  const id = randomUUID()

  beforeAll(async () => {
    mariadb = await startMariadb()
    const rows = TEXTS.map((text, i) => {
      const k = i + 1
      return `(${k}, ${k % 3 === 0 ? "NULL" : k * 7}, ${k % 2 === 0 ? "9223372036854775807" : "-9223372036854775808"},
        ${k % 4 === 0 ? "NULL" : `'${k}12345678901234567890.0123456789'`}, ${mariadb.admin().escape(text)}, ${
        k % 5 === 0 ? "NULL" : `X'00ff${k.toString(16).padStart(2, "0")}'`
      },
        '{"k": ${k}, "s": "a,\\\\"b\\\\""}', '20${String(k).padStart(2, "0")}-02-28', '2026-11-28 21:${
        String(k).padStart(2, "0")
      }:05')`
    }).join(",\n")
    await mariadb.admin().query(`
      CREATE TABLE numbers (n INT PRIMARY KEY, label VARCHAR(40) NOT NULL) ENGINE=InnoDB;
      INSERT INTO numbers SELECT seq, CONCAT('label ', seq) FROM seq_1_to_2500;
      CREATE TABLE kinds (k INT PRIMARY KEY, i INT NULL, b BIGINT NOT NULL, d DECIMAL(40,10) NULL, t TEXT NOT NULL, y BLOB NULL,
        j JSON NOT NULL, dt DATE NOT NULL, ts DATETIME NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
      INSERT INTO kinds VALUES ${rows};
    `)
    // The account may read the catalog itself: the refusal must be dbdesk's, not the server's.
    await mariadb.admin().query(`GRANT SELECT ON mysql.* TO '${mariadb.user}'@'127.0.0.1'`)
    folder = mkdtempSync(join(tmpdir(), "dbdesk-exports-"))
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
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
          externalAccess: "readWrite",
          aiPolicy: "alwaysAllow"
        }]
      }),
      { mode: 0o600 }
    )
    server = await startTestServer({
      home,
      settings: {
        mcp: { requireAuth: false },
        limits: { requestsPerMinute: 1_000_000 },
        exports: { directory: folder }
      },
      token: "readWrite"
    })
    client = await connectModernClient(server.url, { token: server.token! })
  }, 180_000)

  afterAll(async () => {
    await client?.close()
    await server?.stop()
    await mariadb?.stop()
  }, 60_000)

  const exportCall = (args: Record<string, unknown>, options?: Parameters<Client["callTool"]>[1]) =>
    client.callTool({ name: "export_data", arguments: { connection_id: id, ...args } }, options)

  /** What the server itself prints for each value: hex for the blob, the JSON as stored. */
  const oracle = async (): Promise<Array<Array<string | null>>> => {
    const [rows] = await mariadb.admin().query({
      sql:
        `SELECT k, i, b, d, t, HEX(y) AS y, CONCAT(j) AS j, DATE_FORMAT(dt, '%Y-%m-%d') AS dt, DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s') AS ts FROM ${mariadb.database}.kinds ORDER BY k`,
      supportBigNumbers: true,
      bigNumberStrings: true
    })
    return (rows as Array<Record<string, unknown>>).map((row) =>
      ["k", "i", "b", "d", "t", "y", "j", "dt", "ts"].map((name) => (row[name] === null ? null : String(row[name])))
    )
  }

  it("D-92 export_data on MariaDB: 2,500 rows over three cursor pages into a 0600 file, parsed back in order", async () => {
    const result = exported(await exportCall({ table: "numbers", format: "csv" }))
    expect(result.rows).toBe(2500)
    expectPrivateFile(result.path)
    const rows = parseCsv(readFileSync(result.path, "utf8"))
    expect(rows[0]).toEqual(["n", "label"])
    expect(rows.slice(1)).toEqual(Array.from({ length: 2500 }, (_, i) => [String(i + 1), `label ${i + 1}`]))
    await eventually(async () => (await idleInTransaction(mariadb)) === 0, "the cursor's session given back at the end")
  })

  it("D-92 export then parse back gives the same rows on MariaDB for every common type, CSV and JSON Lines", async () => {
    const expected = await oracle()
    const normalise = (row: Array<string | null>) =>
      row.map((
        cell,
        at
      ) => (cell === null
        ? null
        : at === 5
        ? cell.replace(/^X'|'$/g, "").toUpperCase()
        : at === 6
        ? JSON.stringify(JSON.parse(cell))
        : cell)
      )
    const sql = "SELECT * FROM kinds ORDER BY k"
    const csv = exported(await exportCall({ query: sql, format: "csv" }))
    const [header, ...rows] = parseCsv(readFileSync(csv.path, "utf8"))
    expect(header).toEqual(["k", "i", "b", "d", "t", "y", "j", "dt", "ts"])
    expect(rows.map(normalise)).toEqual(expected.map(normalise))
    const jsonl = exported(await exportCall({ query: sql, format: "jsonl" }))
    const back = parseJsonLines(readFileSync(jsonl.path, "utf8")).map((object) =>
      header!.map((name) => {
        const value = object[name!]
        return value === null ? null : typeof value === "object" ? JSON.stringify(value) : String(value)
      })
    )
    expect(back.map(normalise)).toEqual(expected.map(normalise))
    // Big integers beyond 2^53 keep every digit in JSON Lines (as their decimal text, as answers show them).
    expect(back.map((row) => row[2])).toEqual(
      TEXTS.map((_, i) => ((i + 1) % 2 === 0 ? "9223372036854775807" : "-9223372036854775808"))
    )
  })

  it("D-92 export_data refuses a write on MariaDB before it runs, and writes no file", async () => {
    const before = filesIn(folder)
    const result: any = await exportCall({ query: "UPDATE numbers SET label = 'x'", format: "csv" })
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toMatch(/^denied: export_data only runs a statement that reads/)
    const [rows] = await mariadb.admin().query(
      `SELECT COUNT(*) AS c FROM ${mariadb.database}.numbers WHERE label = 'x'`
    )
    expect(Number((rows as Array<{ c: number }>)[0]!.c)).toBe(0)
    expect(filesIn(folder)).toEqual(before)
  })

  it("D-92 export_data refuses the secret catalog mysql.user, as a table or in a statement, and writes no file", async () => {
    const before = filesIn(folder)
    for (
      const args of [{ table: "user", database: "mysql" }, {
        query: "SELECT User, authentication_string FROM mysql.user"
      }]
    ) {
      const result: any = await exportCall({ ...args, format: "csv" })
      expect(result.isError, JSON.stringify(result)).toBe(true)
      expect(result.content[0].text).toMatch(/^denied: /)
      expect(result.content[0].text).toContain("secret")
    }
    expect(filesIn(folder)).toEqual(before)
  })

  it(
    "D-92 export_data cancelled part-way on MariaDB: the statement stops, no file stays, the session goes back to the pool",
    async () => {
      const before = filesIn(folder)
      const controller = new AbortController()
      const marker = "export_cancel_marker"
      const call = exportCall({
        query: `SELECT seq AS n, REPEAT('x', 200) AS ${marker} FROM seq_1_to_50000000`,
        format: "csv"
      }, {
        signal: controller.signal,
        onprogress: () => controller.abort()
      })
      await expect(call).rejects.toThrow()
      await eventually(
        () => JSON.stringify(filesIn(folder)) === JSON.stringify(before),
        "the cancelled export's file removed"
      )
      await eventually(async () => (await runningStatements(mariadb, marker)) === 0, "the statement stopped")
      await eventually(async () => (await idleInTransaction(mariadb)) === 0, "no session left holding a transaction")
      // The pool serves the next export.
      const next = exported(
        await exportCall({ query: "SELECT n FROM numbers WHERE n <= 3 ORDER BY n", format: "jsonl" })
      )
      expect(parseJsonLines(readFileSync(next.path, "utf8"))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
    },
    120_000
  )
})
