import type { ReactNode } from "react"
import type { SqlDialect } from "../../domain/SqlLexer.ts"
import type { Cell } from "../../domain/UiSchemas.ts"
import type { GridColumn } from "./cellTypes.ts"

/** What the data grid's owner gives it: columns and rows, what may be edited, and the row actions it handles. */
export type RowState = "inserted" | "changed" | "deleted" | undefined

export interface DataGridProps {
  readonly label: string
  readonly columns: ReadonlyArray<GridColumn>
  /** Keep the array identity stable between renders: the table's row model is rebuilt when it changes. */
  readonly rows: ReadonlyArray<ReadonlyArray<Cell>>
  readonly sort?: ReadonlyArray<{ readonly column: string; readonly direction: "asc" | "desc" }>
  readonly onHeaderClick?: (column: GridColumn) => void
  readonly rowState?: (row: number) => RowState
  readonly cellChanged?: (row: number, column: number) => boolean
  /** Whether a cell may be edited; `onEdit` receives the typed value (null for NULL). */
  readonly canEdit?: (row: number, column: number) => boolean
  readonly onEdit?: (row: number, column: number, value: Cell) => void
  readonly onSelectRows?: (rows: ReadonlyArray<number>) => void
  /** For "copy as SQL INSERT". */
  readonly sql?: { readonly dialect: SqlDialect; readonly table: string }
  readonly height?: number | string
  /** A new value (another page, sort or filter) scrolls back to the first row. */
  readonly scrollKey?: string
  /** Rows shown above the read rows (new rows): when it grows, the selection moves with the records it was on. */
  readonly topRows?: number
  /** A new `n` moves the focus (and the keyboard) to row `r`, column `c` — e.g. onto a row just added. */
  readonly focusRequest?: { readonly r: number; readonly c: number; readonly n: number }
  /** Space (and the menu): the row detail of a row. */
  readonly onOpenRow?: (row: number) => void
  /** Delete (and the menu): mark the selected rows for deletion; Ctrl/Cmd+D: duplicate them as new rows. */
  readonly onDeleteRows?: (rows: ReadonlyArray<number>) => void
  readonly onDuplicateRows?: (rows: ReadonlyArray<number>) => void
  /**
   * Ctrl/Cmd+V of a range, staged at once (D-100): cell edits (`row`, `column` as in `columns`) and the lines past the
   * last row as new rows; without it a paste edits cell by cell through `onEdit` and must fit the rows shown.
   */
  readonly onPasteRows?: (
    edits: ReadonlyArray<readonly [number, number, Cell]>,
    newRows: ReadonlyArray<ReadonlyArray<readonly [number, Cell]>>
  ) => void
  /** More in a cell after its text (e.g. a link to the row a foreign key references); `column` as in `columns`. */
  readonly cellAdornment?: (row: number, column: number, value: Cell) => ReactNode
  /** The menu's "Filter by this value" (`column` as in `columns`). */
  readonly onFilterValue?: (column: number, value: Cell) => void
  /** A cell that links somewhere (a foreign key's referenced row, D-99): its title; `column` as in `columns`. */
  readonly cellLink?: (row: number, column: number) => string | undefined
  /** Follows a cell's link: its ↗ button, or Ctrl/Cmd+Enter on the cell. */
  readonly onCellLink?: (row: number, column: number) => void
}
