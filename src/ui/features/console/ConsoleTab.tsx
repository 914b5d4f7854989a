import { type KeyboardEvent, lazy, Suspense, useCallback, useEffect, useRef, useState } from "react"
import type { UiConnection, UiConsoleResult } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { Skeleton } from "../../shell/Skeleton.tsx"
import { PreviewBlock } from "../mcp/PreviewBlock.tsx"
import { announceSchemaChanged, loadConsoleText, saveConsoleText } from "./consoleStore.ts"
import { HistoryPanel } from "./HistoryPanel.tsx"
import { ResultTabs, type ResultTab } from "./ResultTabs.tsx"
import { SplitHandle } from "./SplitHandle.tsx"
import type { SqlEditorApi } from "./SqlEditor.tsx"
import { useSchemaNames } from "./useSchemaNames.ts"
import { consoleSchema } from "../browse/sidebar/catalogStore.ts"

const SqlEditor = lazy(() => import("./SqlEditor.tsx"))
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const
const MAX_TABS = 8
const CANCELLED = "Cancelled: the statement was stopped on the database."
/** The search console's body indented by two spaces (an empty body stays empty); throws on text that is not JSON. */
const formatJsonBody = (text: string): string => (text.trim() === "" ? text : JSON.stringify(JSON.parse(text), null, 2))
type Confirm = { readonly text: string; readonly reason: string; readonly preview?: Extract<UiConsoleResult, { _tag: "NeedsConfirmation" }>["preview"]; readonly rest: ReadonlyArray<string> }

/**
 * The console (D-60): the SQL editor (or method + path + body for search); Run the statement
 * under the cursor (tinted), the selection, or every statement; a write is checked by the database and dry-run
 * (rolled back) before the user confirms it; Cancel stops it on the database; one result tab per statement, named
 * after it. The editor's text is kept per connection and `tabId` by the server, across restarts of `serve`.
 */
