import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react"
import type { UiConnection, UiConsoleResult } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { Skeleton } from "../../shell/Skeleton.tsx"
import { HistoryPanel } from "./HistoryPanel.tsx"
import { ResultView } from "./ResultView.tsx"
import type { SqlEditorApi } from "./SqlEditor.tsx"
import { useSchemaNames } from "./useSchemaNames.ts"

const SqlEditor = lazy(() => import("./SqlEditor.tsx"))
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const
const MAX_TABS = 8

interface ResultTab {
  readonly id: number
  readonly text: string
  readonly result?: UiConsoleResult
  readonly error?: string
}

/**
 * Console (product-decisions §9 point 3, issue 27): the SQL editor (or method + path + body for search), Run for the
 * selection or the statement under the cursor, Cancel that stops it on the database (the MCP cancellation path),
 * an elapsed timer, one result tab per run, the history and saved queries.
 */
export const ConsoleTab = ({ connection, table, initialText }: { readonly connection: UiConnection; readonly table: string | undefined; readonly initialText?: string }) => {
  const search = connection.type === "search"
  const dialect = connection.type === "search" ? undefined : connection.type
  const editor = useRef<SqlEditorApi>(undefined)
  // Issue 28 item 2: "Open in console" starts the console with a grid page's request.
  const [head = "", ...rest] = (initialText ?? "").split("\n")
  const [method, setMethod] = useState<string>(initialText === undefined ? "GET" : head.split(" ")[0] ?? "GET")
  const [path, setPath] = useState(initialText === undefined ? (table === undefined ? "/collections" : `/collections/${encodeURIComponent(table)}/documents/search?q=*`) : head.split(" ").slice(1).join(" "))
  const [body, setBody] = useState(rest.join("\n"))
  const [tabs, setTabs] = useState<ReadonlyArray<ResultTab>>([])
  const [active, setActive] = useState<number>()
  const [running, setRunning] = useState<{ readonly runId: string; readonly started: number }>()
  const [elapsed, setElapsed] = useState(0)
  const [confirm, setConfirm] = useState<{ readonly text: string; readonly reason: string }>()
  const [tick, setTick] = useState(0)
  const schema = useSchemaNames(connection, !search)

  useEffect(() => {
    if (running === undefined) return
    const timer = setInterval(() => setElapsed(performance.now() - running.started), 100)
    return () => clearInterval(timer)
  }, [running])

  const addTab = (tab: Omit<ResultTab, "id">) => {
    const id = Date.now()
    setTabs((list) => [{ ...tab, id }, ...list].slice(0, MAX_TABS))
    setActive(id)
  }

  const run = useCallback((text: string, confirmed: boolean) => {
    if (text.trim() === "") return
    const runId = crypto.randomUUID()
    setConfirm(undefined)
    setElapsed(0)
    setRunning({ runId, started: performance.now() })
    call((client) => client.browse.console({ path: { id: connection.id }, payload: { text, confirmed, runId } })).then(
      (result) => (result._tag === "NeedsConfirmation" ? setConfirm({ text, reason: result.reason }) : addTab({ text, result })),
      (e: Error) => addTab({ text, error: e.message })
    ).finally(() => { setRunning(undefined); setTick((n) => n + 1) })
  }, [connection.id])

  const runText = () => (search ? `${method} ${path}${body.trim() === "" ? "" : `\n${body}`}` : editor.current?.runText() ?? "")
  const cancel = () => {
    if (running !== undefined) void call((client) => client.browse.cancelConsole({ path: { id: connection.id, runId: running.runId } }))
  }
  const current = tabs.find((tab) => tab.id === active) ?? tabs[0]

  return (
    <div className={search ? "" : "console"}>
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
          : (
            <Suspense fallback={<Skeleton rows={4} />}>
              <SqlEditor
                initial={initialText ?? (table === undefined ? "SELECT 1" : `SELECT * FROM ${table} LIMIT 100`)}
                dialect={dialect ?? "sqlite"}
                schema={schema}
                onRun={() => run(runText(), false)}
                onReady={(api) => (editor.current = api)}
              />
            </Suspense>
          )}
        <div className="row toolbar">
          <button className="primary" onClick={() => run(runText(), false)} disabled={running !== undefined} title="Cmd/Ctrl+Enter">Run</button>
          <button onClick={cancel} disabled={running === undefined} title="Stops the statement on the database">Cancel</button>
          {running !== undefined && <span className="progress" role="timer" aria-label="Elapsed">Running… {(elapsed / 1000).toFixed(1)} s</span>}
        </div>
        {confirm !== undefined && (
          <div className="error" role="alert">
            {confirm.reason} This changes data, so confirm first.
            <div className="row" style={{ marginTop: 6 }}>
              <button className="danger" onClick={() => run(confirm.text, true)}>Run anyway</button>
              <button onClick={() => setConfirm(undefined)}>Cancel</button>
            </div>
          </div>
        )}
        {tabs.length > 0 && (
          <div className="tabs result-tabs" role="tablist" aria-label="Results">
            {tabs.map((tab, index) => (
              <span key={tab.id} className="result-tab">
                <button role="tab" aria-selected={tab.id === current?.id} onClick={() => setActive(tab.id)} title={tab.text}>
                  {tab.error === undefined ? `Result ${tabs.length - index}` : `Error ${tabs.length - index}`}
                </button>
                <button aria-label={`Close result ${tabs.length - index}`} onClick={() => setTabs(tabs.filter((t) => t.id !== tab.id))}>✕</button>
              </span>
            ))}
          </div>
        )}
        {current?.error !== undefined && <div className="error" role="alert">{current.error}</div>}
        {current?.result !== undefined && <ResultView key={current.id} result={current.result} dialect={dialect} />}
      </div>
      {!search && <HistoryPanel connection={connection} tick={tick} currentText={() => editor.current?.text() ?? ""} onPick={(text) => editor.current?.setText(text)} />}
    </div>
  )
}
