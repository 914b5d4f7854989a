import { useCallback, useEffect, useMemo, useState } from "react"
import { isCutCell } from "../../../domain/SqlCell.ts"
import type { Cell, UiBrowseRequest, UiConnection, UiPage } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { DataGrid, type GridColumn } from "../../grid/DataGrid.tsx"
import { Skeleton } from "../../shell/Skeleton.tsx"
import { emptyFilter, FilterBar, type FilterState } from "./FilterBar.tsx"
import { OpenInConsole } from "./OpenInConsole.tsx"
import { searchRequests, usePendingEdits } from "./pendingEdits.ts"
import { SaveDialog } from "./SaveDialog.tsx"

const PAGE = 1000
type Sort = ReadonlyArray<{ readonly column: string; readonly direction: "asc" | "desc" }>

export const cellText = (cell: Cell | undefined): string => (cell === null || cell === undefined ? "NULL" : String(cell))

/** The Data tab's toolbar: small parts so later features (such as "Open in console") add a button, not a rewrite. */
const Toolbar = ({ children }: { readonly children: React.ReactNode }) => <div className="row toolbar" role="toolbar" aria-label="Data">{children}</div>

/**
 * Data tab (product-decisions §9 point 2, issue 27): 1,000-row pages in the data grid, header-click sort, the filter
 * bar, and editing with pending changes saved through a dialog of the exact statements: SQL tables with a primary key
 * in one transaction, search documents one request each.
 */
