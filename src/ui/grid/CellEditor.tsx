import { useState } from "react"
import type { Cell } from "../../domain/UiSchemas.ts"
import { type CellKind, parseInput } from "./cellTypes.ts"

const PLACEHOLDER: Record<CellKind, string> = { number: "number", boolean: "true / false", date: "YYYY-MM-DD HH:MM:SS", json: "JSON", binary: "", text: "" }

/**
 * The in-cell editor (D-85): typed by the column (a number, true/false, JSON checked before it is kept), Enter or
 * Tab keeps the value, Escape cancels, the NULL button or Ctrl/Cmd+Shift+N sets NULL.
 */
export const CellEditor = ({ kind, value, initial, onDone }: {
  readonly kind: CellKind
  readonly value: Cell
  /** The character typed on the cell that opened the editor: it replaces the value. */
  readonly initial?: string
  readonly onDone: (result: { readonly value: Cell } | undefined, moveRight: boolean) => void
}) => {
  const [draft, setDraft] = useState(initial !== undefined ? initial : value === null ? "" : kind === "boolean" && typeof value === "number" ? String(value === 1) : String(value))
  const [error, setError] = useState<string>()
  const keep = (moveRight: boolean) => {
    const parsed = parseInput(draft, kind)
    if ("error" in parsed) return setError(parsed.error)
    onDone({ value: parsed.value }, moveRight)
  }
  return (
    <span className="cell-editor" onMouseDown={(event) => event.stopPropagation()} onDoubleClick={(event) => event.stopPropagation()}>
      <input
        autoFocus
        onFocus={(event) => { if (initial !== undefined) event.target.setSelectionRange(initial.length, initial.length) }}
        aria-label="Cell value"
        aria-invalid={error !== undefined}
        className={error === undefined ? "" : "invalid"}
        title={error}
        value={draft}
        placeholder={PLACEHOLDER[kind]}
        inputMode={kind === "number" ? "decimal" : undefined}
        onChange={(event) => { setDraft(event.target.value); setError(undefined) }}
        onKeyDown={(event) => {
          event.stopPropagation()
          if (event.key === "Escape") onDone(undefined, false)
          else if (event.key === "Enter") { event.preventDefault(); keep(false) }
          else if (event.key === "Tab") { event.preventDefault(); keep(true) }
          else if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === "n") { event.preventDefault(); onDone({ value: null }, false) }
        }}
        onBlur={() => {
          const parsed = parseInput(draft, kind)
          onDone("error" in parsed ? undefined : { value: parsed.value }, false)
        }}
      />
      <button type="button" className="null-button" title="Set NULL (Ctrl/Cmd+Shift+N)" onMouseDown={(event) => { event.preventDefault(); onDone({ value: null }, false) }}>NULL</button>
      {error !== undefined && <span role="alert" className="cell-error">{error}</span>}
    </span>
  )
}
