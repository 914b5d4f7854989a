import type { MouseEvent, ReactNode } from "react"
import type { Cell } from "../../domain/UiSchemas.ts"
import { type CellKind, displayText } from "./cellTypes.ts"
import { CellEditor } from "./CellEditor.tsx"

/**
 * One cell of the data grid (D-85): its classes (kind, NULL apart from '', selected, focused, changed), its text,
 * or its inline editor while edited. What a cell shows beyond its text (a link, a badge) goes in `adornment`, so
 * the grid's selection, menu and keys stay as they are.
 */
export const GridCell = ({ value, kind, colindex, left, width, selected, focused, changed, editing, typed, adornment, onMouseDown, onMouseEnter, onContextMenu, onDoubleClick, onEdited }: {
  readonly value: Cell
  readonly kind: CellKind
  /** The column's aria-colindex (its place in the columns, whatever the order shown). */
  readonly colindex: number
  readonly left: number | undefined
  readonly width: number | undefined
  readonly selected: boolean
  readonly focused: boolean
  readonly changed: boolean
  readonly editing: boolean
  /** The character typed to start the edit, if it was started by typing. */
  readonly typed: string | undefined
  readonly adornment?: ReactNode
  readonly onMouseDown: (event: MouseEvent) => void
  readonly onMouseEnter: () => void
  readonly onContextMenu: (event: MouseEvent) => void
  readonly onDoubleClick: () => void
  readonly onEdited: (result: { readonly value: Cell } | undefined, move: boolean) => void
}) => {
  const classes = `grid-td kind-${kind}${value === null ? " null" : value === "" ? " empty" : ""}${selected ? " selected" : ""}${focused ? " focus" : ""}${changed ? " changed" : ""}`
  return (
    <div
      role="gridcell"
      aria-colindex={colindex}
      aria-selected={selected}
      className={classes}
      style={{ left, width }}
      title={value === "" ? "empty string" : undefined}
      onMouseDown={onMouseDown}
      onContextMenu={onContextMenu}
      onMouseEnter={onMouseEnter}
      onDoubleClick={onDoubleClick}
    >
      {editing
        ? <CellEditor kind={kind} value={value} {...(typed === undefined ? {} : { initial: typed })} onDone={onEdited} />
        : <>{displayText(value, kind)}{adornment}</>}
    </div>
  )
}
