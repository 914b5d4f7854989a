/**
 * The peers table of D-63: one row per scenario, one column per server (req/s or calls/s with p50/p99 ms, medians
 * of the rounds), then dbdesk's ratio to the fastest peer and to the ceiling, computed round by round (the servers of
 * a round ran back to back) and shown as median (min–max); then the issue's targets with met/MISSED.
 */
import type { CellResult, MemoryPoint, RunStats } from "../load.ts"
import type { StdioStats } from "./stdio.ts"

export interface StdioCell {
  readonly scenario: string
  readonly server: string
  readonly rounds: ReadonlyArray<StdioStats>
}

export interface PeerSection {
  readonly database: "PostgreSQL" | "SQLite"
  /** Peers that could not be started here, with the reason. */
  readonly left: ReadonlyArray<string>
  readonly answerBytes: Record<string, Record<string, number>>
  readonly cells: ReadonlyArray<CellResult<string>>
  readonly stdio: ReadonlyArray<StdioCell>
  readonly memory?: Record<string, ReadonlyArray<MemoryPoint>>
}

export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
}

export interface PeerTarget {
  readonly name: string
  readonly measured: string
  readonly met: boolean | undefined
}

const NOT_PEERS = new Set(["dbdesk", "ceiling"])

const median = (values: ReadonlyArray<number>) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const spread = (values: ReadonlyArray<number>): Spread | undefined =>
  values.length === 0 ? undefined : { median: median(values), min: Math.min(...values), max: Math.max(...values) }

type Rounds = ReadonlyArray<Pick<RunStats, "rps" | "p50Ms" | "p99Ms">>

/** One row: the servers' rounds for a scenario (HTTP cell or stdio). */
interface Row {
  readonly label: string
  readonly servers: ReadonlyMap<string, Rounds>
}

interface RowFigures {
  readonly label: string
  readonly perServer: ReadonlyMap<string, { rps: number; p50: number; p99: number }>
  readonly fastestPeer: string | undefined
  readonly overFastest: Spread | undefined
  readonly overCeiling: Spread | undefined
}

const figuresOf = (row: Row): RowFigures => {
  const perServer = new Map([...row.servers].map(([server, rounds]) => [server, {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50Ms)),
    p99: median(rounds.map((r) => r.p99Ms))
  }]))
  const peers = [...row.servers].filter(([server]) => !NOT_PEERS.has(server))
  const fastestPeer = peers.sort(([a], [b]) => perServer.get(b)!.rps - perServer.get(a)!.rps)[0]?.[0]
  const dbdesk = row.servers.get("dbdesk")
  const ceiling = row.servers.get("ceiling")
  const overFastest = dbdesk === undefined || peers.length === 0
    ? undefined
    : spread(dbdesk.map((r, i) => r.rps / Math.max(...peers.map(([, rounds]) => rounds[i]?.rps ?? 0))))
  const overCeiling = dbdesk === undefined || ceiling === undefined
    ? undefined
    : spread(dbdesk.map((r, i) => r.rps / (ceiling[i]?.rps ?? Number.NaN)))
  return { label: row.label, perServer, fastestPeer, overFastest, overCeiling }
}

const rowsOf = (section: PeerSection): ReadonlyArray<Row> => {
  const rows: Array<Row> = []
  for (
    const [scenario, concurrency] of [["execute_query 1 row", 1], ["execute_query 1 row", 16], ["tools/list", 1], [
      "tools/list",
      16
    ]] as const
  ) {
    const cells = section.cells.filter((cell) => cell.scenario === scenario && cell.concurrency === concurrency)
    if (cells.length > 0) {
      rows.push({
        label: `HTTP ${scenario}, ${concurrency === 1 ? "1 client" : `${concurrency} clients`}`,
        servers: new Map(cells.map((cell) => [cell.server, cell.rounds]))
      })
    }
  }
  for (const scenario of ["execute_query 1 row", "tools/list"]) {
    const cells = section.stdio.filter((cell) => cell.scenario === scenario)
    if (cells.length > 0) {
      rows.push({
        label: `stdio ${scenario}, sequential`,
        servers: new Map(cells.map((cell) => [cell.server, cell.rounds]))
      })
    }
  }
  return rows
}

const fmt = (
  value: number | undefined,
  digits = 0
) => (value === undefined || !Number.isFinite(value)
  ? "—"
  : value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }))
export const fmtSpread = (
  s: Spread | undefined,
  digits = 2
) => (s === undefined ? "—" : `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`)

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)]
}

const growthOf = (points: ReadonlyArray<MemoryPoint>) => {
  const first = points[0]
  const last = points[points.length - 1]
  return first === undefined || last === undefined ? undefined : { first, last, growth: last.rssKb / first.rssKb - 1 }
}

