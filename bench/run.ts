/**
 * `npm run bench` (D-63; never part of `npm test`). Starts dbdesk, the SDK 2.4.0 reference and the
 * node:http ceiling, each in its own process on 127.0.0.1, then a load generator in its own process; prints the
 * tables and writes `bench/results.json`. See bench/README.md for how to read the numbers.
 *
 * Flags: --footprint (only the start-up and memory footprint of the bins, bench/footprint.ts), --skip-footprint,
 * --peers (only D-81's comparison with the peers, bench/peers.ts), --skip-peers, --peer-memory N,
 * --quick (the peers comparison and the SSE and 1,000-row rows with short rounds, in under two minutes),
 * --profile (dbdesk under `--cpu-prof`, summary printed; the profiler slows dbdesk down, so the numbers of a profiled
 * run are not the ones to report), --skip-memory, --skip-search, --skip-throughput, --rounds N, --duration MS,
 * --search-docs N, --memory-requests N, --only TEXT; --large (only the large-table section, bench/large-table.ts, which
 * the full run includes and --quick leaves out), --skip-large; --mysql / --skip-mysql (MySQL figures from
 * bench/mysql.ts; part of the full run when MariaDB's binaries are installed).
 * DBDESK_BENCH_ROOT=<dir> measures the dbdesk built in another checkout (its bin/) with this harness.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { cpus, totalmem, tmpdir, release, loadavg } from "node:os"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { CellResult, LoadPlan, MemoryPoint, RunStats } from "./load.ts"
import { expectResult, responseOf, scenarios, send, type Scenario, type ServerName } from "./mcp.ts"
import { defaultFootprintOptions, type FootprintResult, footprintTable, runFootprint } from "./footprint.ts"
import { stopChild } from "./proc.ts"
import { summarizeProfile } from "./profile.ts"
import { answerSizeLines, measureAnswerSizes } from "./answer-sizes.ts"
import { largeTableReport, runLargeTable } from "./large-table.ts"
import type { GridResult } from "./search-grid.ts"
import { ceilingKey, type CeilingAnswer } from "./servers/ceiling.ts"
import { BENCH_SETTINGS, startDbdesk, type RunningDbdesk } from "./servers/dbdesk.ts"
import { MEMORY_MIX, type PeersResult, runPeers } from "./peers.ts"
import { peerTargets, sectionTable } from "./peers/report.ts"
import type { ReferenceFixture, ReferenceTool } from "./servers/sdk-reference.ts"

const ROOT = fileURLToPath(new URL("../", import.meta.url))
const BENCH = join(ROOT, "bench")

// ---------------------------------------------------------------------------------------------------------------
// Options

const argv = process.argv.slice(2)
const flag = (name: string) => argv.includes(`--${name}`)
const numberOption = (name: string, fallback: number) => {
  const index = argv.indexOf(`--${name}`)
  const value = index === -1 ? undefined : Number(argv[index + 1])
  return value === undefined || !Number.isFinite(value) ? fallback : value
}
const quick = flag("quick")
const peersOnly = flag("peers")
/** DBDESK_BENCH_ROOT: another built checkout to measure (e.g. the commit before a change), with this harness. */
const root = process.env["DBDESK_BENCH_ROOT"]
const options = {
  quick,
  profile: flag("profile"),
  peers: peersOnly || !(flag("skip-peers") || flag("profile")),
  peerMemoryRequests: numberOption("peer-memory", quick ? 10_000 : 50_000),
  memory: !flag("skip-memory") && !quick,
  search: !flag("skip-search") && !quick,
  mysql: flag("mysql") || (!quick && !flag("skip-mysql") && existsSync("/usr/sbin/mariadbd")),
  throughput: !flag("skip-throughput"),
  rounds: numberOption("rounds", quick ? 2 : 4),
  durationMs: numberOption("duration", quick ? 400 : 700),
  warmupMs: quick ? 300 : 400,
  concurrencies: [1, 16],
  searchDocs: numberOption("search-docs", quick ? 20_000 : 100_000),
  memoryRequests: numberOption("memory-requests", quick ? 10_000 : 100_000),
  large: !quick && !flag("skip-large"),
  /** Only the scenarios whose name contains this text (e.g. `--only tools/list` for a focused profile). */
  only: argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : undefined
}
/** --quick keeps, of the main section, the rows whose targets the peers comparison does not cover. */
const QUICK_SCENARIOS = ["progress (SSE)", "execute_query 1000 rows"]

