import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react"
import type { Cell, UiColumn } from "../../../domain/UiSchemas.ts"
import { type CellKind, kindOfType, parseInput, viewerText } from "../../grid/cellTypes.ts"
import { documentChanges, documentText } from "./rowDocument.ts"

const JsonEditor = lazy(() => import("./JsonEditor.tsx"))

interface Draft {
  readonly text: string
  readonly isNull: boolean
  readonly problem?: string | undefined
}

const LONG_TEXT = 80
/** While the editor's code loads, its placeholder shows this much of the value: laying out megabytes of text is a freeze. */
const PREVIEW = 4_000
const preview = (text: string) => (text.length > PREVIEW ? `${text.slice(0, PREVIEW)}\n…` : text)
/** A JSON value this long is pretty-printed by its editor, in a task of its own, not in the panel's render. */
const LARGE_JSON = 256 * 1024
const jsonText = (value: Exclude<Cell, null>) => (String(value).length > LARGE_JSON ? String(value) : viewerText(value))
const textOf = (value: Cell, kind: CellKind) => (value === null ? "" : kind === "json" ? jsonText(value) : kind === "boolean" && typeof value === "number" ? String(value === 1) : String(value))

/**
 * The row-detail side panel (D-85, D-86): every column of one row, edited in place — a multi-line editor for long
 * text, CodeMirror's JSON mode (with its parse linter) for JSON columns, a search document as one JSON object — and
 * staged as the grid's own pending edits, so Save shows the same exact statements. Nothing is staged while a field is
 * invalid; each invalid field says why.
 */
