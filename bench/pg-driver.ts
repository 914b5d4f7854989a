/**
 * PostgreSQL driver figures for D-71, D-73 (not part of `npm test` or `npm run bench`):
 * `node scripts/build.mjs app && node --import tsx bench/pg-driver.ts [--rows N] [--rounds N] [--duration MS]`.
 * `DBDESK_BENCH_ROOT=<dir>` runs the dbdesk built in another checkout (its `bin/dbdesk.mjs`) instead of this one.
 *
 * A throwaway PostgreSQL 15 cluster (the test harness), `dbdesk serve --port 0` in its own process with one
 * PostgreSQL connection (alwaysAllow, auth off, the bench profile's rate limits), and this process as the load
 * generator (`bench/load.ts`'s `measure`: keep-alive node:http, N loops, each waits for the whole answer):
 * 1. `execute_query` of `SELECT * FROM t WHERE id = 1` at 1 and 16 concurrent clients: median req/s of the rounds,
 *    and dbdesk's CPU time per call (utime + stime of its process from /proc, which a busy machine disturbs less);
 * 2. `execute_query` of `SELECT * FROM big` (N generated rows, about 100 bytes each) three times: wall time per
 *    call and dbdesk's RSS (`VmRSS`) before, after each call and after 5 s idle.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startPostgres } from "../test/support/PostgresHarness.ts"
import { measure } from "./load.ts"
import type { Scenario } from "./mcp.ts"
import { readRssKb } from "./proc.ts"

const flag = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const ROWS = flag("rows", 1_000_000)
const ROUNDS = flag("rounds", 3)
const DURATION_MS = flag("duration", 5000)
/** DBDESK_BENCH_ROOT: another built checkout to measure (e.g. the commit before a driver change), with this harness. */
const ROOT = process.env["DBDESK_BENCH_ROOT"] ?? fileURLToPath(new URL("../", import.meta.url))

const postgres = await startPostgres()
const home = mkdtempSync(join(tmpdir(), "dbdesk-pgbench-"))
const child = { stop: () => {} }
try {
  console.error(`PostgreSQL ${postgres.version}; generating ${ROWS} rows`)
  await postgres.sql(
    `CREATE TABLE t (id int PRIMARY KEY, label text NOT NULL); INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')`
  )
  await postgres.sql(`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS label, (g % 1000)::numeric / 10 AS amount,
    timestamptz '2026-01-01' - g * interval '1 second' AS created, repeat('n', 40) AS note FROM generate_series(1, ${ROWS}) g`)
  await postgres.sql(`GRANT SELECT ON t, big TO ${postgres.user}`)
  await postgres.sql("VACUUM ANALYZE big")
  const [size] = await postgres.sql<{ size: string }>("SELECT pg_size_pretty(pg_table_size('big')) AS size")
  const connectionId = randomUUID()
  writeFileSync(
    join(home, "settings.json"),
    JSON.stringify({ mcp: { requireAuth: false }, limits: { requestsPerMinute: 10_000_000, concurrentPerCaller: 64 } })
  )
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [{
        id: connectionId,
        name: "Bench (PostgreSQL)",
        type: "postgresql",
        host: postgres.host,
        port: postgres.port,
        database: postgres.database,
        user: postgres.user,
        password: postgres.password,
        sslMode: "disable",
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes"
      }]
    }),
    { mode: 0o600 }
  )
  const server = spawn(process.execPath, [join(ROOT, "bin/dbdesk.mjs"), "serve", "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, DBDESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stop = () => server.kill("SIGKILL")
  const url = await new Promise<string>((resolve, reject) => {
    let out = ""
    server.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out)?.[1]
      if (found !== undefined) resolve(found)
    })
    server.once("exit", (code) => reject(new Error(`dbdesk exited (${code}): ${out}`)))
  })
  const scenario = (query: string): Scenario => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "execute_query",
        arguments: { connection_id: connectionId, query },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    })
    return {
      name: query,
      servers: ["dbdesk"],
      body,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "execute_query",
        "content-length": String(Buffer.byteLength(body))
      }
    }
  }
  const oneRow = scenario("SELECT * FROM t WHERE id = 1")
  const probe = await fetch(url, { method: "POST", headers: oneRow.headers, body: oneRow.body }).then((r) => r.text())
  if (!probe.includes("\"rows\":[[1,\"one\"]]")) throw new Error(`unexpected answer: ${probe}`)
  /** CPU time (user + system) dbdesk's process has used, in ms (clock ticks of 10 ms). */
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
  for (const concurrency of [1, 16]) {
    await measure(url, oneRow, concurrency, 2000)
    const rounds = []
    const cpuBefore = cpuMs()
    for (let round = 0; round < ROUNDS; round++) rounds.push(await measure(url, oneRow, concurrency, DURATION_MS))
    const cpuPerCall = (cpuMs() - cpuBefore) / rounds.reduce((sum, r) => sum + r.requests, 0)
    const rps = rounds.map((r) => r.rps).sort((a, b) => a - b)
    const errors = rounds.reduce((sum, r) => sum + r.errors, 0)
    console.log(
      `execute_query 1 row c=${concurrency}: median ${rps[Math.floor(rps.length / 2)]!.toFixed(0)} req/s (rounds ${
        rps.map((r) => r.toFixed(0)).join(" ")
      }), p50 ${rounds[0]!.p50Ms.toFixed(2)} ms, dbdesk CPU ${cpuPerCall.toFixed(3)} ms/call, errors ${errors}`
    )
  }
  const big = scenario("SELECT * FROM big")
  const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`
  const before = readRssKb(server.pid!)
  console.log(`SELECT * FROM big (${ROWS} rows, ${size?.size}): RSS before ${mib(before)}`)
  for (let call = 1; call <= 3; call++) {
    const started = performance.now()
    const text = await fetch(url, { method: "POST", headers: big.headers, body: big.body }).then((r) => r.text())
    const ms = performance.now() - started
    const result = JSON.parse(text).result?.structuredContent
    console.log(
      `  call ${call}: ${
        ms.toFixed(0)
      } ms, ${result?.row_count} rows, truncated ${result?.is_truncated}, ${text.length} bytes; RSS ${
        mib(readRssKb(server.pid!))
      } (+${mib(readRssKb(server.pid!) - before)})`
    )
  }
  await new Promise((resolve) => setTimeout(resolve, 5000))
  console.log(`  after 5 s idle: RSS ${mib(readRssKb(server.pid!))} (+${mib(readRssKb(server.pid!) - before)})`)
} finally {
  child.stop()
  await postgres.stop()
  rmSync(home, { recursive: true, force: true })
}
