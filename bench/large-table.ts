/**
 * The large-table section (D-71): `SELECT * FROM big` on a 3,000,000-row table through `execute_query` on the
 * real HTTP endpoint, for SQLite and for a throwaway PostgreSQL; time per call and dbdesk's RSS growth after three
 * calls. Targets: ≤ 1 s per call, ≤ 50 MiB of RSS growth. Run alone by `npm run bench -- --large`, and in the full bench.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createLargeSqlite } from "../test/support/LargeTables.ts"
import {
  PG_BIN,
  POSTGRES_MISSING,
  postgresAvailable,
  type PostgresServer,
  startPostgres
} from "../test/support/PostgresHarness.ts"
import { expectResult, requestBody, requestHeaders, send } from "./mcp.ts"
import { descendants, readRssKb } from "./proc.ts"
import { startDbdesk } from "./servers/dbdesk.ts"

export const LARGE_ROWS = 3_000_000
export const TARGET_CALL_MS = 1000
export const TARGET_GROWTH_MIB = 50
const CALLS = 3

export interface LargeCall {
  readonly ms: number
  readonly rssKb: number
  readonly rowCount: number
  readonly truncated: boolean
  readonly answerBytes: number
}

export interface LargeDriverResult {
  readonly driver: "sqlite" | "postgresql"
  /** dbdesk's RSS right before the first call (after one small request on the connection). */
  readonly rssBeforeKb: number
  readonly calls: ReadonlyArray<LargeCall>
  readonly growthMiB: number
  /** Child processes of dbdesk after the calls (the SQLite driver's child), summed. */
  readonly childrenRssKb: number
}

export interface LargeTableResult {
  readonly rows: number
  readonly setupSeconds: { readonly sqlite: number; readonly postgresql: number | undefined }
  readonly drivers: ReadonlyArray<LargeDriverResult>
  readonly skipped: ReadonlyArray<string>
}

const childrenRss = (pid: number) =>
  descendants(pid).reduce((sum, child) => {
    try {
      return sum + readRssKb(child)
    } catch {
      return sum
    }
  }, 0)

/** The same table in PostgreSQL, made by the connection's own role with psql (no client library needed here). */
const createLargePostgres = (server: PostgresServer, rows: number) =>
  execFileSync(join(PG_BIN, "psql"), [
    "-h",
    server.host,
    "-p",
    String(server.port),
    "-U",
    server.user,
    "-d",
    server.database,
    "-v",
    "ON_ERROR_STOP=1",
    "-q",
    "-c",
    `CREATE TABLE big AS SELECT g AS id, 'customer ' || g AS name, g * 0.5 AS amount, repeat('x', 40) AS note FROM generate_series(1, ${rows}) AS g; ANALYZE big`
  ], { env: { ...process.env, PGPASSWORD: server.password }, stdio: ["ignore", "ignore", "inherit"] })

const timed = async <A>(work: () => A | Promise<A>): Promise<number> => {
  const started = performance.now()
  await work()
  return (performance.now() - started) / 1000
}

