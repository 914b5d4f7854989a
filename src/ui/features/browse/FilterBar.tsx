import type { UiColumn, UiFilterRow } from "../../../domain/UiSchemas.ts"

export interface FilterState {
  readonly rows: ReadonlyArray<UiFilterRow & { readonly enabled: boolean }>
  readonly logic: "and" | "or"
  readonly raw: string
}

export const emptyFilter: FilterState = { rows: [], logic: "and", raw: "" }

const SQL_OPERATORS = ["=", "!=", ">", ">=", "<", "<=", "between", "in", "not_in", "contains", "not_contains", "starts_with", "is_null", "is_not_null"]
/** Doc 2 §4.2 point 4: no equivalent in the engine; shown disabled with the reason. */
const SEARCH_REFUSED = ["is_null", "is_not_null", "is_empty", "is_not_empty", "matches_regex", "ends_with"]
const label = (op: string) => op.replaceAll("_", " ")
const noValue = (op: string) => op === "is_null" || op === "is_not_null"

/** The filter bar (product-decisions §9 point 2): column/operator/value rows, All/Any, Raw filter, case control. */
export const FilterBar = ({ columns, search, value, onChange, onApply }: {
  readonly columns: ReadonlyArray<UiColumn>
  readonly search: boolean
  readonly value: FilterState
  readonly onChange: (next: FilterState) => void
  readonly onApply: () => void
}) => {
  const operators = search ? [...SQL_OPERATORS.filter((op) => !SEARCH_REFUSED.includes(op)), ...SEARCH_REFUSED] : SQL_OPERATORS
  const setRow = (index: number, patch: Partial<FilterState["rows"][number]>) =>
    onChange({ ...value, rows: value.rows.map((row, i) => (i === index ? { ...row, ...patch } : row)) })
  return (
    <form className="card" aria-label="Filter" onSubmit={(e) => { e.preventDefault(); onApply() }} style={{ padding: 8 }}>
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
        {(value.rows.length > 0 || value.raw !== "") && <button type="button" onClick={() => { onChange(emptyFilter) }}>Clear</button>}
      </div>
    </form>
  )
}
