import { useEffect, useState } from "react"
import type { Settings } from "../../../domain/Settings.ts"
import { call, useLoad } from "../../api.ts"
import { AppearancePanel, PluginsPanel } from "./PluginsPanel.tsx"

export const StatusPanel = () => {
  const status = useLoad((client) => client.server.status(), [])
  if (status.error !== undefined) return <div className="error">{status.error}</div>
  const s = status.data
  if (s === undefined) return <p className="progress">Loading…</p>
  return (
    <table className="list" aria-label="Server status">
      <tbody>
        <tr><th>MCP endpoint</th><td><code>{s.endpoint}</code> {s.mcpEnabled ? <span className="badge">on</span> : <span className="badge warn">off: every request is answered 503</span>}</td></tr>
        <tr><th>Handshake file</th><td><code>{s.handshakePath}</code></td></tr>
        <tr><th>Protocol versions</th><td>{[...s.modernVersions, ...s.legacyVersions.map((v) => `${v} (legacy)`)].join(", ")}</td></tr>
        <tr><th>Authentication</th><td>{s.requireAuth ? "bearer token required" : "off: loopback requests without a token run as anonymous (read only)"}</td></tr>
        <tr><th>UI</th><td><code>{s.uiUrl}</code></td></tr>
        <tr><th>Version</th><td>{s.name} {s.version}</td></tr>
      </tbody>
    </table>
  )
}

export const ClientsPanel = () => {
  const clients = useLoad((client) => client.mcp.clients(), [])
  const [error, setError] = useState<string>()
  const disconnect = (id: string, token: string | null) => {
    if (!window.confirm(`Disconnect revokes the token ${token ?? ""}: every client using it loses access. Continue?`)) return
    call((client) => client.mcp.disconnect({ path: { id } })).then(clients.reload, (e: Error) => setError(e.message))
  }
  return (
    <section>
      <div className="row"><h2>Connected clients</h2><button onClick={clients.reload}>Refresh</button></div>
      <p className="note">Clients seen in the last 5 minutes.</p>
      {(clients.error ?? error) !== undefined && <div className="error">{clients.error ?? error}</div>}
      <table className="list" aria-label="Connected clients">
        <thead><tr><th>Client</th><th>Token</th><th>Address</th><th>First seen</th><th>Last seen</th><th></th></tr></thead>
        <tbody>{(clients.data ?? []).map((c) => (
          <tr key={c.id}>
            <td>{c.clientTitle ?? c.clientName} {c.clientVersion}</td><td>{c.tokenName ?? "anonymous"}</td><td>{c.address}</td>
            <td>{new Date(c.firstSeenAt).toLocaleTimeString()}</td><td>{new Date(c.lastSeenAt).toLocaleTimeString()}</td>
            <td>{c.tokenId !== null && <button onClick={() => disconnect(c.id, c.tokenName)}>Disconnect</button>}</td>
          </tr>
        ))}</tbody>
      </table>
      {clients.data?.length === 0 && <p className="muted">No client has called in the last 5 minutes.</p>}
    </section>
  )
}

/** The limits as people read them: a label with its unit, and what it limits. */
const LIMITS: Partial<Record<keyof Settings["limits"], { readonly label: string; readonly help: string }>> = {
  defaultRows: { label: "Rows an AI client gets by default", help: "when it does not ask for a number of rows" },
  maxRows: { label: "Most rows an AI client may ask for", help: "rows in one answer, at most" },
  queryTimeoutSeconds: { label: "Statement time limit (seconds)", help: "a longer statement is stopped, in the console too" },
  requestsPerMinute: { label: "Requests per minute, per client", help: "more are refused until the minute is over" },
  concurrentPerCaller: { label: "Requests at once, per client", help: "more wait their turn" },
  continuationIdleSeconds: { label: "Unread rest of an answer kept (idle seconds)", help: "how long a cut answer's next page waits to be fetched" },
  continuationMaxSeconds: { label: "Unread rest of an answer kept (seconds in all)", help: "the longest a cut answer stays open, however often it is read" }
}