const log = (line = "") => process.stdout.write(`${line}\n`)

// ---------------------------------------------------------------------------------------------------------------
// Child processes

const children = new Set<ChildProcess>()

/** A TypeScript entry point in its own node process, through tsx like bin/dbdesk.mjs. */
const tsNode = (script: string, args: ReadonlyArray<string>, stdout: "pipe" | "inherit" = "pipe") => {
  const child = spawn(process.execPath, ["--import", "tsx", join(BENCH, script), ...args], {
    cwd: ROOT,
    stdio: ["ignore", stdout, "inherit"]
  })
  children.add(child)
  child.once("exit", () => children.delete(child))
  return child
}

const untilExit = (child: ChildProcess, what: string) =>
  new Promise<void>((resolve, reject) => {
    child.once(
      "exit",
      (code, signal) => (code === 0 ? resolve() : reject(new Error(`${what} failed (${code ?? signal})`)))
    )
  })

const startTsServer = (script: string, fixture: string) =>
  new Promise<{ url: string; child: ChildProcess }>((resolve, reject) => {
    const child = tsNode(script, [fixture])
    let out = ""
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000)
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const url = /^READY (\S+)$/m.exec(out)?.[1]
      if (url !== undefined) {
        clearTimeout(timer)
        resolve({ url, child })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${script} exited (${code}) before it was ready`))
    })
  })

// ---------------------------------------------------------------------------------------------------------------
// Fixtures: dbdesk answers once, the reference and the ceiling answer the same size

const stripEnvelope = (result: Record<string, unknown>) => {
  const { resultType: _resultType, _meta, ...rest } = result
  return rest
}

const buildFixtures = async (dbdesk: RunningDbdesk, all: ReadonlyArray<Scenario>) => {
  const answers: Array<CeilingAnswer> = []
  const results: Record<string, Record<string, unknown>> = {}
  let tools: ReadonlyArray<ReferenceTool> = []
  let toolsListHint: ReferenceFixture["toolsListHint"] = { ttlMs: 0, cacheScope: "private" }
  let progress: ReferenceFixture["progress"] = []
  const sizes: Record<string, number> = {}
  for (const scenario of all) {
    const reply = await send(dbdesk.url, scenario.body, scenario.headers)
    const result = expectResult(`dbdesk ${scenario.name}`, reply)
    sizes[scenario.name] = Buffer.byteLength(reply.body)
    const message = JSON.parse(scenario.body) as { params?: { name?: string } }
    const sse = reply.contentType.startsWith("text/event-stream")
    const responseFrame = reply.body.split("\n\n").find((frame) => /"id":/.test(frame) && /"result":/.test(frame)) ?? ""
    answers.push({
      key: ceilingKey(message),
      sse,
      preamble: sse ? reply.body.slice(0, reply.body.indexOf(responseFrame)) : "",
      resultText: JSON.stringify(responseOf(reply)["result"])
    })
    if (scenario.name === "tools/list") {
      tools = result["tools"] as ReadonlyArray<ReferenceTool>
      toolsListHint = {
        ttlMs: Number(result["ttlMs"] ?? 0),
        cacheScope: result["cacheScope"] === "public" ? "public" : "private"
      }
    } else if (scenario.name === "list_connections") {
      results["list_connections"] = stripEnvelope(result)
    } else if (scenario.name === "progress (SSE)") {
      results["execute_query"] = stripEnvelope(result)
      progress = reply.body.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
        JSON.parse(line.slice(6)) as Record<string, unknown>
      )
        .filter((frame) => frame["method"] === "notifications/progress")
        .map((frame) => {
          const params = frame["params"] as { progress: number; total: number; message: string }
          return { progress: params.progress, total: params.total, message: params.message }
        })
    }
  }
  const reference: ReferenceFixture = {
    tools,
    results: results as ReferenceFixture["results"],
    toolsListHint,
    progress
  }
  return { answers, reference, sizes }
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
  readonly perRound: ReadonlyArray<number>
}

const spread = (values: ReadonlyArray<number>): Spread => ({
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
  perRound: values
})

interface ServerSummary {
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly bytesPerResponse: number
  readonly rounds: ReadonlyArray<RunStats>
}

interface CellSummary {
  readonly scenario: string
  readonly concurrency: number
  readonly servers: Partial<Record<ServerName, ServerSummary>>
  /** Ratios computed round by round (the servers ran back to back in each round), then summarized. */
  readonly ratios: {
    readonly rpsDbdeskOverSdk?: Spread
    readonly rpsDbdeskOverCeiling?: Spread
    readonly p99DbdeskOverSdk?: Spread
    readonly p99DbdeskOverCeiling?: Spread
  }
}

const summarize = (cells: ReadonlyArray<CellResult>): ReadonlyArray<CellSummary> => {
  const keys = [...new Set(cells.map((cell) => `${cell.scenario}\u0000${cell.concurrency}`))]
  return keys.map((key) => {
    const [scenario, concurrencyText] = key.split("\u0000") as [string, string]
    const concurrency = Number(concurrencyText)
    const mine = cells.filter((cell) => cell.scenario === scenario && cell.concurrency === concurrency)
    const servers: Partial<Record<ServerName, ServerSummary>> = {}
    for (const cell of mine) {
      servers[cell.server] = {
        rps: median(cell.rounds.map((r) => r.rps)),
        p50Ms: median(cell.rounds.map((r) => r.p50Ms)),
        p99Ms: median(cell.rounds.map((r) => r.p99Ms)),
        errors: cell.rounds.reduce((sum, r) => sum + r.errors, 0),
        bytesPerResponse: median(cell.rounds.map((r) => r.bytesPerResponse)),
        rounds: cell.rounds
      }
    }
    const ratio = (other: ServerName, pick: (r: RunStats) => number) => {
      const a = servers.dbdesk?.rounds
      const b = servers[other]?.rounds
      if (a === undefined || b === undefined) return undefined
      return spread(a.map((r, i) => pick(r) / pick(b[i]!)))
    }
    const ratios: Record<string, Spread> = {}
    const add = (name: string, value: Spread | undefined) => {
      if (value !== undefined) ratios[name] = value
    }
    add("rpsDbdeskOverSdk", ratio("sdk", (r) => r.rps))
    add("rpsDbdeskOverCeiling", ratio("ceiling", (r) => r.rps))
    add("p99DbdeskOverSdk", ratio("sdk", (r) => r.p99Ms))
    add("p99DbdeskOverCeiling", ratio("ceiling", (r) => r.p99Ms))
    return { scenario, concurrency, servers, ratios }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Output

const fmt = (
  value: number | undefined,
  digits = 0
) => (value === undefined || !Number.isFinite(value) ? "—" : value.toFixed(digits))
const fmtSpread = (s: Spread | undefined, digits = 2) =>
  s === undefined ? "—" : `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
  log(line(header))
  log(widths.map((w) => "-".repeat(w)).join("  "))
  for (const row of rows) log(line(row))
}

interface Target {
  readonly name: string
  readonly measured: string
  readonly met: boolean | undefined
}

const percent = (s: { median: number; min: number; max: number } | undefined) =>
  s === undefined ? "—" : `${(s.median * 100).toFixed(0)}% (${(s.min * 100).toFixed(0)}–${(s.max * 100).toFixed(0)}%)`

/** D-63's targets measured by the main section (the rest come from the peers comparison). */
const targetsOf = (summary: ReadonlyArray<CellSummary>, memory: MemorySummary | undefined): ReadonlyArray<Target> => {
  const progress = [1, 16].map((c) => ({
    c,
    ratio: summary.find((cell) => cell.scenario === "progress (SSE)" && cell.concurrency === c)?.ratios.rpsDbdeskOverSdk
  }))
  const rows = summary.find((c) => c.scenario === "execute_query 1000 rows" && c.concurrency === 16)?.ratios
    .rpsDbdeskOverCeiling
  return [
    ...progress.map(({ c, ratio }) => ({
      name: `SSE progress call c=${c}: dbdesk ≥ 2× the SDK reference (req/s)`,
      measured: fmtSpread(ratio) + "×",
      met: ratio === undefined ? undefined : ratio.median >= 2
    })),
    {
      name: "execute_query 1,000 rows c=16: dbdesk ≥ 15% of the ceiling (req/s)",
      measured: percent(rows),
      met: rows === undefined ? undefined : rows.median >= 0.15
    },
    {
      name: `RSS growth from 1,000 to ${options.memoryRequests.toLocaleString("en-US")} requests ≤ 5%`,
      measured: memory === undefined
        ? "—"
        : `${(memory.growth * 100).toFixed(1)}% (${fmt(memory.rssAfterFirstKb / 1024, 1)} → ${
          fmt(memory.rssAfterLastKb / 1024, 1)
        } MiB)`,
      met: memory === undefined ? undefined : memory.growth <= 0.05
    }
  ]
}

const machineFacts = () => ({
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  totalMemoryMiB: Math.round(totalmem() / 2 ** 20),
  node: process.version,
  platform: process.platform,
  kernel: release(),
  loadAverage: loadavg()
})

const printPeers = (peers: PeersResult) => {
  for (const section of peers.sections) {
    log()
    for (const line of sectionTable(section)) log(line)
  }
  log(
    `memory mix: ${MEMORY_MIX}, concurrency 16; ratios per round: median (min–max); fastest peer named after its ratio`
  )
  if (peers.postgresRoundTrips !== undefined) {
    const trips = peers.postgresRoundTrips
    log(
      `dbdesk → PostgreSQL per 1-row execute_query (${trips.calls} calls): ${
        trips.roundTripsPerCall.toFixed(2)
      } round trips on the wire, ${
        trips.statementsPerCall.toFixed(2)
      } statements logged (log_min_duration_statement = 0): ${trips.statements.join(" | ")}`
    )
  }
  for (const reason of peers.missing) log(`peer left out: ${reason}`)
}

interface MemorySummary {
  readonly points: ReadonlyArray<MemoryPoint>
  readonly rssAfterFirstKb: number
  readonly rssAfterLastKb: number
  readonly growth: number
  /** From the 10,000-request checkpoint on, when there is one: tells warm-up growth from a steady climb. */
  readonly growthAfter10k?: number
  readonly mix: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------------------------
// Main

const main = async () => {
  const started = performance.now()
  const work = mkdtempSync(join(tmpdir(), "dbdesk-bench-run-"))
  const profileDir = join(tmpdir(), "dbdesk-bench-profiles")
  if (options.profile) {
    rmSync(profileDir, { recursive: true, force: true })
    mkdirSync(profileDir, { recursive: true })
  }
  log(
    `dbdesk bench: ${cpus().length} cpus (${cpus()[0]?.model ?? "?"}), node ${process.version}, load average ${
      loadavg().map((l) => l.toFixed(1)).join(" ")
    }`
  )
  log(
    `bench profile (D-63): ${
      JSON.stringify(BENCH_SETTINGS)
    }, auth on (Default readWrite token), sample SQLite connection alwaysAllow`
  )
  if (options.profile) log("PROFILED RUN: dbdesk runs under --cpu-prof; its numbers are slower than an unprofiled run")

  // First, while nothing else of the bench runs: the bins' start-up and memory (D-76).
  let footprint: FootprintResult | undefined
  if (flag("footprint") || !(flag("skip-footprint") || options.profile || quick || peersOnly)) {
    log()
    log("footprint: the built bins spawned as a user runs them (bench/footprint.ts)")
    footprint = await runFootprint(defaultFootprintOptions(argv), log)
    if (flag("footprint")) {
      for (const line of footprintTable(footprint)) log(line)
      writeFileSync(
        join(BENCH, "results.json"),
        JSON.stringify(
          {
            date: new Date().toISOString(),
            machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, kernel: release() },
            footprint
          },
          null,
          2
        )
      )
      log("results in bench/results.json")
      rmSync(work, { recursive: true, force: true })
      return
    }
  }

  // D-63: the peers comparison, with its own dbdesk, databases and peers (stopped before the main section starts).
  let peers: PeersResult | undefined
  if (options.peers) {
    log()
    log(
      `peers: ${options.rounds} rounds × ${options.durationMs} ms per server, warm-up ${options.warmupMs} ms, memory ${options.peerMemoryRequests} requests per server`
    )
    peers = await runPeers({
      rounds: options.rounds,
      warmupMs: options.warmupMs,
      durationMs: options.durationMs,
      memoryRequests: options.peerMemoryRequests,
      ...(root === undefined ? {} : { root }),
      runLoad: (name, plan) => runLoad(work, name, plan)
    }, log)
    if (peersOnly) {
      log()
      log("=".repeat(100))
      printPeers(peers)
      log()
      const list = peerTargets(peers.sections)
      table(
        ["target", "", "measured", "verdict"],
        list.map((t) => [t.name, "", t.measured, t.met === undefined ? "not run" : t.met ? "met" : "MISSED"])
      )
      writeFileSync(
        join(BENCH, "results.json"),
        JSON.stringify(
          { date: new Date().toISOString(), machine: machineFacts(), options, peers, targets: list },
          null,
          2
        )
      )
      log()
      log(`total ${((performance.now() - started) / 1000).toFixed(0)} s; results in bench/results.json`)
      rmSync(work, { recursive: true, force: true })
      return
    }
  }

  const spawnedAt = performance.now()
  const dbdesk = await startDbdesk({
    ...(options.profile ? { cpuProfileDir: profileDir } : {}),
    ...(root === undefined ? {} : { root })
  })
  let loadStartedAt = performance.now()
  let sdk: { url: string; child: ChildProcess } | undefined
  let ceiling: { url: string; child: ChildProcess } | undefined
  const results: Record<string, unknown> = footprint === undefined ? {} : { footprint }
  try {
    log(
      `dbdesk ${dbdesk.url} (pid ${dbdesk.pid}); effective settings: mcp.requireAuth=${
        String((dbdesk.profile.settings["mcp"] as Record<string, unknown> | undefined)?.["requireAuth"] ?? true)
      }, limits=${JSON.stringify(dbdesk.profile.settings["limits"])}; connection ${
        JSON.stringify(dbdesk.profile.connection)
      }`
    )
    const all = scenarios({ connectionId: dbdesk.connectionId, token: dbdesk.token })
    const fixtures = await buildFixtures(dbdesk, all)
    const referencePath = join(work, "sdk-fixture.json")
    const ceilingPath = join(work, "ceiling-fixture.json")
    writeFileSync(referencePath, JSON.stringify(fixtures.reference))
    writeFileSync(ceilingPath, JSON.stringify(fixtures.answers))
    ;[sdk, ceiling] = await Promise.all([
      startTsServer("servers/sdk-reference.ts", referencePath),
      startTsServer("servers/ceiling.ts", ceilingPath)
    ])
    const targets: Record<ServerName, string> = { dbdesk: dbdesk.url, sdk: sdk.url, ceiling: ceiling.url }
    log(`SDK reference ${sdk.url} (${fixtures.reference.tools.length} tools), ceiling ${ceiling.url}`)

    // Every server must answer every one of its scenarios with a result before anything is measured.
    const answerSizes: Record<string, Record<string, number>> = {}
    for (const scenario of all) {
      for (const server of scenario.servers) {
        const reply = await send(targets[server], scenario.body, scenario.headers)
        expectResult(`${server} ${scenario.name}`, reply)
        ;(answerSizes[scenario.name] ??= {})[server] = Buffer.byteLength(reply.body)
      }
    }
    log(
      `answer sizes (bytes): ${
        Object.entries(answerSizes).map(([name, sizes]) =>
          `${name}: ${Object.entries(sizes).map(([s, n]) => `${s} ${n}`).join(", ")}`
        ).join("; ")
      }`
    )
    results["answerBytes"] = answerSizes
    const modelSizes = await measureAnswerSizes(dbdesk.url, dbdesk.token, dbdesk.connectionId)
    for (const line of answerSizeLines(modelSizes)) log(line)
    results["answerSizeTable"] = modelSizes

    loadStartedAt = performance.now()
    // Memory first, on a dbdesk that has only answered the probes: RSS after 1,000 and after 100,000 mixed requests.
    let memory: MemorySummary | undefined
    if (options.memory) {
      log()
      log(`memory: ${options.memoryRequests} mixed requests at concurrency 16 against dbdesk`)
      const byName = new Map(all.map((s) => [s.name, s]))
      // A cycle of 50: tools/list ×16, list_connections ×16, execute_query 1 row ×15, progress (SSE) ×2, 1,000 rows ×1
      // (the heavy ones are rarer so 100,000 requests fit the time budget; each still runs thousands of times).
      const cycle: Array<string> = []
      for (let i = 0; i < 50; i++) {
        cycle.push(
          i === 49
            ? "execute_query 1000 rows"
            : i === 12 || i === 37
            ? "progress (SSE)"
            : ["tools/list", "list_connections", "execute_query 1 row"][i % 3]!
        )
      }
      const mixNames = cycle
      const mix = mixNames.map((name) => byName.get(name)!)
      const checkpoints = [1_000, 10_000, 25_000, 50_000, 75_000, options.memoryRequests].filter((n, i, list) =>
        n <= options.memoryRequests && list.indexOf(n) === i
      )
      const plan: LoadPlan = { kind: "memory", url: dbdesk.url, pid: dbdesk.pid, mix, concurrency: 16, checkpoints }
      const points = await runLoad<ReadonlyArray<MemoryPoint>>(work, "memory", plan)
      const first = points[0]!
      const last = points[points.length - 1]!
      const counts = new Map<string, number>()
      for (const name of mixNames) counts.set(name, (counts.get(name) ?? 0) + 1)
      const at10k = points.find((p) => p.requests === 10_000)
      memory = {
        points,
        rssAfterFirstKb: first.rssKb,
        rssAfterLastKb: last.rssKb,
        growth: last.rssKb / first.rssKb - 1,
        ...(at10k === undefined || at10k === last ? {} : { growthAfter10k: last.rssKb / at10k.rssKb - 1 }),
        mix: [...counts].map(([name, n]) => `${name} ${n}/${mixNames.length}`)
      }
      results["memory"] = memory
    }

    let summary: ReadonlyArray<CellSummary> = []
    if (options.throughput) {
      log()
      log(
        `throughput: ${options.rounds} rounds × ${options.durationMs} ms per server (order rotates A B C → B C A → …), warm-up ${options.warmupMs} ms, concurrency ${
          options.concurrencies.join(" and ")
        }`
      )
      const plan: LoadPlan = {
        kind: "throughput",
        targets,
        scenarios: all.filter((
          s
        ) => (options.only === undefined ? !quick || QUICK_SCENARIOS.includes(s.name) : s.name.includes(options.only))),
        concurrencies: options.concurrencies,
        rounds: options.rounds,
        warmupMs: options.warmupMs,
        durationMs: options.durationMs
      }
      const cells = await runLoad<ReadonlyArray<CellResult>>(work, "throughput", plan)
      summary = summarize(cells)
      results["throughput"] = summary
    }

    await Promise.all([stopChild(sdk.child), stopChild(ceiling.child)])
    await dbdesk.stop()

    let grid: GridResult | undefined
    if (options.search) {
      log()
      log(
        `search grid: ${options.searchDocs} documents in the test engine (in-process), grid readPage vs the official typesense client`
      )
      const out = join(work, "grid.json")
      await untilExit(tsNode("search-grid.ts", [String(options.searchDocs), out], "inherit"), "search grid bench")
      grid = JSON.parse(readFileSync(out, "utf8")) as GridResult
      results["searchGrid"] = grid
    }

    const large = options.large ? (log(), await runLargeTable(log)) : undefined
    if (large !== undefined) results["largeTable"] = large

    if (options.mysql) {
      log()
      const out = join(work, "mysql.json")
      await untilExit(tsNode("mysql.ts", [out, String(quick ? 300_000 : 3_000_000)], "inherit"), "mysql bench")
      results["mysql"] = JSON.parse(readFileSync(out, "utf8")) as unknown
    }

    // ------------------------------------------------------------------------------------------------- report
    log()
    log("=".repeat(100))
    log(
      `RESULTS  (${cpus().length} cpus, node ${process.version}; medians over ${options.rounds} rounds; ratios per round: median (min–max))`
    )
    log(`bench profile: ${JSON.stringify(BENCH_SETTINGS)}, auth on, sample connection alwaysAllow`)
    if (summary.length > 0) {
      log()
      table(
        [
          "scenario",
          "c",
          "dbdesk req/s",
          "p50",
          "p99",
          "SDK req/s",
          "p50",
          "p99",
          "ceiling req/s",
          "p50",
          "p99",
          "dbdesk/SDK",
          "dbdesk/ceiling",
          "p99 dbdesk/ceiling"
        ],
        summary.map((cell) => {
          const d = cell.servers.dbdesk
          const s = cell.servers.sdk
          const c = cell.servers.ceiling
          return [
            cell.scenario,
            String(cell.concurrency),
            fmt(d?.rps),
            fmt(d?.p50Ms, 2),
            fmt(d?.p99Ms, 2),
            fmt(s?.rps),
            fmt(s?.p50Ms, 2),
            fmt(s?.p99Ms, 2),
            fmt(c?.rps),
            fmt(c?.p50Ms, 2),
            fmt(c?.p99Ms, 2),
            fmtSpread(cell.ratios.rpsDbdeskOverSdk),
            fmtSpread(cell.ratios.rpsDbdeskOverCeiling),
            fmtSpread(cell.ratios.p99DbdeskOverCeiling)
          ]
        })
      )
      const errors = summary.flatMap((cell) =>
        Object.entries(cell.servers).filter(([, s]) => s.errors > 0).map(([server, s]) =>
          `${cell.scenario} c=${cell.concurrency} ${server}: ${s.errors}`
        )
      )
      if (errors.length > 0) log(`non-200 answers: ${errors.join("; ")}`)
      log("latencies in ms; req/s and latencies are medians of the rounds")
    }
    if (memory !== undefined) {
      log()
      table(
        ["requests", "", "dbdesk RSS MiB", "SQLite child RSS MiB", "elapsed s", "errors"],
        memory.points.map((p) => [
          String(p.requests),
          "",
          fmt(p.rssKb / 1024, 1),
          fmt(p.childrenRssKb / 1024, 1),
          fmt(p.seconds, 1),
          String(p.errors)
        ])
      )
      log(
        `RSS growth 1,000 → ${options.memoryRequests}: ${(memory.growth * 100).toFixed(1)}%${
          memory.growthAfter10k === undefined
            ? ""
            : `; 10,000 → ${options.memoryRequests}: ${(memory.growthAfter10k * 100).toFixed(1)}%`
        }  (mix: ${memory.mix.join(", ")})`
      )
    }
    if (grid !== undefined) {
      log()
      table(
        ["path", "documents", "requests", "searches", "ms"],
        grid.reads.map((r) => [r.path, String(r.documents), String(r.requests), String(r.searches), fmt(r.ms)])
      )
      log(
        `engine seeded with ${grid.seededDocuments} documents in ${
          fmt(grid.seedMs / 1000, 1)
        } s; requests counted at the engine`
      )
    }
    if (footprint !== undefined) {
      log()
      for (const line of footprintTable(footprint)) log(line)
    }
    if (large !== undefined) printLarge(large)
    if (peers !== undefined) {
      results["peers"] = peers
      printPeers(peers)
    }
    const targetList = [...targetsOf(summary, memory), ...(peers === undefined ? [] : peerTargets(peers.sections))]
    log()
    table(
      ["target", "", "measured", "verdict"],
      targetList.map((t) => [t.name, "", t.measured, t.met === undefined ? "not run" : t.met ? "met" : "MISSED"])
    )
    results["targets"] = targetList

    if (options.profile) {
      log()
      log(`dbdesk CPU profile (${profileDir}):`)
      for (const line of summarizeProfile(profileDir, dbdesk.pid, Math.max(0, loadStartedAt - spawnedAt - 200))) {
        log(line)
      }
    }

    const elapsed = (performance.now() - started) / 1000
    log()
    log(`total ${elapsed.toFixed(0)} s; results in bench/results.json`)
    writeFileSync(
      join(BENCH, "results.json"),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: machineFacts(),
          benchProfile: {
            settings: BENCH_SETTINGS,
            auth: "on (Default readWrite bearer token)",
            connection: dbdesk.profile.connection,
            effectiveSettings: dbdesk.profile.settings
          },
          options,
          profiled: options.profile,
          seconds: elapsed,
          ...results
        },
        null,
        2
      )
    )
  } finally {
    for (const child of children) child.kill("SIGTERM")
    await dbdesk.stop().catch(() => undefined)
    rmSync(work, { recursive: true, force: true })
  }
}

