import { useEffect, useRef } from "react"
import type { Cell, UiColumn, UiFilterRow } from "../../../domain/UiSchemas.ts"

export interface FilterState {
  readonly rows: ReadonlyArray<UiFilterRow & { readonly enabled: boolean }>
  readonly logic: "and" | "or"
  /** Search collections: a raw filter_by; SQL tables: a WHERE condition the server checks (D-85). */
  readonly raw: string
  /** SQL tables: text searched for in every column (absent in states kept before the search box existed). */
  readonly search?: string
}

export const emptyFilter: FilterState = { rows: [], logic: "and", raw: "", search: "" }

/**
 * "Filter by this value" (the grid's cell menu): the state with one enabled row, column = value (IS NULL for a null),
 * replacing an earlier row on the same column so a second choice does not narrow to nothing by accident.
 */
export const withValueFilter = (state: FilterState, column: string, value: Cell): FilterState => ({
  ...state,
  rows: [
    ...state.rows.filter((row) => row.column !== column),
    value === null ? { column, operator: "is_null", enabled: true } : { column, operator: "=", value: String(value), enabled: true }
  ]
})

/**
 * A tab's view with "filter by this value" applied at once: the one path from the cell menu into the filter bar's
 * state, built on the applied filter (what the grid shows), edited and applied filter alike, back to the first page.
 */
export const viewFilteredBy = <V extends { readonly filter: FilterState; readonly applied: FilterState; readonly offset: number }>(
  view: V,
  column: string,
  value: Cell
): V => {
  const next = withValueFilter(view.applied, column, value)
  return { ...view, filter: next, applied: next, offset: 0 }
}

const SQL_OPERATORS = [
  "=", "!=", ">", ">=", "<", "<=", "between", "in", "not_in", "contains", "not_contains", "starts_with", "ends_with", "like", "ilike", "is_null",
  "is_not_null"
]
/** Doc 2 §4.2 point 4: no equivalent in the engine; shown disabled with the reason. */
const SEARCH_REFUSED = ["is_null", "is_not_null", "is_empty", "is_not_empty", "matches_regex", "ends_with"]
const LABELS: Record<string, string> = { like: "LIKE (% and _ are wildcards)", ilike: "ILIKE (LIKE ignoring case)" }
const label = (op: string) => LABELS[op] ?? op.replaceAll("_", " ")
const noValue = (op: string) => op === "is_null" || op === "is_not_null"

/**
 * The filter bar (D-85): a search box (SQL tables: every column; search collections: `q` over the text fields, D-101);
 * for SQL tables a WHERE condition; column/operator/value rows, All/Any; for search collections a Raw filter and the
 * case control. Ctrl/Cmd+F focuses the search box (the tab shown only).
 */
export const FilterBar = ({ columns, search, value, onChange, onApply, active = true }: {
  readonly columns: ReadonlyArray<UiColumn>
  readonly search: boolean
  readonly value: FilterState
  readonly onChange: (next: FilterState) => void
  readonly onApply: () => void
  readonly active?: boolean
}) => {
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (!active) return
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "f") {
        event.preventDefault()
        first.current?.focus()
        first.current?.select()
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [active])
  const operators = search ? [...SQL_OPERATORS.filter((op) => !SEARCH_REFUSED.includes(op) && op !== "like" && op !== "ilike"), ...SEARCH_REFUSED] : SQL_OPERATORS
  const setRow = (index: number, patch: Partial<FilterState["rows"][number]>) =>
    onChange({ ...value, rows: value.rows.map((row, i) => (i === index ? { ...row, ...patch } : row)) })
  return (
    <form className="card" aria-label="Filter" onSubmit={(e) => { e.preventDefault(); onApply() }} style={{ padding: 8 }}>
      <div className="row" style={{ marginBottom: 4 }}>
        <span className="muted" aria-hidden="true">Search</span>
        <input
          ref={first}
          type="search"
          aria-label={search ? "Search the text fields" : "Search all columns"}
          style={{ flex: 1, minWidth: 200 }}
          value={value.search ?? ""}
          placeholder={search ? "Search the text fields (Ctrl/Cmd+F) — every word must match" : "Search every column (Ctrl/Cmd+F) — binary columns are skipped"}
          onChange={(e) => onChange({ ...value, search: e.target.value })}
        />
        {!search && <>
          <span className="muted" aria-hidden="true" style={{ fontFamily: "var(--mono, monospace)" }}>WHERE</span>
          <input
            aria-label="WHERE condition"
            style={{ flex: 2, minWidth: 260, fontFamily: "var(--mono, monospace)" }}
            value={value.raw}
            placeholder="WHERE condition, e.g. price > 10 AND name LIKE 'A%'"
            title="Read-only SQL condition; checked like a console statement before it runs"
            onChange={(e) => onChange({ ...value, raw: e.target.value })}
          />
        </>}
      </div>
      {value.rows.map((row, index) => (
        <div className="row" key={index} style={{ marginBottom: 4 }}>
          <input type="checkbox" aria-label="Use this filter" checked={row.enabled} onChange={(e) => setRow(index, { enabled: e.target.checked })} />
          <select aria-label="Filter column" value={row.column} onChange={(e) => setRow(index, { column: e.target.value })}>
            {columns.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>
          <select aria-label="Filter operator" value={row.operator} onChange={(e) => setRow(index, { operator: e.target.value })}>
            {operators.map((op) => (
              <option key={op} value={op} disabled={search && SEARCH_REFUSED.includes(op)} title={search && SEARCH_REFUSED.includes(op) ? "Typesense has no equivalent; use contains or a raw filter" : ""}>{label(op)}</option>
            ))}
          </select>
          {!noValue(row.operator) && <input aria-label="Filter value" value={row.value ?? ""} placeholder={row.operator.endsWith("in") ? "a, b, c" : "value"} onChange={(e) => setRow(index, { value: e.target.value })} />}
          {row.operator === "between" && <input aria-label="Second value" value={row.secondValue ?? ""} onChange={(e) => setRow(index, { secondValue: e.target.value })} />}
          <button type="button" aria-label="Remove filter" onClick={() => onChange({ ...value, rows: value.rows.filter((_, i) => i !== index) })}>✕</button>
        </div>
      ))}
      <div className="row">
        <button type="button" onClick={() => onChange({ ...value, rows: [...value.rows, { column: columns[0]?.name ?? "", operator: "=", value: "", enabled: true }] })}>Add filter</button>
        <label className="row">Match
          <select aria-label="Match" value={value.logic} onChange={(e) => onChange({ ...value, logic: e.target.value as "and" | "or" })}>
            <option value="and">All</option><option value="or">Any</option>
          </select>
        </label>
        {search && (
          <input aria-label="Raw filter" style={{ flex: 1, minWidth: 220 }} value={value.raw} placeholder="Raw filter_by, e.g. price:>10 && in_stock:true" onChange={(e) => onChange({ ...value, raw: e.target.value })} />
        )}
        {search && (
          <label className="row muted" title="Typesense always ignores case; case-sensitive matching is not supported.">
            <input type="checkbox" disabled aria-label="Case sensitive" /> Case sensitive (not supported by Typesense)
          </label>
        )}
        <button type="submit" className="primary">Apply</button>
        {(value.rows.length > 0 || value.raw !== "" || (value.search ?? "") !== "") && <button type="button" onClick={() => { onChange(emptyFilter) }}>Clear</button>}
      </div>
    </form>
  )
}
