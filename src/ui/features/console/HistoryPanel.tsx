import { useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call, useLoad } from "../../api.ts"
import { SaveQueryDialog } from "./SaveQueryDialog.tsx"

/**
 * The console's side panel: the query history of this connection (searchable; from history.db, UI and MCP
 * statements alike) and saved queries. Choosing one puts its text in the editor.
 */
export const HistoryPanel = ({ connection, tick, currentText, onPick }: {
  readonly connection: UiConnection
  readonly tick: number
  readonly currentText: () => string
  readonly onPick: (text: string) => void
}) => {
  const [term, setTerm] = useState("")
  const [name, setName] = useState("")
  const [error, setError] = useState<string>()
  const history = useLoad((client) => client.browse.history({ path: { id: connection.id }, urlParams: { limit: 200, ...(term === "" ? {} : { search: term }) } }), [connection.id, term, tick])
  const saved = useLoad((client) => client.work.savedQueries(), [])
  // The Save dialog (name, and "Expose to AI clients"), opened with the editor's text as it is now.
  const [saving, setSaving] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const save = () => {
    setError(undefined)
    setNotice(undefined)
    setSaving(currentText())
  }
  const remove = (id: string) => call((client) => client.work.deleteQuery({ path: { id } })).then(saved.reload, (e: Error) => setError(e.message))
  const mine = (saved.data ?? []).filter((query) => query.connectionId === null || query.connectionId === connection.id)
  return (
    <aside id="console-side" className="console-side" aria-label="History and saved queries">
      <h3>Saved queries</h3>
      <div className="row">
        <input aria-label="Query name" placeholder="Name" value={name} onChange={(e) => setName(e.target.value)} />
        <button onClick={save}>Save query</button>
      </div>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {notice !== undefined && <div className="muted" role="status" aria-label="Saved">{notice}</div>}
      {saving !== undefined && (
        <SaveQueryDialog connection={connection} text={saving} initialName={name} onClose={() => setSaving(undefined)}
          onSaved={(message) => { setSaving(undefined); setName(""); setNotice(message); saved.reload() }} />
      )}
      <ul className="side-list" aria-label="Saved queries">
        {mine.map((query) => (
          <li key={query.id}>
            <button className="link" onClick={() => onPick(query.text)} title={query.text}>{query.name}</button>
            <button aria-label={`Delete ${query.name}`} onClick={() => void remove(query.id)}>✕</button>
          </li>
        ))}
        {saved.data !== undefined && mine.length === 0 && <li className="muted">None yet.</li>}
      </ul>
      <h3>History</h3>
      <input aria-label="Search history" placeholder="Search history" value={term} onChange={(e) => setTerm(e.target.value)} style={{ width: "100%" }} />
      {history.error !== undefined && <div className="error">{history.error}</div>}
      <ul className="side-list" aria-label="History">
        {(history.data ?? []).map((entry) => (
          <li key={entry.id}>
            <button className="link mono" onClick={() => onPick(entry.text)} title={`${new Date(entry.executedAt).toLocaleString()} · ${entry.outcome} · ${entry.source} · ${Math.round(entry.durationMs)} ms`}>
              <span className={`badge ${entry.outcome === "success" ? "" : "warn"}`}>{entry.outcome}</span> {entry.text.length > 90 ? `${entry.text.slice(0, 90)}…` : entry.text}
            </button>
          </li>
        ))}
        {history.data?.length === 0 && <li className="muted">{term === "" ? "Nothing run on this connection yet." : "No statement matches."}</li>}
      </ul>
    </aside>
  )
}
