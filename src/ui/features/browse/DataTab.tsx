import { useEffect, useState } from "react"
import type { Cell, UiBrowseRequest, UiConnection, UiPage } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { emptyFilter, FilterBar, type FilterState } from "./FilterBar.tsx"
import { OpenInConsole } from "./OpenInConsole.tsx"

const PAGE = 1000
type Sort = ReadonlyArray<{ readonly column: string; readonly direction: "asc" | "desc" }>
type Draft = Record<string, string>

export const cellText = (cell: Cell | undefined): string => (cell === null || cell === undefined ? "NULL" : String(cell))

/** Data tab: 1,000-row pages, header-click sort, the filter bar, and for search documents inline edit/insert/delete with Save. */
export const DataTab = ({ connection, table, onOpenInConsole }: {
  readonly connection: UiConnection
  readonly table: string
  /** Issue 28 item 2: opens the console with the request of the page shown. */
  readonly onOpenInConsole?: (text: string) => void
}) => {
  const search = connection.type === "search"
  const [filter, setFilter] = useState<FilterState>(emptyFilter)
  const [applied, setApplied] = useState<FilterState>(emptyFilter)
  const [sort, setSort] = useState<Sort>([])
  const [offset, setOffset] = useState(0)
  const [page, setPage] = useState<UiPage>()
  const [error, setError] = useState<string>()
  const [loading, setLoading] = useState(false)
  const [tick, setTick] = useState(0)
  const [edits, setEdits] = useState<Record<number, Draft>>({})
  const [deleted, setDeleted] = useState<ReadonlySet<number>>(new Set())
  const [inserts, setInserts] = useState<ReadonlyArray<Draft>>([])
  const [editing, setEditing] = useState<string>()
  const [saved, setSaved] = useState<string>()

  const request: UiBrowseRequest = {
    filters: applied.rows.filter((row) => row.enabled).map(({ enabled: _, ...row }) => row),
    logic: applied.logic,
    ...(applied.raw.trim() === "" ? {} : { raw: applied.raw }),
    caseSensitive: false,
    sort,
    offset,
    limit: PAGE
  }

  useEffect(() => {
    let live = true
    setLoading(true)
    setError(undefined)
    call((client) => client.browse.rows({ path: { id: connection.id, table }, payload: request })).then(
      (result) => { if (live) { setPage(result); setLoading(false); setEdits({}); setDeleted(new Set()); setInserts([]) } },
      (e: Error) => { if (live) { setError(e.message); setLoading(false) } }
    )
    return () => { live = false }
  }, [connection.id, table, applied, sort, offset, tick])

  const columns = page?.columns ?? []
  const idIndex = columns.findIndex((c) => c.isPrimaryKey)
  const pending = Object.keys(edits).length + deleted.size + inserts.length

  const clickHeader = (name: string, sortable: boolean) => {
    if (!sortable) return
    const current = sort.find((s) => s.column === name)
    setSort(current === undefined ? [{ column: name, direction: "asc" }] : current.direction === "asc" ? [{ column: name, direction: "desc" }] : [])
    setOffset(0)
  }

  const save = () => {
    if (page === undefined) return
    const mapOf = (row: ReadonlyArray<Cell>) => Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null]))
    const idOf = (index: number) => cellText(page.rows[index]?.[idIndex])
    setSaved("Saving…")
    call((client) => client.browse.save({
      path: { id: connection.id, table },
      payload: {
        inserts: inserts.map((draft) => Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== ""))),
        updates: Object.entries(edits).filter(([i]) => !deleted.has(Number(i))).map(([i, changes]) => ({ id: idOf(Number(i)), original: mapOf(page.rows[Number(i)] ?? []), changes })),
        deletes: [...deleted].map(idOf)
      }
    })).then(
      (result) => {
        setSaved(result.failures.length === 0 ? `Saved ${result.applied} change${result.applied === 1 ? "" : "s"}.` : `Saved ${result.applied}; ${result.failures.length} failed: ${result.failures.map((f) => `${f.row}: ${f.message}`).join("; ")}`)
        setTick((n) => n + 1)
      },
      (e: Error) => setSaved(e.message)
    )
  }

  const editCell = (key: string, value: string, text: string, onChange: (v: string) => void) =>
    editing === key
      ? <input autoFocus aria-label="Cell value" defaultValue={value} onKeyDown={(e) => { if (e.key === "Escape") setEditing(undefined) }} onBlur={(e) => { if (e.target.value !== text) onChange(e.target.value); setEditing(undefined) }} />
      : value

  return (
    <div>
      <FilterBar columns={columns} search={search} value={filter} onChange={setFilter} onApply={() => { setApplied(filter); setOffset(0) }} />
      <div className="row" style={{ marginBottom: 6 }}>
        <button disabled={offset === 0 || loading} onClick={() => setOffset(Math.max(0, offset - PAGE))}>◀ Previous</button>
        <span aria-label="Page status">{page === undefined ? "" : `Rows ${page.rows.length === 0 ? 0 : offset + 1}–${offset + page.rows.length}${page.total === null ? "" : ` of ${page.total.toLocaleString()}`}`}</span>
        <button disabled={loading || page === undefined || page.rows.length < PAGE} onClick={() => setOffset(offset + PAGE)}>Next ▶</button>
        <button onClick={() => setTick((n) => n + 1)} disabled={loading}>Refresh</button>
        {onOpenInConsole !== undefined && <OpenInConsole connectionId={connection.id} table={table} request={request} onOpen={onOpenInConsole} />}
        {loading && <span className="progress">Loading rows…</span>}
        {page?.editable === true && <>
          <button onClick={() => setInserts([...inserts, {}])}>Insert row</button>
          <button className="primary" disabled={pending === 0} onClick={save}>Save{pending > 0 ? ` (${pending})` : ""}</button>
          <button disabled={pending === 0} onClick={() => { setEdits({}); setDeleted(new Set()); setInserts([]) }}>Discard</button>
        </>}
        {page?.editable === false && <span className="note">Read-only grid: change SQL rows with a statement in the Console tab.</span>}
      </div>
      {saved !== undefined && <p className="note" role="status">{saved}</p>}
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {page !== undefined && page.notes.map((note) => <p className="note" key={note}>{note}</p>)}
      <div className="grid-wrap">
        <table className="grid" aria-label="Rows">
          <thead><tr>
            {page?.editable === true && <th></th>}
            {columns.map((c) => {
              const s = sort.find((x) => x.column === c.name)
              return (
                <th key={c.name} className={c.sortable ? "sortable" : "unsortable"} title={c.sortable ? `${c.type} — click to sort` : c.sortNote ?? "Not sortable"} onClick={() => clickHeader(c.name, c.sortable)} aria-sort={s === undefined ? "none" : s.direction === "asc" ? "ascending" : "descending"}>
                  {c.name}{s === undefined ? "" : s.direction === "asc" ? " ▲" : " ▼"}
                </th>
              )
            })}
          </tr></thead>
          <tbody>
            {inserts.map((draft, n) => (
              <tr key={`new-${n}`} className="inserted">
                <td><button aria-label="Remove new row" onClick={() => setInserts(inserts.filter((_, i) => i !== n))}>✕</button></td>
                {columns.map((c) => <td key={c.name}><input aria-label={`New ${c.name}`} value={draft[c.name] ?? ""} placeholder={c.name === "id" ? "(assigned)" : c.type} onChange={(e) => setInserts(inserts.map((d, i) => (i === n ? { ...d, [c.name]: e.target.value } : d)))} /></td>)}
              </tr>
            ))}
            {(page?.rows ?? []).map((row, r) => (
              <tr key={r} className={deleted.has(r) ? "deleted" : edits[r] !== undefined ? "changed" : undefined}>
                {page?.editable === true && <td><button aria-label="Delete row" title="Delete this row at Save" onClick={() => setDeleted((d) => { const next = new Set(d); if (!next.delete(r)) next.add(r); return next })}>Delete</button></td>}
                {row.map((cell, i) => {
                  const column = columns[i]
                  const text = cellText(cell)
                  const draft = column === undefined ? undefined : edits[r]?.[column.name]
                  const canEdit = page?.editable === true && column !== undefined && !column.isReadOnly
                  return (
                    <td key={i} className={cell === null && draft === undefined ? "null" : undefined} title={text}
                      onDoubleClick={() => canEdit && setEditing(`${r}:${i}`)}>
                      {canEdit ? editCell(`${r}:${i}`, draft ?? text, text, (v) => setEdits((e) => ({ ...e, [r]: { ...e[r], [column.name]: v } }))) : text}
                    </td>
                  )
                })}
              </tr>
            ))}
          </tbody>
        </table>
        {page !== undefined && page.rows.length === 0 && <p className="muted" style={{ padding: 8 }}>No rows match.</p>}
      </div>
    </div>
  )
}