export const SettingsPanel = () => {
  const loaded = useLoad((client) => client.server.settings(), [])
  const [draft, setDraft] = useState<Settings>()
  const [message, setMessage] = useState<string>()
  useEffect(() => { if (loaded.data !== undefined) setDraft(loaded.data) }, [loaded.data])
  if (loaded.error !== undefined) return <div className="error">{loaded.error}</div>
  if (draft === undefined) return <p className="progress">Loading…</p>
  const num = (group: "limits", key: keyof Settings["limits"]) => (
    <label className="field" title={LIMITS[key]?.help}>{LIMITS[key]?.label ?? key}<input aria-label={LIMITS[key]?.label ?? key} type="number" value={draft[group][key]} onChange={(e) => setDraft({ ...draft, [group]: { ...draft[group], [key]: Number(e.target.value) } })} /><span className="note">{LIMITS[key]?.help}</span></label>
  )
  const save = () => {
    setMessage("Saving…")
    // only what the user changed is written, so start-up overrides (such as --port) are not saved by accident
    const before = loaded.data!
    const changed = <G extends "mcp" | "limits" | "ui" | "exports">(group: G) =>
      Object.fromEntries(Object.entries(draft[group]).filter(([key, value]) => key !== "allowedOrigins" && key !== "idleTimeoutSeconds" && (before[group] as Record<string, unknown>)[key] !== value))
    call((client) => client.server.updateSettings({
      payload: { mcp: changed("mcp"), limits: changed("limits"), ui: changed("ui"), exports: changed("exports") }
    })).then(() => setMessage("Saved. Ports change at the next start; everything else applies now."), (e: Error) => setMessage(e.message))
  }
  const flag = (key: "enabled" | "requireAuth" | "logQueries", label: string) => (
    <label className="row"><input type="checkbox" checked={draft.mcp[key]} onChange={(e) => setDraft({ ...draft, mcp: { ...draft.mcp, [key]: e.target.checked } })} />{label}</label>
  )
  return (
    <>
    <section className="card" aria-label="Settings">
      {flag("enabled", "MCP server enabled")}
      {flag("requireAuth", "Require a bearer token")}
      {flag("logQueries", "Keep MCP statements in the query history")}
      <label className="field">Connection approval
        <select value={draft.mcp.connectionApproval} onChange={(e) => setDraft({ ...draft, mcp: { ...draft.mcp, connectionApproval: e.target.value as Settings["mcp"]["connectionApproval"] } })}>
          <option value="everyTime">Ask every time</option><option value="oncePerConnection">Ask once per connection</option><option value="alwaysApprove">Never ask</option>
        </select>
      </label>
      <div className="form-grid">
        {num("limits", "defaultRows")}{num("limits", "maxRows")}{num("limits", "queryTimeoutSeconds")}{num("limits", "requestsPerMinute")}{num("limits", "concurrentPerCaller")}{num("limits", "continuationIdleSeconds")}{num("limits", "continuationMaxSeconds")}
        <label className="field">MCP port (next start)<input type="number" value={draft.mcp.port} onChange={(e) => setDraft({ ...draft, mcp: { ...draft.mcp, port: Number(e.target.value) } })} /></label>
        <label className="field">UI port (next start)<input type="number" value={draft.ui.port} onChange={(e) => setDraft({ ...draft, ui: { port: Number(e.target.value) } })} /></label>
        <label className="field">Export folder<input aria-label="Export folder" value={draft.exports.directory} placeholder="Downloads (or the home folder)" onChange={(e) => setDraft({ ...draft, exports: { directory: e.target.value } })} /><span className="note">where Export and AI clients' exports save files; a full path, empty for Downloads</span></label>
      </div>
      <button className="primary" onClick={save}>Save settings</button>
      {message !== undefined && <p className="note" role="status">{message}</p>}
    </section>
    <PluginsPanel />
    <AppearancePanel />
    </>
  )
}