export const ConsoleTab = ({ connection, table, initialText, tabId = "main", database }: {
  readonly connection: UiConnection
  /** The tab's own database (D-98), when not the connection's. */
  readonly database?: string | undefined
  readonly table?: string | undefined
  readonly initialText?: string
  readonly tabId?: string
}) => {
  const search = connection.type === "search"
  const dialect = connection.type === "search" ? undefined : connection.type
  const editor = useRef<SqlEditorApi>(undefined)
  const [head = "", ...rest] = (initialText ?? "").split("\n")
  const [method, setMethod] = useState<string>(initialText === undefined ? "GET" : head.split(" ")[0] ?? "GET")
  const [path, setPath] = useState(initialText === undefined ? (table === undefined ? "/collections" : `/collections/${encodeURIComponent(table)}/documents/search?q=*`) : head.split(" ").slice(1).join(" "))
  const [body, setBody] = useState(rest.join("\n"))
  const [text, setText] = useState<string>()
  const [saveError, setSaveError] = useState("")
  const [formatError, setFormatError] = useState("")
  const bodyField = useRef<HTMLTextAreaElement>(null)
  const [tabs, setTabs] = useState<ReadonlyArray<ResultTab>>([])
  const [active, setActive] = useState<number>()
  const [running, setRunning] = useState<{ readonly runId: string; readonly started: number }>()
  const [elapsed, setElapsed] = useState(0)
  const [confirm, setConfirm] = useState<Confirm>()
  const [tick, setTick] = useState(0)
  const [height, setHeight] = useState(200)
  const [sideOpen, setSideOpen] = useState(true)
  const schema = useSchemaNames(connection, !search, database)
  const stopped = useRef(false)

  useEffect(() => {
    if (search) return
    let live = true
    const fallback = initialText ?? (table === undefined ? "SELECT 1" : `SELECT * FROM ${table} LIMIT 100`)
    void loadConsoleText(connection.id, tabId).then((saved) => live && setText(initialText ?? saved ?? fallback))
    return () => { live = false }
    // the text is read once per console tab
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connection.id, tabId])

  useEffect(() => {
    if (running === undefined) return
    const timer = setInterval(() => setElapsed(performance.now() - running.started), 100)
    return () => clearInterval(timer)
  }, [running])

  const addTab = (tab: Omit<ResultTab, "id">) => {
    const id = Date.now() + Math.random()
    setTabs((list) => [{ ...tab, id }, ...list].slice(0, MAX_TABS))
    setActive(id)
  }

  /** Runs the statements one after another, each into its own tab; a write stops the queue to ask first. */
  const run = useCallback(async (queue: ReadonlyArray<string>, confirmed: boolean) => {
    const statements = queue.filter((statement) => statement.trim() !== "")
    if (statements.length === 0) return
    editor.current?.closePopups()
    setConfirm(undefined)
    stopped.current = false
    for (const [index, statement] of statements.entries()) {
      if (stopped.current) break
      const runId = crypto.randomUUID()
      setElapsed(0)
      setRunning({ runId, started: performance.now() })
      try {
        const result = await call((client) => client.browse.console({ path: { id: connection.id }, urlParams: database === undefined ? {} : { database }, payload: { text: statement, confirmed: confirmed && index === 0, runId, ...consoleSchema(connection.id) } }))
        if (result._tag === "NeedsConfirmation") {
          setConfirm({ text: statement, reason: result.reason, rest: statements.slice(index + 1), ...(result.preview === undefined ? {} : { preview: result.preview }) })
          break
        }
        addTab({ text: statement, result })
        if (result._tag === "Grid" && result.schemaChanged === true) announceSchemaChanged(connection.id)
      } catch (e) {
        const message = (e as Error).message
        addTab(message === CANCELLED ? { text: statement, cancelled: message } : { text: statement, error: message })
        break
      } finally {
        setRunning(undefined)
        setTick((n) => n + 1)
      }
    }
  }, [connection.id])

  const runCurrent = () => void run([search ? `${method} ${path}${body.trim() === "" ? "" : `\n${body}`}` : editor.current?.runText() ?? ""], false)
  const runSelection = () => { const selected = editor.current?.selection() ?? ""; if (selected !== "") void run([selected], false) }
  const runAll = () => void run(editor.current?.statements() ?? [], false)
  const cancel = () => {
    stopped.current = true
    if (running !== undefined) void call((client) => client.browse.cancelConsole({ path: { id: connection.id, runId: running.runId } }))
  }
  const changed = (next: string) => saveConsoleText(connection.id, tabId, next, setSaveError)
  /** Format (D-102): the SQL in the connection's dialect, or the search request's JSON body; one Undo step reverts it. */
  const format = () => {
    if (!search) {
      setFormatError(editor.current?.format() ?? "")
      editor.current?.focus()
      return
    }
    const field = bodyField.current
    if (field === null) return
    let formatted: string
    try {
      formatted = formatJsonBody(field.value)
    } catch (e) {
      setFormatError((e as Error).message)
      return
    }
    setFormatError("")
    if (formatted === field.value) return
    field.focus()
    field.select()
    // insertText keeps the textarea's own undo stack (Ctrl+Z reverts the format in one step); setBody alone would clear it
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    if (!document.execCommand("insertText", false, formatted)) setBody(formatted)
  }
  const onBodyKey = (event: KeyboardEvent) => {
    if (event.shiftKey && event.altKey && event.code === "KeyF") {
      event.preventDefault()
      format()
    }
  }

  return (
    <div className={search ? "" : `console${sideOpen ? "" : " side-closed"}`}>
      <div className="console-main">
        {search
          ? (
            <div>
              <div className="row">
                <select aria-label="Method" value={method} onChange={(e) => setMethod(e.target.value)}>{METHODS.map((m) => <option key={m}>{m}</option>)}</select>
                <input aria-label="Path" style={{ flex: 1 }} value={path} onChange={(e) => setPath(e.target.value)} />
              </div>
              <textarea ref={bodyField} onKeyDown={onBodyKey} aria-label="Body" rows={6} style={{ width: "100%", marginTop: 6 }} value={body} placeholder="Optional JSON body" onChange={(e) => setBody(e.target.value)} />
            </div>
          )
          : (
            <div className="editor-pane" style={{ height }}>
              {text === undefined ? <Skeleton rows={4} /> : (
                <Suspense fallback={<Skeleton rows={4} />}>
                  <SqlEditor
                    initial={text}
                    dialect={dialect ?? "sqlite"}
                    schema={schema}
                    onRun={runCurrent}
                    onRunAll={runAll}
                    onFormat={format}
                    onChange={changed}
                    onReady={(api) => (editor.current = api)}
                  />
                </Suspense>
              )}
            </div>
          )}
        {!search && <SplitHandle height={height} onHeight={setHeight} />}
        <div className="row toolbar">
          <button className="primary" onClick={runCurrent} disabled={running !== undefined} title="Runs the statement under the cursor, or the selection (Cmd/Ctrl+Enter)">Run</button>
          {!search && <button onClick={runSelection} disabled={running !== undefined} title="Runs only the selected text">Run selection</button>}
          {!search && <button onClick={runAll} disabled={running !== undefined} title="Runs every statement in order, each into its own result tab (Cmd/Ctrl+Shift+Enter)">Run all</button>}
          <button onClick={cancel} disabled={running === undefined} title="Stops the statement on the database">Cancel</button>
          <button onClick={format} title={search ? "Indents the JSON body (Shift+Alt+F)" : "Formats the selection, or all the text (Shift+Alt+F); Undo reverts it"}>Format</button>
          {running !== undefined && <span className="progress" role="timer" aria-label="Elapsed">Running… {(elapsed / 1000).toFixed(1)} s</span>}
          {!search && (
            <button className="side-toggle" aria-expanded={sideOpen} aria-controls="console-side" onClick={() => setSideOpen(!sideOpen)}>
              {sideOpen ? "Hide history" : "Show history"}
            </button>
          )}
        </div>
        {formatError !== "" && <div className="error" role="alert">Not formatted (nothing was changed): {formatError}</div>}
        {saveError !== "" && <div className="error" role="alert">The console text could not be kept: {saveError}</div>}
        {confirm !== undefined && (
          <div className="confirm card" role="alertdialog" aria-label="Confirm the statement">
            <p><strong>{confirm.reason}.</strong> Run it?</p>
            {confirm.preview !== undefined && <PreviewBlock preview={confirm.preview} />}
            <div className="row" style={{ marginTop: 6 }}>
              <button className="danger" onClick={() => void run([confirm.text, ...confirm.rest], true)}>Run it</button>
              <button autoFocus onClick={() => setConfirm(undefined)}>Don't run</button>
            </div>
          </div>
        )}
        <ResultTabs tabs={tabs} active={active} onActive={setActive} onClose={(id) => setTabs((list) => list.filter((t) => t.id !== id))} dialect={dialect} {...(search || database !== undefined ? {} : { exportFrom: connection.id })} />
      </div>
      {!search && sideOpen && <HistoryPanel connection={connection} tick={tick} currentText={() => editor.current?.text() ?? ""} onPick={(picked) => editor.current?.setText(picked)} />}
    </div>
  )
}
