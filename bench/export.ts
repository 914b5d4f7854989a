/**
 * D-92 export figures (not part of `npm test` or `npm run bench`):
 * `node scripts/build.mjs app && node --import tsx bench/export.ts [--rows N]` (default 3,000,000 rows).
 *
 * For PostgreSQL, MariaDB and SQLite: a table of N rows (id, md5 text, numeric, timestamp, a 40-byte note), exported
 * by `export_data` as CSV through a real `dbdesk serve` (its own process, auth off) and by the database's own
 * command-line tool (`psql \copy … CSV HEADER`, `mariadb --batch`, `sqlite3 -csv -header`) into a file. Reported: wall
 * time, rows/s, and dbdesk's RSS growth (the highest VmRSS sampled every 50 ms during the export, minus the RSS
 * before it). A driver without held cursors answers that it cannot stream yet; the row says so.
 */
import { spawn, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import Database from "better-sqlite3"
import { startMariadb } from "../test/support/MariadbHarness.ts"
import { startPostgres } from "../test/support/PostgresHarness.ts"
import { readRssKb, stopChild } from "./proc.ts"

const flag = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const ROWS = flag("rows", 3_000_000)
const ROOT = fileURLToPath(new URL("../", import.meta.url))
const mib = (kb: number) => (kb / 1024).toFixed(1)

const home = mkdtempSync(join(tmpdir(), "dbdesk-exportbench-"))
const out = mkdtempSync(join(tmpdir(), "dbdesk-exportbench-out-"))
const postgres = await startPostgres()
const mariadb = await startMariadb()
const stops: Array<() => Promise<void>> = [() => postgres.stop(), () => mariadb.stop()]
const results: Array<string> = []
try {
  console.error(`generating ${ROWS} rows in PostgreSQL ${postgres.version}, MariaDB ${mariadb.version} and SQLite`)
  await postgres.sql(`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS label, (g % 1000)::numeric / 10 AS amount,
    timestamp '2026-01-01' - g * interval '1 second' AS created, repeat('n', 40) AS note FROM generate_series(1, ${ROWS}) g`)
  await postgres.sql(`GRANT SELECT ON big TO ${postgres.user}`)
  const admin = mariadb.admin()
  await admin.query(
    `CREATE TABLE ${mariadb.database}.big (id INT PRIMARY KEY, label CHAR(32), amount DECIMAL(10,1), created DATETIME, note VARCHAR(40))`
  )
  for (let from = 1; from <= ROWS; from += 100_000) {
    const to = Math.min(ROWS, from + 99_999)
    await admin.query(
      `INSERT INTO ${mariadb.database}.big SELECT seq, md5(seq), (seq % 1000) / 10, TIMESTAMP '2026-01-01 00:00:00' - INTERVAL seq SECOND, repeat('n', 40) FROM seq_${from}_to_${to}`
    )
  }
  await admin.query(`GRANT SELECT ON ${mariadb.database}.* TO '${mariadb.user}'@'%'`).catch(() => undefined)

  const sqlitePath = join(home, "big.db")
  const db = new Database(sqlitePath)
  db.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, label TEXT, amount REAL, created TEXT, note TEXT);
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${ROWS})
    INSERT INTO big SELECT n, hex(randomblob(16)), (n % 1000) / 10.0, datetime('2026-01-01', '-' || n || ' seconds'), '${
    "n".repeat(40)
  }' FROM g`)
  db.close()

  const ids = { postgresql: randomUUID(), mysql: randomUUID(), sqlite: randomUUID() }
  writeFileSync(
    join(home, "settings.json"),
    JSON.stringify({
      mcp: { requireAuth: false },
      limits: { requestsPerMinute: 1_000_000 },
      exports: { directory: out }
    })
  )
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [
        {
          id: ids.postgresql,
          name: "PostgreSQL",
          type: "postgresql",
          host: postgres.host,
          port: postgres.port,
          database: postgres.database,
          user: postgres.user,
          password: postgres.password,
          sslMode: "disable",
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow"
        },
        {
          id: ids.mysql,
          name: "MariaDB",
          type: "mysql",
          host: mariadb.host,
          port: mariadb.port,
          database: mariadb.database,
          user: mariadb.user,
          password: mariadb.password,
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow"
        },
        {
          id: ids.sqlite,
          name: "SQLite",
          type: "sqlite",
          path: sqlitePath,
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow"
        }
      ]
    }),
    { mode: 0o600 }
  )
  const server = spawn(process.execPath, [join(ROOT, "bin/dbdesk.mjs"), "serve", "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, DBDESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"]
  })
  stops.unshift(() => stopChild(server))
  const url = await new Promise<string>((resolve, reject) => {
    let text = ""
    server.stderr.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
    })
    server.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)?.[1]
      if (found !== undefined) resolve(found)
    })
    server.once("exit", (code) => reject(new Error(`dbdesk exited (${code}): ${text}`)))
  })

  const exportData = async (connectionId: string) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "export_data",
        arguments: { connection_id: connectionId, table: "big", format: "csv" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    })
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "export_data"
    }
    const before = readRssKb(server.pid!)
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, readRssKb(server.pid!))
    }, 50)
    const started = performance.now()
    const reply = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(3_600_000) }).then((
      r
    ) => r.text())
    const ms = performance.now() - started
    clearInterval(sampler)
    const result = JSON.parse(reply).result as {
      isError?: boolean
      content?: Array<{ text?: string }>
      structuredContent?: { rows: number; bytes: number }
    } | undefined
    if (result === undefined || result.isError === true || result.structuredContent === undefined) {
      return { error: result?.content?.[0]?.text ?? reply.slice(0, 300) }
    }
    return { ms, rows: result.structuredContent.rows, bytes: result.structuredContent.bytes, growthKb: peak - before }
  }
  const tool = (command: string, args: ReadonlyArray<string>, file: string, env: NodeJS.ProcessEnv = {}) => {
    const started = performance.now()
    const run = spawnSync("sh", ["-c", `"$0" "$@" > '${file}'`, command, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8"
    })
    if (run.status !== 0) throw new Error(`${command} failed: ${run.stderr}`)
    return { ms: performance.now() - started, bytes: statSync(file).size }
  }
  const row = (engine: string, what: string, ms: number, bytes: number, growth?: number) =>
    results.push(
      `| ${engine} | ${what} | ${(ms / 1000).toFixed(1)} s | ${
        Math.round(ROWS / (ms / 1000)).toLocaleString("en-US")
      } | ${mib(bytes / 1024)} MiB | ${growth === undefined ? "—" : `${mib(growth)} MiB`} |`
    )

  const engines = [
    [
      "PostgreSQL",
      ids.postgresql,
      () =>
        tool(
          "psql",
          [
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
            "\\copy big TO STDOUT CSV HEADER"
          ],
          join(out, "psql.csv"),
          { PGPASSWORD: postgres.password }
        ),
      "psql \\copy CSV"
    ],
    [
      "MariaDB",
      ids.mysql,
      () =>
        tool("mariadb", [
          "--batch",
          "-h",
          mariadb.host,
          "-P",
          String(mariadb.port),
          "-u",
          mariadb.user,
          `-p${mariadb.password}`,
          mariadb.database,
          "-e",
          "SELECT * FROM big"
        ], join(out, "mariadb.tsv")),
      "mariadb --batch"
    ],
    [
      "SQLite",
      ids.sqlite,
      () => tool("sqlite3", ["-csv", "-header", sqlitePath, "SELECT * FROM big"], join(out, "sqlite3.csv")),
      "sqlite3 -csv"
    ]
  ] as const
  for (const [engine, id, baseline, name] of engines) {
    console.error(`${engine}: export_data`)
    const ours = await exportData(id)
    if ("error" in ours) results.push(`| ${engine} | export_data | ${ours.error} | | | |`)
    else row(engine, "export_data CSV", ours.ms, ours.bytes, ours.growthKb)
    console.error(`${engine}: ${name}`)
    const theirs = baseline()
    row(engine, name, theirs.ms, theirs.bytes)
  }
  console.log(
    `\nExport of ${ROWS.toLocaleString("en-US")} rows (load average ${
      (await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")
    })\n`
  )
  console.log("| Database | Exporter | Wall time | Rows/s | File | dbdesk RSS growth |")
  console.log("|---|---|---|---|---|---|")
  for (const line of results) console.log(line)
} finally {
  for (const stop of stops) await stop().catch(() => undefined)
  rmSync(home, { recursive: true, force: true })
  rmSync(out, { recursive: true, force: true })
}
