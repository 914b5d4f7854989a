import { useEffect, useState } from "react"
import type { DashboardValue, SearchDashboard } from "../../../domain/SearchAdmin.ts"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { NodesPanel } from "./NodesPanel.tsx"

const PANELS: ReadonlyArray<readonly [keyof SearchDashboard, string]> = [
  ["processMemory", "Process memory"], ["systemMemory", "System memory"], ["memoryFragmentation", "Memory fragmentation"],
  ["disk", "Disk"], ["requestsPerSecond", "Requests per second"], ["searchLatency", "Search latency"],
  ["writeLatency", "Write latency"], ["pendingWriteBatches", "Pending write batches"], ["cacheHitRatio", "Cache hit ratio"],
  ["sessions", "Sessions"], ["slowQueries", "Slow query log"]
]

const format = (v: DashboardValue): string => {
  if (v._tag === "Unavailable") return v.reason
  const total = v.total === undefined ? "" : ` of ${format({ ...v, total: undefined as never, value: v.total })}`
  switch (v.unit) {
    case "bytes": return `${(v.value / 1048576).toFixed(1)} MB${total}`
    case "ratio": return v.value.toFixed(2)
    case "percent": return `${v.value.toFixed(1)} %`
    case "per_second": return `${v.value.toFixed(1)}/s`
    case "ms": return `${v.value.toFixed(1)} ms`
    case "count": return `${v.value}`
  }
}

/** Server Dashboard (doc 2 §2.4): refreshed every 5 s while open; sessions and slow log say they do not exist here. */
export const DashboardView = ({ connection }: { readonly connection: UiConnection }) => {
  const [data, setData] = useState<SearchDashboard>()
  const [error, setError] = useState<string>()
  const [at, setAt] = useState<Date>()
  const [paused, setPaused] = useState(false)
  useEffect(() => {
    let live = true
    const load = () => call((client) => client.search.dashboard({ path: { id: connection.id } })).then(
      (d) => { if (live) { setData(d); setError(undefined); setAt(new Date()) } },
      (e: Error) => live && setError(e.message)
    )
    void load()
    const timer = paused ? undefined : setInterval(() => void load(), 5000)
    return () => { live = false; if (timer !== undefined) clearInterval(timer) }
  }, [connection.id, paused])
  return (
    <section>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2>Server Dashboard</h2>
        <div className="row">
          <span className="note">{at === undefined ? "Loading…" : `Updated ${at.toLocaleTimeString()} · every 5 s`}</span>
          <button onClick={() => setPaused(!paused)}>{paused ? "Resume" : "Pause"}</button>
        </div>
      </div>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      <div className="metrics" aria-label="Metrics">
        {data !== undefined && PANELS.map(([key, label]) => (
          <div className="metric" key={key} aria-label={label}>
            <div className="note">{label}</div>
            <div className={data[key]._tag === "Available" ? "value" : "muted"}>{format(data[key])}</div>
          </div>
        ))}
      </div>
      <NodesPanel connectionId={connection.id} />
    </section>
  )
}
