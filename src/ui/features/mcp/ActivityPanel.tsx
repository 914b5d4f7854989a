import { useState } from "react"
import { call, useLoad } from "../../api.ts"

const CATEGORIES = ["", "auth", "token", "server", "tool", "resource", "approval"]

/** Activity log (product-decisions §6): filters by time, category, token and client, CSV and JSONL export, and the hash-chain check. */
export const ActivityPanel = () => {
  const [category, setCategory] = useState("")
  const [client, setClient] = useState("")
  const [tokenId, setTokenId] = useState("")
  const [since, setSince] = useState("")
  const query = { category, client, tokenId, since: since === "" ? "" : new Date(since).toISOString() }
  const tokens = useLoad((c) => c.mcp.tokens({ urlParams: { all: "true" } }), [])
  const entries = useLoad((c) => c.mcp.activity({ urlParams: { ...query, limit: 500 } }), [category, client, tokenId, since])
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== "")).toString()
  const [check, setCheck] = useState<{ readonly ok: boolean; readonly message: string } | "running">()
  const verify = () => {
    setCheck("running")
    call((c) => c.work.verifyChain()).then(setCheck, (e: Error) => setCheck({ ok: false, message: e.message }))
  }
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
        <a href={`/api/activity.csv?${params}`} download="dbdesk-activity.csv">Export CSV</a>
        <a href={`/api/activity.jsonl?${params}`} download="dbdesk-activity.jsonl">Export JSONL</a>
        <button onClick={verify} disabled={check === "running"} title="Checks the hash chain that links every row to the one before">Verify chain</button>
      </div>
      {check === "running" && <p className="progress" role="progressbar" aria-label="Verifying">Checking every row…</p>}
      {check !== undefined && check !== "running" && <p role="status" aria-label="Chain check" className={check.ok ? "ok" : "error"}>{check.ok ? "✔" : "✖"} {check.message}</p>}
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
