import { useState } from "react"
import type { UiActivityRow } from "../../../domain/UiWorkSchemas.ts"
import { call, useLoad } from "../../api.ts"
import { Dialog } from "../../shell/Dialog.tsx"

const CATEGORIES = ["", "auth", "token", "server", "tool", "resource", "approval"]

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text)

/** One row whole: every field, the statement as a block, and why a call failed. */
const ActivityDetail = ({ entry, onClose }: { readonly entry: UiActivityRow; readonly onClose: () => void }) => {
  const fields: ReadonlyArray<readonly [string, string | number | null | undefined]> = [
    ["Time", new Date(entry.at).toLocaleString()],
    ["What", `${entry.category} · ${entry.action}`],
    ["Outcome", entry.outcome],
    ["Connection", entry.connectionName ?? entry.connectionId],
    ["Token", entry.tokenName],
    ["Client", [entry.clientName, entry.clientVersion].filter((part) => part !== null).join(" ")],
    ["From", entry.address],
    ["Subject", entry.subject],
    ["Duration", entry.durationMs === null ? null : `${Math.round(entry.durationMs).toLocaleString()} ms`],
    ["Details", entry.details],
    ["Statement digest", entry.digest],
    ["Row", `#${entry.seq}`]
  ]
  return (
    <Dialog title={`Activity #${entry.seq}`} onClose={onClose} wide>
      {entry.statement !== undefined && <pre className="block" aria-label="Statement">{entry.statement}</pre>}
      {entry.statement === undefined && entry.digest !== null && <p className="note">The statement is kept as its digest only (the query history no longer holds its text).</p>}
      <table className="list" aria-label="Activity detail"><tbody>
        {fields.filter(([, value]) => value !== null && value !== undefined && value !== "").map(([name, value]) => <tr key={name}><th>{name}</th><td className={name === "Statement digest" ? "mono" : ""}>{value}</td></tr>)}
      </tbody></table>
      <div className="row" style={{ justifyContent: "flex-end" }}><button onClick={onClose}>Close</button></div>
    </Dialog>
  )
}

/** Activity log (D-51): filters by time, category, token and client, CSV and JSONL export, and the hash-chain check. */
export const ActivityPanel = () => {
  const [open, setOpen] = useState<UiActivityRow>()
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
        <thead><tr><th>Time</th><th>Action</th><th>Outcome</th><th>Client</th><th>Connection</th><th>Statement</th><th>ms</th><th></th></tr></thead>
        <tbody>{(entries.data ?? []).map((e) => (
          <tr key={e.seq}>
            <td>{new Date(e.at).toLocaleString()}</td><td>{e.action}</td><td>{e.outcome ?? ""}</td>
            <td>{e.clientName ?? ""}{e.tokenName === null ? "" : ` (${e.tokenName})`}</td>
            <td>{e.connectionName ?? e.connectionId ?? ""}</td>
            <td className="mono" title={e.statement ?? e.subject ?? ""}>{e.statement === undefined ? e.subject ?? "" : clip(e.statement, 80)}</td>
            <td>{e.durationMs ?? ""}</td>
            <td><button onClick={() => setOpen(e)} aria-label={`Details of activity #${e.seq}`}>Details</button></td>
          </tr>
        ))}</tbody>
      </table>
      {open !== undefined && <ActivityDetail entry={open} onClose={() => setOpen(undefined)} />}
      {entries.data?.length === 0 && <p className="muted">Nothing matches these filters.</p>}
    </section>
  )
}
