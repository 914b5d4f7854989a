import { startTransition } from "react"
import type { Cell } from "../../domain/UiSchemas.ts"
import { type CellKind, parseInput } from "./cellTypes.ts"
import type { Pos } from "./selection.ts"

/** TSV as a spreadsheet copies it: rows by line break, cells by tab, a final line break ignored. */
export const parseTsv = (text: string): Array<Array<string>> =>
  text.replace(/\r?\n$/, "").split(/\r?\n/).map((line) => line.split("\t"))

/** A pasted range: edits of existing cells (grid positions) and new rows (grid column → value) for the overflow. */
export interface PastePlan {
  readonly edits: ReadonlyArray<readonly [Pos, Cell]>
  readonly newRows: ReadonlyArray<ReadonlyArray<readonly [number, Cell]>>
}

/**
 * The edits a pasted TSV range makes from the focused cell, or why nothing is pasted (D-100): every value is checked
 * against its column's type and every cell must be editable before anything is staged. Lines past the last row become
 * new rows when `addRows` allows it; a range wider than the columns right of the focus is refused.
 */
export const pasteEdits = (text: string, at: Pos, size: { readonly rows: number; readonly columns: number }, ctx: {
  readonly kindAt: (c: number) => CellKind
  readonly nameAt: (c: number) => string
  readonly editable: (pos: Pos) => boolean
  readonly addRows: boolean
}): PastePlan | { readonly error: string } => {
  const range = parseTsv(text)
  const width = range.reduce((max, row) => Math.max(max, row.length), 0)
  const overflow = at.r + range.length > size.rows
  if (at.c + width > size.columns || (overflow && !ctx.addRows)) {
    return { error: `Nothing pasted: the ${range.length}×${width} range does not fit from this cell.` }
  }
  const edits: Array<readonly [Pos, Cell]> = []
  const newRows: Array<Array<readonly [number, Cell]>> = []
  for (const [i, row] of range.entries()) {
    const r = at.r + i
    const fresh = r >= size.rows
    const where = fresh ? `new row ${r - size.rows + 1}` : `row ${r + 1}`
    const values: Array<readonly [number, Cell]> = []
    for (const [j, input] of row.entries()) {
      const pos = { r, c: at.c + j }
      if (!fresh && !ctx.editable(pos)) {
        return { error: `Nothing pasted: ${where}, ${ctx.nameAt(pos.c)} cannot be edited.` }
      }
      const parsed = parseInput(input, ctx.kindAt(pos.c))
      if ("error" in parsed) return { error: `Nothing pasted: ${where}, ${ctx.nameAt(pos.c)}: ${parsed.error}` }
      if (fresh) values.push([pos.c, parsed.value])
      else edits.push([pos, parsed.value])
    }
    if (fresh) newRows.push(values)
  }
  return { edits, newRows }
}

/** The status line after a paste. */
export const pastedText = (plan: PastePlan): string => {
  const cells = plan.edits.length + plan.newRows.reduce((n, row) => n + row.length, 0)
  const rows = plan.newRows.length
  return `Pasted ${cells} cell${cells === 1 ? "" : "s"}${
    rows === 0 ? "" : ` (${rows} new row${rows === 1 ? "" : "s"})`
  }: Save shows the statements.`
}

/**
 * The grid's Ctrl/Cmd+V: plans the paste from the focused cell and stages it — in one transition through
 * `onPasteRows` (React renders the staged rows between frames, so 10,000 cells do not freeze the page), or cell by
 * cell through `onEdit` where the owner takes no new rows. Returns the status line.
 */
export const pasteRange = (text: string, at: Pos, size: { readonly rows: number; readonly columns: number }, ctx: {
  readonly kindAt: (c: number) => CellKind
  readonly nameAt: (c: number) => string
  /** The owner's column index of a grid column (the order shown may differ). */
  readonly columnAt: (c: number) => number
  readonly editable: (pos: Pos) => boolean
  readonly onEdit: (row: number, column: number, value: Cell) => void
  readonly onPasteRows:
    | ((
      edits: ReadonlyArray<readonly [number, number, Cell]>,
      newRows: ReadonlyArray<ReadonlyArray<readonly [number, Cell]>>
    ) => void)
    | undefined
}): string => {
  const plan = pasteEdits(text, at, size, { ...ctx, addRows: ctx.onPasteRows !== undefined })
  if ("error" in plan) return plan.error
  const edits = plan.edits.map(([pos, value]) => [pos.r, ctx.columnAt(pos.c), value] as const)
  const { onPasteRows } = ctx
  if (onPasteRows === undefined) { for (const [r, c, value] of edits) ctx.onEdit(r, c, value) }
  else {startTransition(() =>
      onPasteRows(edits, plan.newRows.map((row) => row.map(([c, value]) => [ctx.columnAt(c), value] as const)))
    )}
  return pastedText(plan)
}
