import { useEffect, useRef, useState } from "react"
import type { UiExportStatus } from "../../../domain/UiExport.ts"
import type { UiBrowseRequest } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { Dialog } from "../../shell/Dialog.tsx"

/** What an Export exports: a table with the grid's filters and order, or a console result's statement (D-92). */
export type ExportTarget =
  | { readonly kind: "table"; readonly table: string; readonly grid: UiBrowseRequest }
  | { readonly kind: "query"; readonly query: string; readonly schema?: string }

const FORMATS = [
  { value: "csv", label: "CSV" },
  { value: "jsonl", label: "JSON Lines" },
  { value: "json", label: "JSON" },
  { value: "sql", label: "SQL INSERTs" }
] as const
type Format = (typeof FORMATS)[number]["value"]

const size = (bytes: number) =>
  bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

const POLL_MS = 250

/** The Export dialog: a format, then a running export's rows and bytes with Cancel, then the file's path. */
export const ExportDialog = ({ connectionId, target, onClose }: { readonly connectionId: string; readonly target: ExportTarget; readonly onClose: () => void }) => {
  const [format, setFormat] = useState<Format>("csv")
  const [status, setStatus] = useState<UiExportStatus>()
  const [error, setError] = useState<string>()
  const [folder, setFolder] = useState<string>()
  const [copied, setCopied] = useState(false)
  const runId = useRef<string>(undefined)
  const running = status?.state === "running"

  useEffect(() => {
    call((client) => client.exports.exportFolder()).then(
      (answer) => setFolder(answer.resolved ?? `${answer.setting} (does not exist: choose another folder in Settings)`),
      () => undefined
    )
  }, [])

  useEffect(() => {
    if (!running || runId.current === undefined) return
    const id = runId.current
    const timer = setInterval(() => {
      call((client) => client.exports.exportStatus({ path: { runId: id } })).then(setStatus, (e: Error) => setError(e.message))
    }, POLL_MS)
    return () => clearInterval(timer)
  }, [running])

  const start = () => {
    setError(undefined)
    setCopied(false)
    const id = crypto.randomUUID()
    runId.current = id
    const source = target.kind === "table" ? { table: target.table, grid: target.grid } : { query: target.query, ...(target.schema === undefined ? {} : { schema: target.schema }) }
    call((client) => client.exports.startExport({ path: { id: connectionId }, payload: { runId: id, format, ...source } })).then(setStatus, (e: Error) => setError(e.message))
  }
  const cancel = () => {
    if (runId.current !== undefined) void call((client) => client.exports.cancelExport({ path: { runId: runId.current! } }))
  }
  const close = () => {
    if (running) cancel()
    onClose()
  }
  const copy = () => {
    if (status?.path === undefined) return
    navigator.clipboard.writeText(status.path).then(() => setCopied(true), () => setError("The clipboard could not be written; select the path and copy it."))
  }

  return (
    <Dialog title={target.kind === "table" ? `Export ${target.table}` : "Export the result"} onClose={close}>
      <p className="note">{target.kind === "table" ? "Every row that matches the grid's filters, in its order." : "Every row of the statement, read again from the database."}</p>
      <fieldset disabled={running} className="row" aria-label="Format">
        {FORMATS.map((item, i) => (
          <label key={item.value}>
            <input type="radio" name="export-format" value={item.value} checked={format === item.value} onChange={() => setFormat(item.value)} {...(i === 0 ? { "data-autofocus": true } : {})} /> {item.label}
          </label>
        ))}
      </fieldset>
      {folder !== undefined && <p className="note">Into the folder {folder}</p>}
      {status !== undefined && (
        <div role="status" aria-label="Export progress">
          {running && <progress aria-label="Exporting" />}
          <p className="note">{status.rows.toLocaleString()} rows, {size(status.bytes)}{status.state === "running" ? " so far" : ""}</p>
          {status.state === "done" && status.path !== undefined && (
            <p>Saved to <code aria-label="Exported file">{status.path}</code> <button onClick={copy}>{copied ? "Copied" : "Copy path"}</button></p>
          )}
          {status.state === "cancelled" && <p className="note">{status.message}</p>}
          {status.state === "failed" && <p className="error" role="alert">{status.message}</p>}
        </div>
      )}
      {error !== undefined && <p className="error" role="alert">{error}</p>}
      <div className="row" style={{ marginTop: 8 }}>
        {running
          ? <button className="danger" onClick={cancel}>Cancel export</button>
          : <button className="primary" onClick={start}>{status === undefined ? "Export" : "Export again"}</button>}
        <button onClick={close}>Close</button>
      </div>
    </Dialog>
  )
}

/** The Export button that opens the dialog (Data toolbar, console result). */
export const ExportButton = ({ connectionId, target }: { readonly connectionId: string; readonly target: ExportTarget }) => {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button onClick={() => setOpen(true)} title="Save every row to a file">Export…</button>
      {open && <ExportDialog connectionId={connectionId} target={target} onClose={() => setOpen(false)} />}
    </>
  )
}
