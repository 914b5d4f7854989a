import { useEffect, useMemo, useState } from "react"
import { isCutCell } from "../../../domain/SqlCell.ts"
import type { Cell, UiBrowseRequest, UiConnection, UiPage } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { DataGrid, type GridColumn } from "../../grid/DataGrid.tsx"
import { Skeleton } from "../../shell/Skeleton.tsx"
import { useLeaveGuard } from "../../workspace/LeaveGuard.tsx"
import { useSessionState } from "../../workspace/sessionState.ts"
import { emptyFilter, FilterBar, type FilterState, viewFilteredBy } from "./FilterBar.tsx"
import { ExportButton } from "../export/ExportDialog.tsx"
import { OpenInConsole } from "./OpenInConsole.tsx"
import { usePendingEdits } from "./pendingEdits.ts"
import { PageControls } from "./PageControls.tsx"
import { useForeignKeyLinks } from "./foreignKeyLinks.ts"
import { RowDetail } from "./RowDetail.tsx"
import { SaveDialog } from "./SaveDialog.tsx"
import { useSaveFlow } from "./useSaveFlow.ts"

/** From this many rows (the sidebar's count), the total is counted when asked, not on every filter. */
const LARGE = 1_000_000
type Sort = ReadonlyArray<{ readonly column: string; readonly direction: "asc" | "desc" }>

export const cellText = (cell: Cell | undefined): string => (cell === null || cell === undefined ? "NULL" : String(cell))

/** The Data tab's toolbar: small parts so later features (such as "Open in console") add a button, not a rewrite. */
const Toolbar = ({ children }: { readonly children: React.ReactNode }) => <div className="row toolbar" role="toolbar" aria-label="Data">{children}</div>

/**
 * Data tab (D-60, D-86): 1,000-row pages in the data grid, header-click sort, the filter
 * bar, and editing with pending changes saved through a dialog of the exact statements: SQL tables with a primary key
 * in one transaction, search documents one request each. The filters, sort, page and pending edits are kept for the
 * session (a reload restores them), and a page, sort or filter change with pending edits asks first.
 */
