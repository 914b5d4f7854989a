import { readFileSync, statfsSync } from "node:fs"
import { cpus, freemem, tmpdir, totalmem } from "node:os"
import { json, raw, type EngineResponse } from "./Http.ts"
import { dumpPretty } from "./Json.ts"
import { route, type RequestContext, type Route } from "./Router.ts"
import type { RequestCategory } from "./State.ts"

const STATS_WINDOW_MS = 10_000
const CATEGORIES: ReadonlyArray<Exclude<RequestCategory, "other">> = ["search", "import", "write", "delete"]

const activePercentage = (times: { user: number; nice: number; sys: number; idle: number; irq: number }): string => {
  const total = times.user + times.nice + times.sys + times.idle + times.irq
  return total === 0 ? "0.00" : ((100 * (total - times.idle)) / total).toFixed(2)
}

const swapBytes = (): { total: number; free: number } => {
  try {
    const meminfo = readFileSync("/proc/meminfo", "utf8")
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(meminfo)?.[1] ?? 0) * 1024
    return { total: kb("SwapTotal"), free: kb("SwapFree") }
  } catch {
    return { total: 0, free: 0 }
  }
}

/** §6.1: every value a string, pretty-printed. */
const metrics = (): EngineResponse => {
  const cores = cpus()
  const sum = cores.reduce(
    (acc, core) => ({
      user: acc.user + core.times.user,
      nice: acc.nice + core.times.nice,
      sys: acc.sys + core.times.sys,
      idle: acc.idle + core.times.idle,
      irq: acc.irq + core.times.irq
    }),
    { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 }
  )
  const disk = statfsSync(tmpdir())
  const memory = process.memoryUsage()
  const swap = swapBytes()
  const active = memory.rss
  const allocated = memory.heapUsed + memory.external
  const values: Record<string, string> = {
    system_cpu_active_percentage: activePercentage(sum),
    system_disk_total_bytes: String(disk.blocks * disk.bsize),
    system_disk_used_bytes: String((disk.blocks - disk.bfree) * disk.bsize),
    system_memory_total_bytes: String(totalmem()),
    system_memory_used_bytes: String(totalmem() - freemem()),
    system_memory_total_swap_bytes: String(swap.total),
    system_memory_used_swap_bytes: String(swap.total - swap.free),
    system_network_received_bytes: "0",
    system_network_sent_bytes: "0",
    typesense_memory_active_bytes: String(active),
    typesense_memory_allocated_bytes: String(allocated),
    // §6.1 source quirk: `resident` is emitted from `active`.
    typesense_memory_resident_bytes: String(active),
    typesense_memory_metadata_bytes: "0",
    typesense_memory_mapped_bytes: String(active),
    typesense_memory_retained_bytes: "0",
    typesense_memory_fragmentation_ratio: Math.max(0, 1 - allocated / active).toFixed(2)
  }
  cores.forEach((core, i) => (values[`system_cpu${i + 1}_active_percentage`] = activePercentage(core.times)))
  return raw(200, dumpPretty(values))
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

const mean = (values: ReadonlyArray<number>): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length

/** §6.2: numbers over the previous 10-second window; percentiles and cache fields only from v29. */
const stats = (context: RequestContext): EngineResponse => {
  const { state } = context
  const now = Date.now()
  const recent = state.samples.filter((sample) => now - sample.at <= STATS_WINDOW_MS)
  const seconds = STATS_WINDOW_MS / 1000
  const byKey = new Map<string, Array<number>>()
  for (const sample of recent) byKey.set(sample.key, [...(byKey.get(sample.key) ?? []), sample.latencyMs])
  const values: Record<string, unknown> = {
    requests_per_second: Object.fromEntries([...byKey].map(([key, l]) => [key, l.length / seconds])),
    latency_ms: Object.fromEntries([...byKey].map(([key, l]) => [key, mean(l)])),
    total_requests_per_second: recent.length / seconds,
    overloaded_requests_per_second: 0,
    pending_write_batches: 0
  }
  for (const category of CATEGORIES) {
    const samples = recent.filter((s) => s.category === category)
    const count = samples.reduce((n, s) => n + s.searches, 0)
    const latencies = samples.map((s) => s.latencyMs).sort((a, b) => a - b)
    values[`${category}_requests_per_second`] = count / seconds
    values[`${category}_latency_ms`] = mean(latencies)
    if (state.version >= 29 && latencies.length > 0) {
      values[`${category}_min_latency_ms`] = latencies[0]
      values[`${category}_max_latency_ms`] = latencies[latencies.length - 1]
      values[`${category}_70Percentile_latency_ms`] = percentile(latencies, 70)
      values[`${category}_95Percentile_latency_ms`] = percentile(latencies, 95)
      values[`${category}_99Percentile_latency_ms`] = percentile(latencies, 99)
    }
  }
  if (state.version >= 29) values["cache_hit_ratio"] = 0
  return raw(200, dumpPretty(values))
}

export const operationRoutes: ReadonlyArray<Route> = [
  route("GET", "/health", () => json(200, { ok: true }), { public: true }),
  route("POST", "/health", () => json(200, { ok: true })),
  route("GET", "/debug", (context) => json(200, { state: 1, version: `${context.state.version}.0` })),
  route("GET", "/metrics.json", metrics),
  route("GET", "/stats.json", stats),
  route("POST", "/operations/cache/clear", () => json(200, { success: true })),
  route("POST", "/operations/db/compact", () => json(200, { success: true }))
]
