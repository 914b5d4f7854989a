/**
 * What a page of a continued read costs (D-93), not part of `npm test` or `npm run bench`:
 * `node --import tsx bench/continued-read.ts [--rows N] [--page N]` (defaults 3,000,000 rows, pages of 10,000).
 *
 * A throwaway PostgreSQL 15 cluster (the test harness), the whole server in this process (the tests' `startTestServer`)
 * and the official client: `execute_query` of `SELECT … FROM big ORDER BY id` cut at `--page` rows, then `fetch_more`
 * to the end. Printed: the first page, the continued pages' time (median of the first ten, of the last ten, the
 * slowest), and as anchors one page run on its own (`LIMIT page`) and the last page read by re-running with `OFFSET`
 * (what each page would cost if the statement ran again). Flat first-to-last times mean no re-scan.
 */
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { startPostgres } from "../test/support/PostgresHarness.ts"
import { connectModernClient } from "../test/support/McpClients.ts"
import { startTestServer, tempHome } from "../test/support/TestServer.ts"

const flag = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const ROWS = flag("rows", 3_000_000)
const PAGE = flag("page", 10_000)

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const ms = (value: number) => `${value.toFixed(1)} ms`

const postgres = await startPostgres()
try {
  console.error(`PostgreSQL ${postgres.version}; generating ${ROWS} rows`)
  await postgres.sql(
    `CREATE TABLE big AS SELECT g AS id, md5(g::text) AS label, repeat('n', 20) AS note FROM generate_series(1, ${ROWS}) g`
  )
  await postgres.sql("ALTER TABLE big ADD PRIMARY KEY (id)")
  await postgres.sql(`GRANT SELECT ON big TO ${postgres.user}`)
  await postgres.sql("VACUUM ANALYZE big")
  const id = randomUUID()
  const home = tempHome()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [{
        id,
        name: "Bench (PostgreSQL)",
        type: "postgresql",
        host: postgres.host,
        port: postgres.port,
        database: postgres.database,
        user: postgres.user,
        password: postgres.password,
        sslMode: "disable",
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow"
      }]
    }),
    { mode: 0o600 }
  )
  const server = await startTestServer({
    home,
    settings: {
      mcp: { requireAuth: false },
      limits: { requestsPerMinute: 10_000_000, maxRows: Math.max(PAGE, 10_000) }
    },
    token: "readOnly"
  })
  const client = await connectModernClient(server.url, { token: server.token! })
  const call = async (name: string, args: Record<string, unknown>) => {
    const started = performance.now()
    const result: any = await client.callTool({ name, arguments: args })
    const elapsed = performance.now() - started
    if (result.isError === true) throw new Error(JSON.stringify(result.content))
    return {
      elapsed,
      rows: result.structuredContent.rows.length as number,
      handle: result.structuredContent.continuation?.handle as string | undefined
    }
  }
  try {
    const sql = "SELECT id, label, note FROM big ORDER BY id"
    const alone: Array<number> = []
    for (let i = 0; i < 5; i++) {
      alone.push(
        (await call("execute_query", { connection_id: id, query: `${sql} LIMIT ${PAGE}`, max_rows: PAGE })).elapsed
      )
    }
    const offset: Array<number> = []
    for (let i = 0; i < 3; i++) {
      offset.push(
        (await call("execute_query", {
          connection_id: id,
          query: `${sql} OFFSET ${ROWS - PAGE} LIMIT ${PAGE}`,
          max_rows: PAGE
        })).elapsed
      )
    }
    const first = await call("execute_query", { connection_id: id, query: sql, max_rows: PAGE })
    const pages: Array<number> = []
    let read = first.rows
    for (let handle = first.handle; handle !== undefined;) {
      const page = await call("fetch_more", { handle })
      pages.push(page.elapsed)
      read += page.rows
      handle = page.handle
    }
    if (read !== ROWS) throw new Error(`read ${read} rows of ${ROWS}`)
    const head = median(pages.slice(0, 10))
    const tail = median(pages.slice(-10))
    console.log(`continued read of ${ROWS} rows in pages of ${PAGE} (PostgreSQL, official client, in-process server)`)
    console.log(`  first page (execute_query, cursor opened)     ${ms(first.elapsed)}`)
    console.log(`  fetch_more pages                              ${pages.length}`)
    console.log(`  median of the first 10 continued pages        ${ms(head)}`)
    console.log(
      `  median of the last 10 continued pages         ${ms(tail)}   (last/first ${(tail / head).toFixed(2)})`
    )
    console.log(`  slowest continued page                        ${ms(Math.max(...pages))}`)
    console.log(
      `  all pages                                     ${
        ms(first.elapsed + pages.reduce((sum, value) => sum + value, 0))
      }`
    )
    console.log(`  anchor: one page on its own (LIMIT ${PAGE})       ${ms(median(alone))}`)
    console.log(`  anchor: the last page re-run with OFFSET      ${ms(median(offset))}`)
  } finally {
    await client.close()
    await server.stop()
  }
} finally {
  await postgres.stop()
}
