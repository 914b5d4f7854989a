// D-92 on a real PostgreSQL: the exported CSV is byte for byte what `psql \copy … CSV HEADER` writes for the same rows
// (the types whose text both print alike: integers, big integers, numeric, text, bytea, json, jsonb, dates, times,
// uuid, arrays, NULL), JSON Lines parse back to the same values, and the AI settings' gates hold for files too.
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { exported, expectPrivateFile, filesIn, parseCsv, parseJsonLines } from "../support/ExportFiles.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { eventually, type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

const COLUMNS = "i int4, b int8, n numeric, t text, y bytea, j json, jb jsonb, d date, ts timestamptz, u uuid, a int4[]"

describePostgres("export_data on PostgreSQL (real server)", () => {
  let postgres: PostgresServer
  let server: TestServer
  let client: Client
  let folder = ""
  const id = randomUUID()

  /** What psql itself writes for the statement: the oracle the export is compared with. */
  const psqlCsv = (sql: string) =>
    execFileSync("psql", [
      "-X",
      "-q",
      "-h",
      postgres.host,
      "-p",
      String(postgres.port),
      "-U",
      postgres.user,
      "-d",
      postgres.database,
      "-c",
      `\\copy (${sql}) TO STDOUT CSV HEADER`
    ], {
      env: { ...process.env, PGPASSWORD: postgres.password, PGTZ: "UTC", PGDATESTYLE: "ISO, MDY" },
      encoding: "utf8"
    })

  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`ALTER DATABASE ${postgres.database} SET timezone = 'UTC'`)
    await postgres.sql(
      `CREATE TABLE numbers (n int PRIMARY KEY, label text NOT NULL); ALTER TABLE numbers OWNER TO ${postgres.user};
      INSERT INTO numbers SELECT n, 'label ' || n FROM generate_series(1, 3000) n`
    )
    folder = mkdtempSync(join(tmpdir(), "dbdesk-exports-"))
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id,
          name: "Warehouse",
          type: "postgresql",
          host: postgres.host,
          port: postgres.port,
          database: postgres.database,
          user: postgres.user,
          password: postgres.password,
          sslMode: "disable",
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
    await postgres?.stop()
  })

  const exportCall = (args: Record<string, unknown>, options?: Parameters<Client["callTool"]>[1]) =>
    client.callTool({ name: "export_data", arguments: { connection_id: id, ...args } }, options)

  it("D-92 export_data on PostgreSQL: 3,000 rows over three cursor pages, the file 0600 and byte-identical to psql's \\copy CSV", async () => {
    const result = exported(await exportCall({ table: "numbers", format: "csv" }))
    expect(result.rows).toBe(3000)
    expectPrivateFile(result.path)
    expect(readFileSync(result.path, "utf8")).toBe(psqlCsv("SELECT * FROM numbers"))
  })

  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 12 }).map((value) => value.replaceAll("\u0000", "")),
    fc.constantFrom("", ",", "\"", "a\nb", "\r", "\\.", " x ")
  )
  const row = fc.tuple(
    fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
    fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
    fc.option(
      fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 9999 })).map((
        [whole, part]
      ) => `${whole}.${part}`)
    ),
    fc.option(text),
    fc.option(fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes))),
    fc.option(fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value))),
    fc.option(fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value))),
    fc.option(
      fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10))
    ),
    fc.option(
      fc.date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true })
        .map((date) => date.toISOString())
    ),
    fc.option(fc.uuid()),
    fc.option(fc.array(fc.option(fc.integer({ min: -1000, max: 1000 })), { maxLength: 4 }))
  )

  it(
    "D-92 export then parse back gives the same rows on PostgreSQL for every type: CSV byte-identical to psql, JSON Lines the same values",
    async () => {
      let round = 0
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 20 }), async (rows) => {
          const table = `p${round++}`
          await postgres.sql(
            `CREATE TABLE ${table} (k serial PRIMARY KEY, ${COLUMNS}); ALTER TABLE ${table} OWNER TO ${postgres.user}`
          )
          for (const values of rows) {
            await postgres.sql(
              `INSERT INTO ${table} (i, b, n, t, y, j, jb, d, ts, u, a) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
              values.map((value) => (typeof value === "bigint" ? value.toString() : value))
            )
          }
          const sql = `SELECT * FROM ${table} ORDER BY k`
          const oracle = psqlCsv(sql)
          const csv = exported(await exportCall({ query: sql, format: "csv" }))
          expect(readFileSync(csv.path, "utf8")).toBe(oracle)
          const [header, ...expected] = parseCsv(oracle)
          const jsonl = exported(await exportCall({ query: sql, format: "jsonl" }))
          const back = parseJsonLines(readFileSync(jsonl.path, "utf8")).map((object) =>
            header!.map((name) => (object[name!] === null ? null : String(object[name!])))
          )
          expect(back).toEqual(expected)
        }),
        { numRuns: 10 }
      )
    },
    300_000
  )

  it("D-92 export_data refuses a secret catalog, as a table or in a statement, and writes no file", async () => {
    const before = filesIn(folder)
    for (const args of [{ table: "pg_authid" }, { query: "SELECT rolname, rolpassword FROM pg_authid" }]) {
      const result: any = await exportCall({ ...args, format: "csv" })
      expect(result.isError, JSON.stringify(result)).toBe(true)
      expect(result.content[0].text).toMatch(/^denied: /)
      expect(result.content[0].text).toContain("secret")
    }
    expect(filesIn(folder)).toEqual(before)
  })

  it("D-92 export_data refuses a write on PostgreSQL before it runs", async () => {
    const result: any = await exportCall({ query: "UPDATE numbers SET label = 'x' RETURNING *", format: "csv" })
    expect(result.content[0].text).toMatch(/^denied: export_data only runs a statement that reads/)
    expect((await postgres.sql("SELECT count(*)::int AS c FROM numbers WHERE label = 'x'"))[0]!["c"]).toBe(0)
  })

  it("D-92 export_data cancelled part-way on PostgreSQL: the statement stops and no file stays", async () => {
    const before = filesIn(folder)
    const controller = new AbortController()
    const call = exportCall({ query: "SELECT n, md5(n::text) FROM generate_series(1, 200000000) n", format: "csv" }, {
      signal: controller.signal,
      onprogress: () => controller.abort()
    })
    await expect(call).rejects.toThrow()
    await eventually(
      () => JSON.stringify(filesIn(folder)) === JSON.stringify(before),
      "the cancelled export's file removed"
    )
    await eventually(
      async () =>
        (await postgres.sql(
          "SELECT count(*)::int AS c FROM pg_stat_activity WHERE query LIKE '%generate_series(1, 200000000)%' AND state = 'active' AND pid <> pg_backend_pid()"
        ))[0]!["c"] === 0,
      "the statement stopped"
    )
  }, 120_000)
})
