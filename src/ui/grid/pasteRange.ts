import type { Cell } from "../../domain/UiSchemas.ts"
import { type CellKind, parseInput } from "./cellTypes.ts"
import type { Pos } from "./selection.ts"

/** TSV as a spreadsheet copies it: rows by line break, cells by tab, a final line break ignored. */
export const parseTsv = (text: string): Array<Array<string>> => text.replace(/\r?\n$/, "").split(/\r?\n/).map((line) => line.split("\t"))

/**
 * The edits a pasted TSV range makes from the focused cell, or why nothing is pasted: every value is checked against
 * its column's type and every cell must be editable before any edit is staged.
 */
export const pasteEdits = (text: string, at: Pos, last: Pos, ctx: {
  readonly kindAt: (c: number) => CellKind
  readonly nameAt: (c: number) => string
  readonly editable: (pos: Pos) => boolean
}): { readonly edits: ReadonlyArray<readonly [Pos, Cell]> } | { readonly error: string } => {
  const range = parseTsv(text)
  const width = Math.max(...range.map((row) => row.length))
  if (at.r + range.length - 1 > last.r || at.c + width - 1 > last.c) return { error: `Nothing pasted: the ${range.length}×${width} range does not fit from this cell.` }
  const edits: Array<readonly [Pos, Cell]> = []
  for (const [i, row] of range.entries()) {
    for (const [j, input] of row.entries()) {
      const pos = { r: at.r + i, c: at.c + j }
      if (!ctx.editable(pos)) return { error: `Nothing pasted: row ${pos.r + 1}, ${ctx.nameAt(pos.c)} cannot be edited.` }
      const parsed = parseInput(input, ctx.kindAt(pos.c))
      if ("error" in parsed) return { error: `Nothing pasted: row ${pos.r + 1}, ${ctx.nameAt(pos.c)}: ${parsed.error}` }
      edits.push([pos, parsed.value])
    }
  }
  return { edits }
}
