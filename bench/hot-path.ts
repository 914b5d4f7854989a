/**
 * Where one request's time goes (D-63): `node --import tsx bench/hot-path.ts [--seconds N] [--only TEXT]`.
 * Not part of `npm run bench` (a diagnosis, not a measurement). For each case — a 1-row `execute_query` on PostgreSQL
 * and on SQLite and a `tools/list`, over HTTP at one client and through the stdio bridge — a fresh dbdesk runs from
 * its sources under `node --cpu-prof` (and the bridge too, for the bridge cases), gets one request at a time for N
 * seconds after a warm-up, and the profile is summarized: CPU time per request of each process (from /proc), and
 * the busy time by the nearest source file on the stack (bench/profile.ts `timeBySource`). `--dist` profiles the built
 * bins instead (build them with DBDESK_BUILD_UNMINIFIED=1 so the profile names source files); `--cpu` runs the built
 * bins unprofiled and prints only the rate and the CPU time per request (`--root DIR`: another checkout's bins);
 * `--alloc` runs them unprofiled under `--trace-gc-nvp` and prints the bytes dbdesk allocated per request as well.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { startPostgres } from "../test/support/PostgresHarness.ts"
import { measure } from "./load.ts"
import { httpRequest } from "./peers/servers.ts"
import { StdioPeer } from "./peers/stdio.ts"
import { descendants, readCpuMs } from "./proc.ts"
import { timeBySource, timeByStage } from "./profile.ts"
import { startDbdesk } from "./servers/dbdesk.ts"

const argv = process.argv.slice(2)
const option = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined)
const SECONDS = Number(option("seconds") ?? 5)
const ONLY = option("only")
const WARM_MS = 1500
/** The built bins, profiled. */
const DIST = argv.includes("--dist")
/** The built bins, unprofiled: rate and CPU time only. */
const CPU_ONLY = argv.includes("--cpu")
const CHECKOUT = option("root")
/** The built bins unprofiled under `--trace-gc-nvp`: the bytes V8 allocated per request (the GCs' `allocated=` summed). */
const ALLOC = argv.includes("--alloc")
/** Keep the .cpuprofile files in this directory (they are removed otherwise). */
const KEEP = option("keep")
const ROOT = join(import.meta.dirname, "..")

const postgres = await startPostgres({ logStatements: false })
const work = mkdtempSync(join(tmpdir(), "dbdesk-hot-"))
await postgres.sql(
  `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL); INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 1000) g; GRANT SELECT ON items TO ${postgres.user}`
)
const sqlitePath = join(work, "items.db")
const sqlite = new Database(sqlitePath)
sqlite.exec(
  "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL); WITH RECURSIVE g(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM g WHERE v < 1000) INSERT INTO items SELECT v, 'item ' || v FROM g"
)
sqlite.close()
const connections = [
  {
    id: "pg",
    name: "PostgreSQL",
    type: "postgresql",
    host: postgres.host,
    port: postgres.port,
    database: postgres.database,
    user: postgres.user,
    password: postgres.password,
    sslMode: "disable",
    aiPolicy: "alwaysAllow"
  },
  { id: "lite", name: "SQLite", type: "sqlite", path: sqlitePath, aiPolicy: "alwaysAllow" }
]

interface Spec {
  readonly method: string
  readonly name?: string
  readonly arguments?: Record<string, unknown>
  readonly progressToken?: string
}
const query = (connection: string, sql = "SELECT * FROM items WHERE id = 1"): Spec => ({
  method: "tools/call",
  name: "execute_query",
  arguments: { connection_id: connection, query: sql }
})
type Case = { readonly name: string; readonly via: "http" | "bridge"; readonly spec: Spec }
const all: ReadonlyArray<Case> = [
  { name: "http execute_query 1 row (PostgreSQL)", via: "http", spec: query("pg") },
  { name: "http execute_query 1 row (SQLite)", via: "http", spec: query("lite") },
  { name: "http execute_query 1000 rows (SQLite)", via: "http", spec: query("lite", "SELECT * FROM items LIMIT 1000") },
  { name: "http tools/list", via: "http", spec: { method: "tools/list" } },
  {
    name: "http execute_query 1 row with progress, SSE (SQLite)",
    via: "http",
    spec: { ...query("lite"), progressToken: "p" }
  },
  { name: "bridge execute_query 1 row (PostgreSQL)", via: "bridge", spec: query("pg") },
  { name: "bridge tools/list", via: "bridge", spec: { method: "tools/list" } }
]
const cases = all.filter((c) => ONLY === undefined || c.name.includes(ONLY))

const cpuOf = (pids: ReadonlyArray<number>) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + readCpuMs(pid)
    } catch {
      return sum
    }
  }, 0)

