import type { Cell } from "../../domain/UiSchemas.ts"
import { type CellKind, displayText, type GridColumn } from "./cellTypes.ts"

/** Average advance of the grid's monospace cell text and of the header's bold name, in pixels. */
const CELL_CHAR = 7.9
const NAME_CHAR = 8.6
const TYPE_CHAR = 7
/**
 * A column as wide as its content: the longest of its name (with room for the sort arrow), its type hint and the
 * first rows' values, between 60 and 480 pixels. Double-clicking a header's edge sets it back to this width.
 */
export const widthOf = (
  column: GridColumn,
  kind: CellKind,
  rows: ReadonlyArray<ReadonlyArray<Cell>>,
  index: number
): number => {
  let longest = 0
  for (let r = 0; r < Math.min(rows.length, 200); r++) {
    const text = displayText(rows[r]?.[index] ?? null, kind)
    if (text.length > longest) longest = text.length
  }
  const content = Math.max(column.name.length * NAME_CHAR + 28, column.type.length * TYPE_CHAR, longest * CELL_CHAR) +
    20
  return Math.round(Math.min(480, Math.max(60, content)))
}
