import type { CellKind, GridColumn } from "./cellTypes.ts"

/** What the header needs of a TanStack header: its column id, the resize handler and the size reset. */
interface ResizableHeader {
  readonly column: { readonly id: string; readonly resetSize: () => void }
  readonly getResizeHandler: () => (event: unknown) => void
}

const COLUMN_DRAG = "text/x-dbdesk-column"

/**
 * One column header of the data grid (D-85): name, type hint, sort arrow, click to sort (or the reason it does
 * not), drag onto another header to reorder, drag its right edge to resize (double-click the edge resets the width).
 */
export const HeaderCell = ({ header, column, colindex, kind, left, width, sort, onClick, onMove }: {
  readonly header: ResizableHeader
  readonly column: GridColumn
  readonly colindex: number
  readonly kind: CellKind
  readonly left: number
  readonly width: number
  readonly sort: { readonly direction: "asc" | "desc" } | undefined
  readonly onClick: ((column: GridColumn) => void) | undefined
  readonly onMove: (movedColumnId: string) => void
}) => (
  <div
    role="columnheader"
    aria-colindex={colindex}
    aria-sort={sort === undefined ? "none" : sort.direction === "asc" ? "ascending" : "descending"}
    className={`grid-th ${onClick === undefined ? "" : column.sortable === false ? "unsortable" : "sortable"} kind-${kind}`}
    style={{ left, width }}
    title={`${column.name}${column.type === "" ? "" : ` — ${column.type}`}${column.sortable === false ? ` — ${column.sortNote ?? "not sortable"}` : onClick === undefined ? "" : " — click to sort"}`}
    draggable
    onDragStart={(event) => event.dataTransfer.setData(COLUMN_DRAG, header.column.id)}
    onDragOver={(event) => event.preventDefault()}
    onDrop={(event) => {
      const moved = event.dataTransfer.getData(COLUMN_DRAG)
      if (moved !== "" && moved !== header.column.id) onMove(moved)
    }}
    onClick={() => column.sortable !== false && onClick?.(column)}
  >
    <span className="th-name">{column.name}{sort === undefined ? "" : sort.direction === "asc" ? " ▲" : " ▼"}</span>
    {column.type !== "" && <span className="th-type">{column.type}</span>}
    <span
      className="resizer"
      aria-hidden="true"
      onMouseDown={(event) => {
        // no column drag (reorder) while resizing
        event.preventDefault()
        event.stopPropagation()
        header.getResizeHandler()(event)
      }}
      onClick={(event) => event.stopPropagation()}
      onDoubleClick={() => header.column.resetSize()}
    />
  </div>
)

/** The header of the grid's `index`-th shown column (`order` maps shown columns to `columns`); dropping one moves it. */
export const HeaderAt = ({ index, headers, order, columns, kinds, starts, sizes, sort, onClick, setOrder }: {
  readonly index: number
  readonly headers: ReadonlyArray<ResizableHeader & { readonly id: string }>
  readonly order: ReadonlyArray<number>
  readonly columns: ReadonlyArray<GridColumn>
  readonly kinds: ReadonlyArray<CellKind>
  readonly starts: ReadonlyArray<number>
  readonly sizes: ReadonlyArray<number>
  readonly sort: ReadonlyArray<{ readonly column: string; readonly direction: "asc" | "desc" }> | undefined
  readonly onClick: ((column: GridColumn) => void) | undefined
  readonly setOrder: (ids: Array<string>) => void
}) => {
  const header = headers[index]
  const original = order[index] ?? index
  const column = columns[original]
  if (header === undefined || column === undefined) return null
  return (
    <HeaderCell
      header={header}
      column={column}
      colindex={original + 1}
      kind={kinds[original] ?? "text"}
      left={starts[index] ?? 0}
      width={sizes[index] ?? 0}
      sort={sort?.find((s) => s.column === column.name)}
      onClick={onClick}
      onMove={(moved) => {
        const ids = headers.map((h) => h.column.id).filter((id) => id !== moved)
        ids.splice(ids.indexOf(header.column.id), 0, moved)
        setOrder(ids)
      }}
    />
  )
}