try {
  for (const c of cases) {
    const dir = join(KEEP ?? work, `profile-${cases.indexOf(c)}`)
    const spawned = performance.now()
    const profileFlags = ["--cpu-prof", "--cpu-prof-dir"]
    const dbdesk = await startDbdesk({
      connections,
      ...(ALLOC
        ? { nodeFlags: ["--trace-gc-nvp"] }
        : CPU_ONLY
        ? {}
        : DIST
        ? { nodeFlags: [...profileFlags, dir] }
        : { cpuProfileDir: dir }),
      ...(CHECKOUT === undefined ? {} : { root: CHECKOUT })
    })
    const request = httpRequest({ ...c.spec, id: 1 }, dbdesk.token)
    const bridge = c.via === "bridge"
      ? new StdioPeer("bridge", {
        command: process.execPath,
        args: CPU_ONLY || ALLOC
          ? [join(CHECKOUT ?? ROOT, "bin/dbdesk-mcp.mjs")]
          : [
            ...profileFlags,
            join(dir, "bridge"),
            ...(DIST
              ? [join(CHECKOUT ?? ROOT, "bin/dbdesk-mcp.mjs")]
              : ["--import", "tsx", join(ROOT, "src/bridge/BridgeMain.ts")])
          ],
        env: { ...process.env, DBDESK_HOME: dbdesk.home }
      })
      : undefined
    const bridgeSpawned = performance.now()
    await bridge?.initialize()
    const call = async (ms: number) => {
      if (bridge === undefined) return measure(dbdesk.url, request, 1, ms)
      const params = c.spec.method === "tools/call" ? { name: c.spec.name, arguments: c.spec.arguments } : {}
      const stats = await bridge.measure(c.spec.method, params, ms)
      return { requests: stats.calls, rps: stats.rps, p50Ms: stats.p50Ms, p99Ms: stats.p99Ms }
    }
    await call(WARM_MS)
    const skipMs = performance.now() - spawned
    const bridgeSkipMs = performance.now() - bridgeSpawned
    const children = descendants(dbdesk.pid)
    const before = {
      server: readCpuMs(dbdesk.pid),
      children: cpuOf(children),
      bridge: bridge === undefined ? 0 : readCpuMs(bridge.pid)
    }
    const outputBefore = dbdesk.output().length
    const stats = await call(SECONDS * 1000)
    const allocated = [...dbdesk.output().slice(outputBefore).matchAll(/ allocated=(\d+)/g)].reduce(
      (sum, match) => sum + Number(match[1]),
      0
    )
    const untilMs = performance.now() - spawned
    const bridgeUntilMs = performance.now() - bridgeSpawned
    const after = {
      server: readCpuMs(dbdesk.pid),
      children: cpuOf(children),
      bridge: bridge === undefined ? 0 : readCpuMs(bridge.pid)
    }
    const n = stats.requests
    await bridge?.stop()
    await dbdesk.stop()
    console.log(
      `\n${c.name}: ${n} requests, ${stats.rps.toFixed(0)}/s, p50 ${stats.p50Ms.toFixed(2)} ms, p99 ${
        stats.p99Ms.toFixed(2)
      } ms${CPU_ONLY || ALLOC ? "" : " (profiled: slower than unprofiled)"}`
    )
    if (ALLOC) console.log(`  allocated per request (V8 GC trace): dbdesk ${(allocated / n / 1024).toFixed(1)} KB`)
    console.log(
      `  CPU per request (/proc): dbdesk ${((after.server - before.server) / n).toFixed(3)} ms, SQLite child ${
        ((after.children - before.children) / n).toFixed(3)
      } ms${bridge === undefined ? "" : `, bridge ${((after.bridge - before.bridge) / n).toFixed(3)} ms`}`
    )
    const print = (what: string, path: string, skip: number, until: number) => {
      const bySource = timeBySource(path, undefined, skip, until)
      const byStage = timeByStage(path, undefined, skip, until)
      const line = (where: string, ms: number) =>
        `    ${((ms / n) * 1000).toFixed(0).padStart(6)} µs  ${
          ((ms / bySource.busyMs) * 100).toFixed(1).padStart(5)
        }%  ${where}`
      console.log(`  ${what}: ${(bySource.busyMs / n).toFixed(3)} ms busy per request (profile), by stage:`)
      for (const [where, ms] of byStage.rows) console.log(line(where, ms))
      console.log("  by nearest source file:")
      for (const [where, ms] of bySource.rows.slice(0, 16)) console.log(line(where, ms))
    }
    if (CPU_ONLY || ALLOC) continue
    console.log(`  (profile window: ${skipMs.toFixed(0)}–${untilMs.toFixed(0)} ms after spawn)`)
    print("dbdesk", dir, skipMs, untilMs)
    if (bridge !== undefined) print("bridge", join(dir, "bridge"), bridgeSkipMs, bridgeUntilMs)
  }
} finally {
  await postgres.stop()
  rmSync(work, { recursive: true, force: true })
}
