/**
 * The load generator, run in its own process by `bench/run.ts`: `tsx bench/load.ts <plan.json> <out.json>`.
 * `node:http` with one keep-alive `http.Agent` per measured run, N request loops that each wait for the whole answer
 * (SSE included) before sending the next, loopback only, bounded by time and by a request cap; it stops by itself.
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { Scenario, ServerName } from "./mcp.ts"
import { descendants, readRssKb } from "./proc.ts"

export interface ThroughputPlan {
  readonly kind: "throughput"
  readonly targets: Readonly<Record<ServerName, string>>
  readonly scenarios: ReadonlyArray<Scenario>
  readonly concurrencies: ReadonlyArray<number>
  readonly rounds: number
  readonly warmupMs: number
  readonly durationMs: number
}

export interface MemoryPlan {
  readonly kind: "memory"
  readonly url: string
  readonly pid: number
  /** Sent in turn (request i gets mix[i % mix.length]). */
  readonly mix: ReadonlyArray<Request>
  readonly concurrency: number
  /** Request counts after which the server's RSS is read (in-flight requests drained first). */
  readonly checkpoints: ReadonlyArray<number>
}

/** One measured cell of the peers comparison (bench/peers.ts): each server with its own body and headers. */
export interface CellSpec {
  readonly scenario: string
  readonly concurrency: number
  readonly entries: ReadonlyArray<{ readonly server: string; readonly url: string; readonly request: Request }>
}

/** The peers comparison: every cell's servers rotated round by round, as in the throughput plan. */
export interface CellsPlan {
  readonly kind: "cells"
  readonly cells: ReadonlyArray<CellSpec>
  readonly rounds: number
  readonly warmupMs: number
  readonly durationMs: number
}

export type LoadPlan = ThroughputPlan | MemoryPlan | CellsPlan

/** What one request is made of; a Scenario is one. */
export interface Request {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

export interface RunStats {
  readonly requests: number
  readonly errors: number
  readonly seconds: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly bytesPerResponse: number
  /** The first non-200 answer seen, to tell a broken run from a slow one. */
  readonly firstError?: string
}

export interface CellResult<S extends string = ServerName> {
  readonly scenario: string
  readonly concurrency: number
  readonly server: S
  /** One entry per round, in round order. */
  readonly rounds: ReadonlyArray<RunStats>
  /** The position (0-based) this server had in each round's order. */
  readonly positions: ReadonlyArray<number>
}

export interface MemoryPoint {
  readonly requests: number
  /** dbdesk's own process. */
  readonly rssKb: number
  /** Its child processes (the SQLite driver), summed. */
  readonly childrenRssKb: number
  readonly errors: number
  readonly seconds: number
}

/** Hard caps so a wedged server or a fast one can never keep the generator running. */
const REQUEST_TIMEOUT_MS = 15_000
const MAX_REQUESTS_PER_RUN = 2_000_000

interface Sample {
  status: number
  bytes: number
  firstError?: string
}

const once = (agent: http.Agent, url: URL, scenario: Request): Promise<Sample> =>
  new Promise((resolve) => {
    const request = http.request({
      hostname: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: scenario.headers,
      agent
    }, (response) => {
      let bytes = 0
      let errorText = ""
      const status = response.statusCode ?? 0
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length
        if (status !== 200 && errorText.length < 300) errorText += chunk.toString("utf8")
      })
      response.on("end", () =>
        resolve(
          status === 200
            ? { status, bytes }
            : { status, bytes, firstError: `HTTP ${status} ${errorText.slice(0, 300)}` }
        ))
      response.on("error", (error) => resolve({ status: 0, bytes, firstError: String(error) }))
    })
    request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error("request timeout")))
    request.on("error", (error) => resolve({ status: 0, bytes: 0, firstError: String(error) }))
    request.end(scenario.body)
  })

const percentile = (sorted: Float64Array, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))
  return sorted[index]!
}