export const runLargeTable = async (log: (line?: string) => void, rows = LARGE_ROWS): Promise<LargeTableResult> => {
  const work = mkdtempSync(join(tmpdir(), "dbdesk-bench-large-"))
  const skipped: Array<string> = []
  let postgres: PostgresServer | undefined
  try {
    const sqlitePath = join(work, "big.db")
    log(
      `large table: ${rows.toLocaleString("en")} rows in SQLite${
        postgresAvailable ? " and PostgreSQL" : ""
      }, SELECT * FROM big through execute_query ×${CALLS}`
    )
    const sqliteSeconds = await timed(() => createLargeSqlite(sqlitePath, rows, { wide: false }))
    let postgresSeconds: number | undefined
    if (postgresAvailable) {
      postgres = await startPostgres()
      const server = postgres
      postgresSeconds = await timed(() => createLargePostgres(server, rows))
    } else skipped.push(POSTGRES_MISSING)
    log(
      `  tables made: SQLite ${sqliteSeconds.toFixed(1)} s${
        postgresSeconds === undefined ? "" : `, PostgreSQL ${postgresSeconds.toFixed(1)} s`
      }`
    )
    const connections = [
      { id: "large-sqlite", name: "Large SQLite", type: "sqlite", path: sqlitePath, aiPolicy: "alwaysAllow" },
      ...(postgres === undefined ? [] : [{
        id: "large-postgres",
        name: "Large PostgreSQL",
        type: "postgresql",
        host: postgres.host,
        port: postgres.port,
        database: postgres.database,
        user: postgres.user,
        password: postgres.password,
        sslMode: "disable",
        aiPolicy: "alwaysAllow"
      }])
    ]
    const dbdesk = await startDbdesk({ connections })
    const drivers: Array<LargeDriverResult> = []
    try {
      let id = 1
      const call = (connectionId: string, sql: string) => {
        const body = requestBody({
          method: "tools/call",
          name: "execute_query",
          arguments: { connection_id: connectionId, query: sql },
          id: id++
        })
        return send(
          dbdesk.url,
          body,
          requestHeaders({ method: "tools/call", name: "execute_query", id }, dbdesk.token, body)
        )
      }
      for (const connection of connections) {
        const driver = connection.type === "sqlite" ? "sqlite" : "postgresql"
        expectResult(`${driver} probe`, await call(connection.id, "SELECT 1"))
        const rssBeforeKb = readRssKb(dbdesk.pid)
        const calls: Array<LargeCall> = []
        for (let index = 0; index < CALLS; index++) {
          const started = performance.now()
          const reply = await call(connection.id, "SELECT * FROM big")
          const ms = performance.now() - started
          const content = expectResult(`${driver} SELECT *`, reply)["structuredContent"] as {
            row_count: number
            is_truncated: boolean
          }
          calls.push({
            ms,
            rssKb: readRssKb(dbdesk.pid),
            rowCount: content.row_count,
            truncated: content.is_truncated,
            answerBytes: Buffer.byteLength(reply.body)
          })
          log(
            `  ${driver} call ${index + 1}: ${ms.toFixed(0)} ms, ${content.row_count} rows${
              content.is_truncated ? " (truncated)" : ""
            }, dbdesk RSS ${(readRssKb(dbdesk.pid) / 1024).toFixed(1)} MiB`
          )
        }
        const last = calls[calls.length - 1]!
        drivers.push({
          driver,
          rssBeforeKb,
          calls,
          growthMiB: (last.rssKb - rssBeforeKb) / 1024,
          childrenRssKb: childrenRss(dbdesk.pid)
        })
      }
    } finally {
      await dbdesk.stop()
    }
    return { rows, setupSeconds: { sqlite: sqliteSeconds, postgresql: postgresSeconds }, drivers, skipped }
  } finally {
    await postgres?.stop().catch(() => undefined)
    rmSync(work, { recursive: true, force: true })
  }
}

/** The section's table and its targets, as the rest of the bench prints them. */
export const largeTableReport = (result: LargeTableResult) => {
  const header = [
    "driver",
    "call 1 ms",
    "call 2 ms",
    "call 3 ms",
    "rows",
    "RSS before MiB",
    "RSS after 3 MiB",
    "growth MiB",
    "child RSS MiB",
    "≤ 1 s",
    "≤ 50 MiB"
  ]
  const rows = result.drivers.map((driver) => {
    const slowest = Math.max(...driver.calls.map((call) => call.ms))
    return [
      driver.driver,
      ...driver.calls.map((call) => call.ms.toFixed(0)),
      String(driver.calls[0]?.rowCount ?? 0),
      (driver.rssBeforeKb / 1024).toFixed(1),
      ((driver.calls[driver.calls.length - 1]?.rssKb ?? 0) / 1024).toFixed(1),
      driver.growthMiB.toFixed(1),
      (driver.childrenRssKb / 1024).toFixed(1),
      slowest <= TARGET_CALL_MS ? "met" : "MISSED",
      driver.growthMiB <= TARGET_GROWTH_MIB ? "met" : "MISSED"
    ]
  })
  return { header, rows, notes: result.skipped }
}