export const DataTab = ({ connection, table, database, onOpenInConsole, active = true, rowCount = null }: {
  readonly connection: UiConnection
  readonly table: string
  /** The tab's own database (D-98), when not the connection's. */
  readonly database?: string | undefined
  /** D-87: opens the console with the request of the page shown. */
  readonly onOpenInConsole?: (text: string) => void
  /** Whether this tab is the one on screen (Ctrl/Cmd+S saves the shown grid only). */
  readonly active?: boolean
  /** The sidebar's row count: a large table counts its rows on demand only. */
  readonly rowCount?: number | null
}) => {
  const search = connection.type === "search"
  const dialect = connection.type === "search" ? undefined : connection.type
  const storage = `grid:${connection.id}:${database === undefined ? "" : `${encodeURIComponent(database)}@`}${table}`
  const [view, setView] = useSessionState(`${storage}:view`, {
    filter: emptyFilter,
    applied: emptyFilter,
    sort: [] as Sort,
    offset: 0,
    pageSize: 1000,
    countAlways: rowCount === null || rowCount < LARGE
  })
  const { filter, applied, sort, offset, pageSize } = view
  const setFilter = (next: FilterState) => setView((v) => ({ ...v, filter: next }))
  const [page, setPage] = useState<UiPage>()
  const [total, setTotal] = useState<{ readonly key: string; readonly value: number | null }>()
  const [error, setError] = useState<string>()
  const [loading, setLoading] = useState(false)
  const [tick, setTick] = useState(0)
  const [selection, setSelection] = useState<ReadonlyArray<number>>([])
  const [detail, setDetail] = useState<{ readonly focus: boolean }>()
  const [focusRequest, setFocusRequest] = useState<{ readonly r: number; readonly c: number; readonly n: number }>()
  const pending = usePendingEdits(page, storage)
  const guard = useLeaveGuard()

  const searchText = applied.search ?? ""
  const request: UiBrowseRequest = {
    filters: applied.rows.filter((row) => row.enabled).map(({ enabled: _, ...row }) => row),
    logic: applied.logic,
    ...(applied.raw.trim() === "" ? {} : { raw: applied.raw }),
    ...(searchText.trim() === "" ? {} : { search: searchText }),
    caseSensitive: false,
    sort,
    offset,
    limit: pageSize
  }
  // the total depends on the filters (and a re-read or save): paging and sorting reuse it; a large table counts when asked
  const countKey = JSON.stringify([request.filters, request.logic, request.raw ?? "", request.search ?? "", tick])
  const knownTotal = total?.key === countKey ? total.value : undefined
  const [countNow, setCountNow] = useState(0)

  useEffect(() => {
    let live = true
    setLoading(true)
    setError(undefined)
    const count = knownTotal === undefined && (view.countAlways || countNow > 0)
    call((client) => client.browse.rows({ path: { id: connection.id, table }, urlParams: database === undefined ? {} : { database }, payload: { ...request, count } })).then(
      (result) => {
        if (!live) return
        setPage(result)
        setLoading(false)
        if (count) setTotal({ key: countKey, value: result.total })
      },
      (e: Error) => { if (live) { setError(e.message); setLoading(false) } }
    )
    return () => { live = false }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connection.id, table, applied, sort, offset, pageSize, tick, countNow])

  /** A change of page, sort, filters or a re-read drops pending edits: ask first when there are some. */
  const leaving = (then: () => void) => {
    if (pending.count === 0) return then()
    void guard.confirmLeave(`${connection.id}/table:${table}`, () => undefined).then((ok) => { if (ok) then() })
  }
  const setOffset = (next: number) => leaving(() => setView((v) => ({ ...v, offset: Math.max(0, next) })))

  const columns = page?.columns ?? []
  const links = useForeignKeyLinks({ connection, table, database, columns, rows: pending.rows, storageKey: `${storage}:view`, setView })
  const gridColumns = useMemo((): ReadonlyArray<GridColumn> =>
    columns.map((c) => ({ name: c.name, type: c.type, sortable: c.sortable, sortNote: c.sortNote, readOnly: c.isReadOnly })), [columns])

  const clickHeader = (column: GridColumn) => {
    const current = sort.find((s) => s.column === column.name)
    const next: Sort = current === undefined ? [{ column: column.name, direction: "asc" }] : current.direction === "asc" ? [{ column: column.name, direction: "desc" }] : []
    leaving(() => setView((v) => ({ ...v, sort: next, offset: 0 })))
  }

  const { startSave, apply, review, setReview, saved, setSaved } = useSaveFlow({ connectionId: connection.id, table, database, search, active, pending })

  const canEdit = (row: number, column: number) => {
    if (page?.editable !== true) return false
    // a new row takes every value (a document's id too); existing rows keep their read-only columns
    if (row < pending.insertCount) return true
    if (columns[column]?.isReadOnly !== false) return false
    return !pending.deleted.has(row - pending.insertCount) && !isCutCell(page.rows[row - pending.insertCount]?.[column] ?? null)
  }

  const detailRow = selection[0]
  const editable = page?.editable === true
  const duplicate = (rows: ReadonlyArray<number>) => { pending.duplicate(rows); setFocusRequest((f) => ({ r: 0, c: 0, n: (f?.n ?? 0) + 1 })) }
  const stateLabel = (row: number) => ({ inserted: "new row", changed: "changed", deleted: "marked for deletion" } as const)[pending.rowState(row) ?? "changed"]

  return (
    <div className="data-tab">
      <FilterBar active={active} columns={columns} search={search} value={filter} onChange={setFilter} onApply={() => leaving(() => setView((v) => ({ ...v, applied: v.filter, offset: 0 })))} />
      <Toolbar>
        <button onClick={() => leaving(() => setTick((n) => n + 1))} disabled={loading} title="Read the page again">Refresh</button>
        {onOpenInConsole !== undefined && <OpenInConsole connectionId={connection.id} table={table} database={database} request={request} onOpen={onOpenInConsole} />}
        {connection.type !== "search" && database === undefined && <ExportButton connectionId={connection.id} target={{ kind: "table", table, grid: request }} />}
        {loading && <span className="progress" role="progressbar" aria-label="Loading rows">Loading rows…</span>}
        {page?.editable === true && <>
          <button onClick={() => { pending.addRow(); setFocusRequest((f) => ({ r: 0, c: 0, n: (f?.n ?? 0) + 1 })) }}>Add row</button>
          <button disabled={selection.length === 0} onClick={() => duplicate(selection)} title="Ctrl/Cmd+D">Duplicate</button>
          <button disabled={selection.length === 0} onClick={() => pending.toggleDelete(selection)} title="Marks the selected rows; they are deleted at Save">Delete rows</button>
          <button className="primary" disabled={pending.count === 0} onClick={startSave} title="Ctrl/Cmd+S">Save{pending.count > 0 ? ` (${pending.count})` : ""}</button>
          <button disabled={pending.count === 0} onClick={pending.discard}>Discard</button>
        </>}
        {page !== undefined && <button disabled={detailRow === undefined} aria-pressed={detail !== undefined} onClick={() => setDetail((d) => (d === undefined ? { focus: true } : undefined))} title="Space">Row detail</button>}
        {page?.editable === false && <span className="note">Read-only: {page.readOnlyReason ?? "this grid cannot be edited."}</span>}
      </Toolbar>
      {saved !== undefined && pending.count === 0 && <p className="note" role="status">{saved}</p>}
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {page !== undefined && page.notes.map((note) => <p className="note" key={note}>{note}</p>)}
      {page === undefined && loading ? <Skeleton rows={12} /> : (
        <div className="grid-with-detail">
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
          scrollKey={`${offset}|${pageSize}|${JSON.stringify(sort)}|${JSON.stringify(applied)}|${tick}`}
          topRows={pending.insertCount}
          {...(focusRequest === undefined ? {} : { focusRequest })}
          {...(dialect === undefined ? {} : { sql: { dialect, table } })}
          onOpenRow={() => setDetail({ focus: true })}
          onFilterValue={(column, value) => {
            const name = columns[column]?.name
            if (name !== undefined) leaving(() => setView((v) => viewFilteredBy(v, name, value)))
          }}
          {...(editable ? { onDeleteRows: pending.toggleDelete, onDuplicateRows: duplicate, onPasteRows: pending.stageMany } : {})}
          {...links}
        />
        {detail !== undefined && detailRow !== undefined && pending.rows[detailRow] !== undefined && (
          <RowDetail
            key={detailRow}
            columns={columns}
            row={pending.rows[detailRow] ?? []}
            rowNumber={detailRow < pending.insertCount ? detailRow + 1 : offset + detailRow - pending.insertCount + 1}
            label={pending.rowState(detailRow) === undefined ? undefined : stateLabel(detailRow)}
            search={search}
            takeFocus={detail.focus}
            onFocused={() => setDetail({ focus: false })}
            canEdit={(column) => canEdit(detailRow, column)}
            onStage={(changes) => { for (const [column, value] of changes) pending.edit(detailRow, column, value) }}
            onClose={() => { setDetail(undefined); setFocusRequest((f) => ({ r: detailRow, c: 0, n: (f?.n ?? 0) + 1 })) }}
          />
        )}
        </div>
      )}
      <div className="row pager" role="group" aria-label="Pages">
        <PageControls
          offset={offset}
          pageSize={pageSize}
          shown={page?.rows.length}
          total={knownTotal ?? null}
          loading={loading}
          onOffset={setOffset}
          onPageSize={(size) => leaving(() => setView((v) => ({ ...v, pageSize: size, offset: 0 })))}
          onCount={knownTotal === undefined && !view.countAlways ? () => setCountNow((n) => n + 1) : undefined}
        />
        {page?.order !== undefined && <span className="note order-note">{page.order}</span>}
      </div>
      {review !== undefined && (
        <SaveDialog
          statements={review}
          transactional={!search}
          onApply={apply}
          onClose={(done) => {
            setReview(undefined)
            if (done) { setSaved(`Saved ${review.length} change${review.length === 1 ? "" : "s"}.`); pending.discard(); setTick((n) => n + 1) }
          }}
        />
      )}
    </div>
  )
}
