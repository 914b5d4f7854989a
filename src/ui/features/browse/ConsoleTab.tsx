import { useState } from "react"
import type { UiConnection, UiConsoleResult } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { cellText } from "./DataTab.tsx"

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const

/** Console (product-decisions §9 point 3): SQL for SQL connections; method + path + body for search (doc 2 §4.3). */
export const ConsoleTab = ({ connection, table, initialText }: { readonly connection: UiConnection; readonly table: string | undefined; readonly initialText?: string }) => {
  const search = connection.type === "search"
  // issue 28 item 2: "Open in console" starts the console with a grid page's request
  const [head = "", ...rest] = (initialText ?? "").split("\n")
  const [sql, setSql] = useState(initialText ?? (table === undefined ? "SELECT 1" : `SELECT * FROM ${table} LIMIT 100`))
  const [method, setMethod] = useState<string>(initialText === undefined ? "GET" : head.split(" ")[0] ?? "GET")
  const [path, setPath] = useState(initialText === undefined ? (table === undefined ? "/collections" : `/collections/${encodeURIComponent(table)}/documents/search?q=*`) : head.split(" ").slice(1).join(" "))
  const [body, setBody] = useState(rest.join("\n"))
  const [result, setResult] = useState<UiConsoleResult>()
  const [error, setError] = useState<string>()
  const [running, setRunning] = useState(false)

  const text = search ? `${method} ${path}${body.trim() === "" ? "" : `\n${body}`}` : sql
  const run = (confirmed: boolean) => {
    setRunning(true)
    setError(undefined)
    call((client) => client.browse.console({ path: { id: connection.id }, payload: { text, confirmed } })).then(
      (r) => { setResult(r); setRunning(false) },
      (e: Error) => { setError(e.message); setResult(undefined); setRunning(false) }
    )
  }

  return (
    <div>
      {search
        ? (
          <div>
            <div className="row">
              <select aria-label="Method" value={method} onChange={(e) => setMethod(e.target.value)}>{METHODS.map((m) => <option key={m}>{m}</option>)}</select>
              <input aria-label="Path" style={{ flex: 1 }} value={path} onChange={(e) => setPath(e.target.value)} />
            </div>
            <textarea aria-label="Body" rows={6} style={{ width: "100%", marginTop: 6 }} value={body} placeholder="Optional JSON body" onChange={(e) => setBody(e.target.value)} />
          </div>
        )
        : <textarea aria-label="SQL" rows={6} style={{ width: "100%" }} value={sql} onChange={(e) => setSql(e.target.value)} onKeyDown={(e) => { if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) run(false) }} />}
      <div className="row">
        <button className="primary" onClick={() => run(false)} disabled={running}>Run</button>
        {running && <span className="progress">Running…</span>}
        {!search && <span className="note">Ctrl/⌘+Enter runs. Statements are kept in this connection's query history.</span>}
      </div>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {result?._tag === "NeedsConfirmation" && (
        <div className="card" role="alert" style={{ borderColor: result.tier === "destructive" ? "#c62828" : "#e0a000" }}>
          <strong>{result.tier === "destructive" ? "This deletes data." : "This changes data."}</strong> {result.reason}
          <div className="row" style={{ marginTop: 6 }}>
            <button onClick={() => setResult(undefined)} autoFocus>Cancel</button>
            <button className={result.tier === "destructive" ? "danger" : "primary"} onClick={() => run(true)}>Run it</button>
          </div>
        </div>
      )}
      {result?._tag === "Json" && <><p className="note">{result.timeMs} ms</p><pre className="json" aria-label="Response">{result.text}</pre></>}
      {result?._tag === "Grid" && (
        <>
          <p className="note" role="status">{result.rows.length} row{result.rows.length === 1 ? "" : "s"}{result.rowsAffected > 0 ? `, ${result.rowsAffected} affected` : ""} · {Math.round(result.timeMs)} ms{result.message === null ? "" : ` · ${result.message}`}</p>
          <div className="grid-wrap">
            <table className="grid" aria-label="Results">
              <thead><tr>{result.columns.map((c) => <th key={c}>{c}</th>)}</tr></thead>
              <tbody>{result.rows.map((row, r) => <tr key={r}>{row.map((cell, i) => <td key={i} className={cell === null ? "null" : undefined} title={cellText(cell)}>{cellText(cell)}</td>)}</tr>)}</tbody>
            </table>
          </div>
        </>
      )}
    </div>
  )
}
