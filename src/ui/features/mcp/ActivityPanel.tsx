import { useState } from "react"
import { useLoad } from "../../api.ts"

const CATEGORIES = ["", "auth", "token", "server", "tool", "resource", "approval"]

/** Activity log (product-decisions §6): filters by time, category, token and client, and CSV export. */
export const ActivityPanel = () => {
  const [category, setCategory] = useState("")
  const [client, setClient] = useState("")
  const [tokenId, setTokenId] = useState("")
  const [since, setSince] = useState("")
  const query = { category, client, tokenId, since: since === "" ? "" : new Date(since).toISOString() }
  const tokens = useLoad((c) => c.mcp.tokens({ urlParams: { all: "true" } }), [])
  const entries = useLoad((c) => c.mcp.activity({ urlParams: { ...query, limit: 500 } }), [category, client, tokenId, since])
  const csv = `/api/activity.csv?${new URLSearchParams(Object.entries(query).filter(([, v]) => v !== "")).toString()}`
  return (
    <section>
      <div className="row" style={{ marginBottom: 8 }}>
        <select aria-label="Category" value={category} onChange={(e) => setCategory(e.target.value)}>{CATEGORIES.map((c) => <option key={c} value={c}>{c === "" ? "All categories" : c}</option>)}</select>
        <select aria-label="Token" value={tokenId} onChange={(e) => setTokenId(e.target.value)}>
          <option value="">All tokens</option>{(tokens.data ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </select>
        <input aria-label="Client" placeholder="Client name" value={client} onChange={(e) => setClient(e.target.value)} />
        <label className="row">Since <input aria-label="Since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} /></label>
        <button onClick={entries.reload}>Refresh</button>
        <a href={csv} download="dbdesk-activity.csv">Export CSV</a>
      </div>
      {entries.error !== undefined && <div className="error">{entries.error}</div>}
      {entries.loading && <p className="progress">Loading…</p>}
      <table className="list" aria-label="Activity">
        <thead><tr><th>Time</th><th>Category</th><th>Action</th><th>Outcome</th><th>Token</th><th>Client</th><th>Subject</th><th>ms</th></tr></thead>
        <tbody>{(entries.data ?? []).map((e) => (
          <tr key={e.seq}>
            <td>{new Date(e.at).toLocaleString()}</td><td>{e.category}</td><td>{e.action}</td><td>{e.outcome ?? ""}</td>
            <td>{e.tokenName ?? ""}</td><td>{e.clientName ?? ""} {e.clientVersion ?? ""}</td><td>{e.subject ?? ""}</td><td>{e.durationMs ?? ""}</td>
          </tr>
        ))}</tbody>
      </table>
      {entries.data?.length === 0 && <p className="muted">Nothing matches these filters.</p>}
    </section>
  )
}