const runLoad = async <A>(work: string, name: string, plan: LoadPlan): Promise<A> => {
  const planPath = join(work, `${name}-plan.json`)
  const outPath = join(work, `${name}-out.json`)
  writeFileSync(planPath, JSON.stringify(plan))
  await untilExit(tsNode("load.ts", [planPath, outPath], "inherit"), `load generator (${name})`)
  return JSON.parse(readFileSync(outPath, "utf8")) as A
}

const printLarge = (large: Awaited<ReturnType<typeof runLargeTable>>) => {
  const report = largeTableReport(large)
  log()
  table(report.header, report.rows)
  for (const note of report.notes) log(`skipped: ${note}`)
}

/** `--large`: the large-table section alone, its results in bench/results.json. */
const largeOnly = async () => {
  const large = await runLargeTable(log)
  printLarge(large)
  writeFileSync(
    join(BENCH, "results.json"),
    JSON.stringify(
      { date: new Date().toISOString(), machine: { cpus: cpus().length, node: process.version }, largeTable: large },
      null,
      2
    )
  )
}

const onSignal = () => {
  for (const child of children) child.kill("SIGTERM")
  process.exit(130)
}
process.once("SIGINT", onSignal)
process.once("SIGTERM", onSignal)

await (flag("large") ? largeOnly() : main()).then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  for (const child of children) child.kill("SIGTERM")
  process.exit(1)
})