export const DataTab = ({ connection, table, onOpenInConsole }: {
  readonly connection: UiConnection
  readonly table: string
  /** Issue 28 item 2: opens the console with the request of the page shown. */
  readonly onOpenInConsole?: (text: string) => void
}) => {
  const search = connection.type === "search"
  const dialect = connection.type === "search" ? undefined : connection.type
  const [filter, setFilter] = useState<FilterState>(emptyFilter)
  const [applied, setApplied] = useState<FilterState>(emptyFilter)
  const [sort, setSort] = useState<Sort>([])
  const [offset, setOffset] = useState(0)
  const [page, setPage] = useState<UiPage>()
  const [error, setError] = useState<string>()
  const [loading, setLoading] = useState(false)
  const [tick, setTick] = useState(0)
  const [saved, setSaved] = useState<string>()
  const [selection, setSelection] = useState<ReadonlyArray<number>>([])
  const [review, setReview] = useState<ReadonlyArray<string>>()
  const pending = usePendingEdits(page)
  const { discard } = pending

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
      (result) => { if (live) { setPage(result); setLoading(false); discard() } },
      (e: Error) => { if (live) { setError(e.message); setLoading(false) } }
    )
    return () => { live = false }
  }, [connection.id, table, applied, sort, offset, tick, discard])

  const columns = page?.columns ?? []
  const gridColumns = useMemo((): ReadonlyArray<GridColumn> =>
    columns.map((c) => ({ name: c.name, type: c.type, sortable: c.sortable, sortNote: c.sortNote, readOnly: c.isReadOnly })), [columns])

  const clickHeader = (column: GridColumn) => {
    const current = sort.find((s) => s.column === column.name)
    setSort(current === undefined ? [{ column: column.name, direction: "asc" }] : current.direction === "asc" ? [{ column: column.name, direction: "desc" }] : [])
    setOffset(0)
  }

  const startSave = useCallback(() => {
    if (pending.count === 0) return
    setSaved(undefined)
    if (search) return setReview(searchRequests(table, pending.searchEdits()))
    call((client) => client.browse.sqlPreview({ path: { id: connection.id, table }, payload: pending.sqlEdits() })).then(
      (preview) => setReview(preview.statements),
      (e: Error) => setSaved(e.message)
    )
  }, [pending, search, table, connection.id])

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
        event.preventDefault()
        startSave()
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [startSave])

  const apply = async () => {
    if (search) {
      const result = await call((client) => client.browse.save({ path: { id: connection.id, table }, payload: pending.searchEdits() }))
      // a failure names its document id ("new row <id>" for an insert); the request that carries that id is the one
      const failedOn = (statement: string) =>
        result.failures.find((f) => {
          const id = f.row.replace(/^new row ?/, "")
          return id === "" ? statement.startsWith("POST ") : statement.includes(`/${encodeURIComponent(id)}`) || statement.includes(JSON.stringify({ id }).slice(1, -1))
        })?.message ?? null
      return { ok: result.failures.length === 0, results: (review ?? []).map((statement) => ({ statement, rowsAffected: null, error: failedOn(statement) })) }
    }
    const result = await call((client) => client.browse.sqlApply({ path: { id: connection.id, table }, payload: { edits: pending.sqlEdits(), statements: review ?? [] } }))
    return { ok: result.committed, results: result.results }
  }

  const canEdit = (row: number, column: number) => {
    if (page?.editable !== true) return false
    // a new row takes every value (a document's id too); existing rows keep their read-only columns
    if (row < pending.insertCount) return true
    if (columns[column]?.isReadOnly !== false) return false
    return !pending.deleted.has(row - pending.insertCount) && !isCutCell(page.rows[row - pending.insertCount]?.[column] ?? null)
  }

  return (
    <div>
      <FilterBar columns={columns} search={search} value={filter} onChange={setFilter} onApply={() => { setApplied(filter); setOffset(0) }} />
      <Toolbar>
        <button disabled={offset === 0 || loading} onClick={() => setOffset(Math.max(0, offset - PAGE))}>◀ Previous</button>
        <span aria-label="Page status">{page === undefined ? "" : `Rows ${page.rows.length === 0 ? 0 : offset + 1}–${offset + page.rows.length}${page.total === null ? "" : ` of ${page.total.toLocaleString()}`}`}</span>
        <button disabled={loading || page === undefined || page.rows.length < PAGE} onClick={() => setOffset(offset + PAGE)}>Next ▶</button>
        <button onClick={() => setTick((n) => n + 1)} disabled={loading} title="Read the page again">Refresh</button>
        {onOpenInConsole !== undefined && <OpenInConsole connectionId={connection.id} table={table} request={request} onOpen={onOpenInConsole} />}
        {loading && <span className="progress" role="progressbar" aria-label="Loading rows">Loading rows…</span>}
        {page?.editable === true && <>
          <button onClick={pending.addRow}>Add row</button>
          <button disabled={selection.length === 0} onClick={() => pending.duplicate(selection)}>Duplicate</button>
          <button disabled={selection.length === 0} onClick={() => pending.toggleDelete(selection)} title="Marks the selected rows; they are deleted at Save">Delete rows</button>
          <button className="primary" disabled={pending.count === 0} onClick={startSave} title="Ctrl/Cmd+S">Save{pending.count > 0 ? ` (${pending.count})` : ""}</button>
          <button disabled={pending.count === 0} onClick={pending.discard}>Discard</button>
        </>}
        {page?.editable === false && <span className="note">Read-only: {page.readOnlyReason ?? "this grid cannot be edited."}</span>}
      </Toolbar>
      {saved !== undefined && <p className="note" role="status">{saved}</p>}
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {page !== undefined && page.notes.map((note) => <p className="note" key={note}>{note}</p>)}
      {page === undefined && loading ? <Skeleton rows={12} /> : (
        <DataGrid
          label="Rows"
          columns={gridColumns}
          rows={pending.rows}
          sort={sort}
          onHeaderClick={clickHeader}
          rowState={pending.rowState}
          cellChanged={pending.cellChanged}
          canEdit={canEdit}
          onEdit={pending.edit}
          onSelectRows={setSelection}
          {...(dialect === undefined ? {} : { sql: { dialect, table } })}
        />
      )}
      {review !== undefined && (
        <SaveDialog
          statements={review}
          transactional={!search}
          onApply={apply}
          onClose={(done) => {
            setReview(undefined)
            if (done) { setSaved(`Saved ${review.length} change${review.length === 1 ? "" : "s"}.`); setTick((n) => n + 1) }
          }}
        />
      )}
    </div>
  )
}