export const sectionTable = (section: PeerSection): ReadonlyArray<string> => {
  const rows = rowsOf(section).map(figuresOf)
  const servers = [
    "dbdesk",
    ...new Set(rows.flatMap((row) => [...row.perServer.keys()]).filter((s) => !NOT_PEERS.has(s))),
    "ceiling"
  ]
  const body = rows.map((row) => [
    row.label,
    ...servers.map((server) => {
      const f = row.perServer.get(server)
      return f === undefined ? "—" : `${fmt(f.rps)} (${fmt(f.p50, 2)} / ${fmt(f.p99, 2)})`
    }),
    `${fmtSpread(row.overFastest)}${row.fastestPeer === undefined ? "" : ` ${row.fastestPeer}`}`,
    fmtSpread(row.overCeiling)
  ])
  const memoryRow = section.memory === undefined ? [] : [[
    "RSS MiB after 1,000 → N mixed HTTP requests",
    ...servers.map((server) => {
      const growth = growthOf(section.memory?.[server] ?? [])
      return growth === undefined
        ? "—"
        : `${fmt(growth.first.rssKb / 1024)} → ${fmt(growth.last.rssKb / 1024)} (${growth.growth >= 0 ? "+" : ""}${
          (growth.growth * 100).toFixed(0)
        }%)`
    }),
    "",
    ""
  ]]
  return [
    `${section.database}: req/s or calls/s (p50 / p99 ms), medians of the rounds`,
    ...table(["scenario", ...servers, "dbdesk / fastest peer", "dbdesk / ceiling"], [...body, ...memoryRow])
  ]
}

const verdict = (
  value: number | undefined,
  ok: (v: number) => boolean
) => (value === undefined || !Number.isFinite(value) ? undefined : ok(value))

/** D-63's targets that the peers comparison measures (the SSE and 1,000-row ones come from the main section). */
export const peerTargets = (sections: ReadonlyArray<PeerSection>): ReadonlyArray<PeerTarget> => {
  const targets: Array<PeerTarget> = []
  for (const section of sections) {
    const byLabel = new Map(rowsOf(section).map((row) => [row.label, figuresOf(row)]))
    const ratio = (label: string, name: string, floor: number) => {
      const row = byLabel.get(label)
      targets.push({
        name: `${section.database} ${name}`,
        measured: `${fmtSpread(row?.overFastest)}× ${row?.fastestPeer ?? ""}`,
        met: verdict(row?.overFastest?.median, (v) => v >= floor)
      })
    }
    const p99 = (label: string, name: string) => {
      const row = byLabel.get(label)
      const mine = row?.perServer.get("dbdesk")?.p99
      const theirs = row?.fastestPeer === undefined ? undefined : row.perServer.get(row.fastestPeer)?.p99
      targets.push({
        name: `${section.database} ${name}`,
        measured: `${fmt(mine, 2)} ms vs ${fmt(theirs, 2)} ms`,
        met: mine === undefined || theirs === undefined ? undefined : verdict(mine, (v) => v <= theirs)
      })
    }
    ratio("HTTP execute_query 1 row, 1 client", "1-row SQL over HTTP, 1 client ≥ 1.0× the fastest peer", 1)
    p99("HTTP execute_query 1 row, 1 client", "1-row SQL over HTTP, 1 client: p99 ≤ the fastest peer's")
    ratio("HTTP execute_query 1 row, 16 clients", "1-row SQL over HTTP, 16 clients ≥ 1.0× the fastest peer", 1)
    p99("HTTP execute_query 1 row, 16 clients", "1-row SQL over HTTP, 16 clients: p99 ≤ the fastest peer's")
    ratio("stdio execute_query 1 row, sequential", "1-row SQL over stdio (bridge) ≥ 1.0× the fastest peer", 1)
    ratio("HTTP tools/list, 1 client", "tools/list over HTTP, 1 client ≥ 1.0× the fastest peer", 1)
    ratio("stdio tools/list, sequential", "tools/list over stdio (bridge) ≥ 1.0× the fastest peer", 1)
    const list16 = byLabel.get("HTTP tools/list, 16 clients")?.overCeiling
    targets.push({
      name: `${section.database} tools/list over HTTP, 16 clients ≥ 90% of the ceiling`,
      measured: list16 === undefined
        ? "—"
        : `${(list16.median * 100).toFixed(0)}% (${(list16.min * 100).toFixed(0)}–${(list16.max * 100).toFixed(0)}%)`,
      met: verdict(list16?.median, (v) => v >= 0.9)
    })
    const growth = growthOf(section.memory?.["dbdesk"] ?? [])
    if (growth !== undefined) {
      targets.push({
        name: `${section.database} dbdesk RSS growth from 1,000 to ${fmt(growth.last.requests)} requests ≤ 5%`,
        measured: `${(growth.growth * 100).toFixed(1)}% (${fmt(growth.first.rssKb / 1024, 1)} → ${
          fmt(growth.last.rssKb / 1024, 1)
        } MiB)`,
        met: growth.growth <= 0.05
      })
    }
  }
  return targets
}
