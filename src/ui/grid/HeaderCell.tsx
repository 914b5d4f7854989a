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