export const RowDetail = ({ columns, row, rowNumber, label, search, takeFocus, onFocused, canEdit, onStage, onClose }: {
  readonly columns: ReadonlyArray<UiColumn>
  readonly row: ReadonlyArray<Cell>
  readonly rowNumber: number
  /** "new row", "marked for deletion", … */
  readonly label: string | undefined
  readonly search: boolean
  /** Opened by the user (Space, the button): its first field takes the focus; following the selection does not. */
  readonly takeFocus: boolean
  readonly onFocused: () => void
  readonly canEdit: (column: number) => boolean
  readonly onStage: (changes: ReadonlyArray<readonly [number, Cell]>) => void
  readonly onClose: () => void
}) => {
  const [drafts, setDrafts] = useState<Readonly<Record<number, Draft>>>({})
  const [errors, setErrors] = useState<Readonly<Record<number, string>>>({})
  const [message, setMessage] = useState<string>()
  const [version, setVersion] = useState(0)
  const [doc, setDoc] = useState<{ readonly text: string; readonly problem: string | undefined }>()
  const panel = useRef<HTMLElement>(null)
  const kinds = useMemo(() => columns.map((column) => kindOfType(column.type) ?? "text"), [columns])
  // pretty-printing a 1 MB JSON value takes tens of milliseconds: once per row, not on every render (D-100)
  const texts = useMemo(() => columns.map((_, i) => textOf(row[i] ?? null, kinds[i] ?? "text")), [columns, row, kinds])
  const documentShown = useMemo(() => (search ? documentText(columns, row) : ""), [search, columns, row])
  const anyEditable = columns.some((_, i) => canEdit(i))
  useEffect(() => {
    if (!takeFocus) return
    // the JSON editor is loaded on demand: wait a frame or two for it when it comes first
    const first = () => panel.current?.querySelector<HTMLElement>("input:not([disabled]):not([type=checkbox]), textarea:not([disabled]), .cm-content")
    const target = first()
    if (target !== null && target !== undefined) target.focus()
    else panel.current?.focus()
    onFocused()
    // on mount only
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  const set = (column: number, draft: Draft) => {
    setDrafts((current) => ({ ...current, [column]: draft }))
    setErrors(({ [column]: _, ...rest }) => rest)
    setMessage(undefined)
  }

  const stage = () => {
    if (search) {
      if (doc === undefined) return setMessage("Nothing changed.")
      if (doc.problem !== undefined) return setMessage(`Nothing staged. ${doc.problem}`)
      const result = documentChanges(doc.text, columns, row, canEdit)
      if ("error" in result) return setMessage(`Nothing staged. ${result.error}`)
      if (result.changes.length === 0) return setMessage("Nothing changed.")
      onStage(result.changes)
      setDoc(undefined)
      setVersion((v) => v + 1)
      return setMessage(`Staged ${result.changes.length} change${result.changes.length === 1 ? "" : "s"}: Save shows the request.`)
    }
    const changes: Array<readonly [number, Cell]> = []
    const found: Record<number, string> = {}
    for (const [key, draft] of Object.entries(drafts)) {
      const column = Number(key)
      const kind = kinds[column] ?? "text"
      if (draft.isNull) { changes.push([column, null]); continue }
      if (draft.problem !== undefined) { found[column] = draft.problem; continue }
      // surrounding whitespace means nothing in JSON (CodeMirror may leave a final line break)
      const parsed = parseInput(kind === "json" ? draft.text.trim() : draft.text, kind)
      if ("error" in parsed) found[column] = parsed.error
      else changes.push([column, parsed.value])
    }
    setErrors(found)
    const bad = Object.keys(found).map((i) => columns[Number(i)]?.name ?? "")
    if (bad.length > 0) return setMessage(`Nothing staged: ${bad.join(", ")} ${bad.length === 1 ? "is" : "are"} not valid.`)
    if (changes.length === 0) return setMessage("Nothing changed.")
    onStage(changes)
    setDrafts({})
    setVersion((v) => v + 1)
    setMessage(`Staged ${changes.length} change${changes.length === 1 ? "" : "s"}: Save shows the statements.`)
  }

  // the JSON editor keeps the callback it was created with: it calls the latest stage through this ref
  const stageRef = useRef(stage)
  stageRef.current = stage

  const field = (column: UiColumn, i: number) => {
    const kind = kinds[i] ?? "text"
    const value = row[i] ?? null
    const draft = drafts[i]
    const editable = canEdit(i)
    const text = draft?.text ?? texts[i] ?? ""
    const isNull = draft?.isNull ?? value === null
    const id = `detail-${version}-${i}`
    const problem = errors[i] ?? draft?.problem
    const input = kind === "json"
      ? (
        <Suspense fallback={<pre className="json">{preview(text)}</pre>}>
          <JsonEditor key={`${version}-${String(isNull)}`} initial={isNull ? "" : text} label={column.name} readOnly={!editable} onChange={(next, bad) => set(i, { text: next, isNull: false, problem: bad })} onSubmit={() => stageRef.current()} />
        </Suspense>
      )
      : text.length > LONG_TEXT || text.includes("\n")
      ? <textarea id={id} rows={Math.min(12, Math.max(3, text.split("\n").length))} value={isNull ? "" : text} placeholder={isNull ? "NULL" : ""} disabled={!editable} onChange={(e) => set(i, { text: e.target.value, isNull: false })} />
      : <input id={id} value={isNull ? "" : text} placeholder={isNull ? "NULL" : ""} disabled={!editable} onChange={(e) => set(i, { text: e.target.value, isNull: false })} />
    return (
      <div className={`detail-field${draft === undefined ? "" : " changed"}`} key={column.name} role="group" aria-label={column.name}>
        <div className="row">
          <label htmlFor={id} className="detail-name">{column.name}</label>
          <span className="note">{column.type}{column.isPrimaryKey ? " · key" : ""}{editable ? "" : " · read-only"}</span>
          {editable && <label className="note"><input type="checkbox" checked={isNull} onChange={(e) => set(i, { text: e.target.checked ? "" : text, isNull: e.target.checked })} /> NULL</label>}
        </div>
        {input}
        {problem !== undefined && <p className="cell-error-inline" role="alert">{problem}</p>}
      </div>
    )
  }

  return (
    <aside
      ref={panel}
      className="row-detail"
      tabIndex={-1}
      aria-label="Row detail"
      onKeyDown={(event) => {
        if (event.key === "Escape") { event.stopPropagation(); onClose() }
        if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && !event.defaultPrevented) { event.preventDefault(); stage() }
      }}
    >
      <div className="row detail-head">
        <strong>Row {rowNumber}</strong>
        {label !== undefined && <span className="note">{label}</span>}
        <span style={{ flex: 1 }} />
        <button onClick={onClose} title="Esc">Close</button>
      </div>
      <div className="detail-body">
        {search
          ? (
            <div className="detail-field" role="group" aria-label="Document">
              <Suspense fallback={<pre className="json">{preview(documentShown)}</pre>}>
                <JsonEditor key={version} initial={documentShown} label="Document" readOnly={!anyEditable} onChange={(text, problem) => { setDoc({ text, problem }); setMessage(undefined) }} onSubmit={() => stageRef.current()} />
              </Suspense>
              {doc?.problem !== undefined && <p className="cell-error-inline" role="alert">{doc.problem}</p>}
            </div>
          )
          : columns.map(field)}
      </div>
      {message !== undefined && <p className="note" role="status">{message}</p>}
      {anyEditable && (
        <div className="row">
          <button className="primary" onClick={stage} title="Ctrl/Cmd+Enter">Stage changes</button>
          <button onClick={() => { setDrafts({}); setErrors({}); setDoc(undefined); setMessage(undefined); setVersion((v) => v + 1) }}>Reset</button>
        </div>
      )}
    </aside>
  )
}