/** `concurrency` loops against one server for `durationMs`. */
export const measure = async (
  target: string,
  scenario: Request,
  concurrency: number,
  durationMs: number
): Promise<RunStats> => {
  const url = new URL(target)
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency })
  let latencies = new Float64Array(65_536)
  let count = 0
  let errors = 0
  let bytes = 0
  let firstError: string | undefined
  const started = performance.now()
  const deadline = started + durationMs
  const loop = async () => {
    while (performance.now() < deadline && count + errors < MAX_REQUESTS_PER_RUN) {
      const t0 = performance.now()
      const sample = await once(agent, url, scenario)
      const elapsed = performance.now() - t0
      if (sample.status !== 200) {
        errors++
        firstError ??= sample.firstError
        continue
      }
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[count++] = elapsed
      bytes += sample.bytes
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = latencies.slice(0, count).sort()
  return {
    requests: count,
    errors,
    seconds,
    rps: count / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    bytesPerResponse: count === 0 ? 0 : Math.round(bytes / count),
    ...(firstError === undefined ? {} : { firstError })
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`)

const runThroughput = async (plan: ThroughputPlan): Promise<ReadonlyArray<CellResult>> => {
  const cells: Array<CellResult> = []
  for (const scenario of plan.scenarios) {
    for (const concurrency of plan.concurrencies) {
      const servers = scenario.servers
      for (const server of servers) await measure(plan.targets[server], scenario, concurrency, plan.warmupMs)
      const rounds = new Map<ServerName, Array<RunStats>>(servers.map((s) => [s, []]))
      const positions = new Map<ServerName, Array<number>>(servers.map((s) => [s, []]))
      for (let round = 0; round < plan.rounds; round++) {
        // A B C, B C A, C A B, …: every server takes every position, so drift and after-effects cancel.
        const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
        for (const [position, server] of order.entries()) {
          rounds.get(server)!.push(await measure(plan.targets[server], scenario, concurrency, plan.durationMs))
          positions.get(server)!.push(position)
        }
      }
      for (const server of servers) {
        const stats = rounds.get(server)!
        cells.push({ scenario: scenario.name, concurrency, server, rounds: stats, positions: positions.get(server)! })
        const rps = stats.map((s) => s.rps.toFixed(0)).join(" ")
        const errors = stats.reduce((sum, s) => sum + s.errors, 0)
        log(
          `  ${scenario.name.padEnd(24)} c=${String(concurrency).padEnd(3)} ${
            server.padEnd(8)
          } req/s per round: ${rps}${
            errors > 0 ? `  errors: ${errors} (${stats.find((s) => s.firstError)?.firstError ?? ""})` : ""
          }`
        )
      }
    }
  }
  return cells
}

const runCells = async (plan: CellsPlan): Promise<ReadonlyArray<CellResult<string>>> => {
  const cells: Array<CellResult<string>> = []
  for (const cell of plan.cells) {
    const entries = cell.entries
    for (const entry of entries) await measure(entry.url, entry.request, cell.concurrency, plan.warmupMs)
    const rounds = entries.map(() => [] as Array<RunStats>)
    const positions = entries.map(() => [] as Array<number>)
    for (let round = 0; round < plan.rounds; round++) {
      for (let position = 0; position < entries.length; position++) {
        const index = (position + round) % entries.length
        const entry = entries[index]!
        rounds[index]!.push(await measure(entry.url, entry.request, cell.concurrency, plan.durationMs))
        positions[index]!.push(position)
      }
    }
    entries.forEach((entry, index) => {
      const stats = rounds[index]!
      cells.push({
        scenario: cell.scenario,
        concurrency: cell.concurrency,
        server: entry.server,
        rounds: stats,
        positions: positions[index]!
      })
      const errors = stats.reduce((sum, s) => sum + s.errors, 0)
      log(
        `  ${cell.scenario.padEnd(34)} c=${String(cell.concurrency).padEnd(3)} ${
          entry.server.padEnd(16)
        } req/s per round: ${stats.map((s) => s.rps.toFixed(0)).join(" ")}${
          errors > 0 ? `  errors: ${errors} (${stats.find((s) => s.firstError)?.firstError ?? ""})` : ""
        }`
      )
    })
  }
  return cells
}

const runMemory = async (plan: MemoryPlan): Promise<ReadonlyArray<MemoryPoint>> => {
  const url = new URL(plan.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency, maxFreeSockets: plan.concurrency })
  const points: Array<MemoryPoint> = []
  const started = performance.now()
  let sent = 0
  let errors = 0
  for (const checkpoint of plan.checkpoints) {
    const loop = async () => {
      while (sent < checkpoint) {
        const scenario = plan.mix[sent % plan.mix.length]!
        sent++
        const sample = await once(agent, url, scenario)
        if (sample.status !== 200) errors++
      }
    }
    await Promise.all(Array.from({ length: plan.concurrency }, loop))
    const childrenRssKb = descendants(plan.pid).reduce((sum, pid) => {
      try {
        return sum + readRssKb(pid)
      } catch {
        return sum
      }
    }, 0)
    const point: MemoryPoint = {
      requests: sent,
      rssKb: readRssKb(plan.pid),
      childrenRssKb,
      errors,
      seconds: (performance.now() - started) / 1000
    }
    points.push(point)
    log(
      `  memory after ${String(sent).padStart(7)} requests: RSS ${(point.rssKb / 1024).toFixed(1)} MiB, children ${
        (childrenRssKb / 1024).toFixed(1)
      } MiB (${point.seconds.toFixed(1)} s, ${errors} errors)`
    )
  }
  agent.destroy()
  return points
}

const main = async () => {
  const [planPath, outPath] = process.argv.slice(2)
  if (planPath === undefined || outPath === undefined) throw new Error("usage: load.ts <plan.json> <out.json>")
  const plan = JSON.parse(readFileSync(planPath, "utf8")) as LoadPlan
  const targets = plan.kind === "memory"
    ? [plan.url]
    : plan.kind === "cells"
    ? plan.cells.flatMap((cell) => cell.entries.map((entry) => entry.url))
    : Object.values(plan.targets)
  for (const target of targets) {
    const host = new URL(target).hostname
    if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") {
      throw new Error(`refusing a non-loopback target: ${target}`)
    }
  }
  const result = plan.kind === "memory"
    ? await runMemory(plan)
    : plan.kind === "cells"
    ? await runCells(plan)
    : await runThroughput(plan)
  writeFileSync(outPath, JSON.stringify(result))
}

if (process.argv[1]?.endsWith("load.ts") === true) {
  main().then(() => process.exit(0), (error: unknown) => {
    log(`load generator failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`)
    process.exit(1)
  })
}
