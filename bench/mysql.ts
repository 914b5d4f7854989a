/**
 * MySQL/MariaDB figures (D-75), run by `bench/run.ts` (`--mysql`, or in the full run when MariaDB's binaries
 * are installed) as `tsx bench/mysql.ts <out.json> [rows] [durationMs]`. A throwaway MariaDB from the test harness, a
 * table of `rows` rows (3,000,000 by default), dbdesk as users run it with one MySQL connection; then through the
 * real HTTP endpoint: a 1-row `execute_query` at 1 and 16 clients, and `SELECT *` of the big table three times
 * (time, dbdesk's RSS growth).
 */
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import * as http from "node:http"
import { startMariadb } from "../test/support/MariadbHarness.ts"
import { expectResult, requestBody, requestHeaders } from "./mcp.ts"
import { readRssKb } from "./proc.ts"
import { startDbdesk } from "./servers/dbdesk.ts"

const [outPath, rowsArg, durationArg] = process.argv.slice(2)
if (outPath === undefined) throw new Error("usage: tsx bench/mysql.ts <out.json> [rows] [durationMs]")
const ROWS = Number(rowsArg ?? 3_000_000)
const DURATION_MS = Number(durationArg ?? 3_000)
const WARMUP_MS = 500

export interface MysqlThroughput {
  readonly concurrency: number
  readonly requests: number
  readonly errors: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
}

export interface MysqlResult {
  readonly server: string
  readonly rows: number
  readonly seedSeconds: number
  readonly throughput: ReadonlyArray<MysqlThroughput>
  readonly selectAll: {
    readonly ms: ReadonlyArray<number>
    readonly rssBeforeMiB: number
    readonly rssAfterMiB: ReadonlyArray<number>
    readonly growthMiB: number
  }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN

/** One keep-alive request; resolves with its status and body once the whole answer has arrived. */
const post = (agent: http.Agent, url: string, body: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers, agent }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on(
        "end",
        () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })
      )
      response.on("error", reject)
    })
    request.setTimeout(60_000, () => request.destroy(new Error("no answer within 60 s")))
    request.on("error", reject)
    request.end(body)
  })

/** N loops sending the next request when the previous answer ended, for a fixed time after a warm-up. */
const measure = async (
  url: string,
  token: string,
  args: Record<string, unknown>,
  concurrency: number
): Promise<MysqlThroughput> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const spec = { method: "tools/call", name: "execute_query", arguments: args, id: 1 }
  const body = requestBody(spec)
  const headers = requestHeaders(spec, token, body)
  const latencies: Array<number> = []
  let errors = 0
  const run = async (until: number, record: boolean) => {
    while (performance.now() < until) {
      const started = performance.now()
      const reply = await post(agent, url, body, headers).catch(() => ({ status: 0, body: "" }))
      if (!record) continue
      if (reply.status !== 200 || reply.body.includes("\"isError\":true")) errors++
      latencies.push(performance.now() - started)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, () => run(performance.now() + WARMUP_MS, false)))
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, () => run(started + DURATION_MS, true)))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    concurrency,
    requests: latencies.length,
    errors,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99)
  }
}

const main = async (): Promise<MysqlResult> => {
  const server = await startMariadb()
  let dbdesk: Awaited<ReturnType<typeof startDbdesk>> | undefined
  try {
    const seedStarted = performance.now()
    await server.admin().query(`
      SET GLOBAL general_log = 0;
      CREATE TABLE one (id INT PRIMARY KEY, label VARCHAR(20)); INSERT INTO one VALUES (1, 'one');
      CREATE TABLE big (id INT PRIMARY KEY, label VARCHAR(40) NOT NULL, amount DECIMAL(10,2), created DATETIME);
      INSERT INTO big SELECT seq, CONCAT('row ', seq), (seq % 100000) / 100, '2026-01-01' + INTERVAL (seq % 86400) SECOND FROM seq_1_to_${ROWS};
      ANALYZE TABLE big`)
    const seedSeconds = (performance.now() - seedStarted) / 1000
    process.stdout.write(`mysql bench: MariaDB ${server.version}, ${ROWS} rows seeded in ${seedSeconds.toFixed(1)} s\n`)
    const connection = {
      id: randomUUID(),
      name: "Bench (MariaDB)",
      type: "mysql",
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      database: server.database,
      sslMode: "disabled",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow",
      confirmQueries: "writes"
    }
    dbdesk = await startDbdesk({ connections: [connection] })
    const running = dbdesk
    const call = async (query: string) => {
      const spec = {
        method: "tools/call",
        name: "execute_query",
        arguments: { connection_id: connection.id, query },
        id: 1
      }
      const body = requestBody(spec)
      const reply = await post(new http.Agent(), running.url, body, requestHeaders(spec, running.token, body))
      return expectResult(`execute_query ${query}`, {
        status: reply.status,
        contentType: "application/json",
        body: reply.body
      })
    }
    await call("SELECT * FROM one WHERE id = 1")
    const throughput: Array<MysqlThroughput> = []
    for (const concurrency of [1, 16]) {
      throughput.push(
        await measure(running.url, running.token, {
          connection_id: connection.id,
          query: "SELECT * FROM one WHERE id = 1"
        }, concurrency)
      )
    }
    const rssBefore = readRssKb(running.pid) / 1024
    const ms: Array<number> = []
    const rssAfter: Array<number> = []
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      const result = await call("SELECT * FROM big")
      ms.push(performance.now() - started)
      const structured = result["structuredContent"] as { row_count?: number; is_truncated?: boolean } | undefined
      if (structured?.is_truncated !== true) {
        throw new Error(`SELECT * FROM big was not truncated: ${JSON.stringify(structured).slice(0, 200)}`)
      }
      rssAfter.push(readRssKb(running.pid) / 1024)
    }
    return {
      server: server.version,
      rows: ROWS,
      seedSeconds,
      throughput,
      selectAll: { ms, rssBeforeMiB: rssBefore, rssAfterMiB: rssAfter, growthMiB: rssAfter[2]! - rssBefore }
    }
  } finally {
    await dbdesk?.stop().catch(() => undefined)
    await server.stop()
  }
}

const result = await main()
writeFileSync(outPath, JSON.stringify(result, null, 2))
const line = (cells: ReadonlyArray<string>) =>
  process.stdout.write(`${cells.map((cell) => cell.padEnd(16)).join("")}\n`)
line(["mysql scenario", "c", "req/s", "p50 ms", "p99 ms", "errors"])
for (const t of result.throughput) {
  line([
    "execute_query 1 row",
    String(t.concurrency),
    t.rps.toFixed(0),
    t.p50Ms.toFixed(2),
    t.p99Ms.toFixed(2),
    String(t.errors)
  ])
}
process.stdout.write(
  `SELECT * FROM big (${result.rows} rows, default max_rows): ${
    result.selectAll.ms.map((ms) => `${ms.toFixed(0)} ms`).join(", ")
  }; ` +
    `dbdesk RSS ${result.selectAll.rssBeforeMiB.toFixed(1)} MiB before, ${
      result.selectAll.rssAfterMiB.map((v) => v.toFixed(1)).join(" / ")
    } MiB after each; growth ${result.selectAll.growthMiB.toFixed(1)} MiB\n`
)
process.exit(0)
