import type { KeyboardEvent } from "react"
import type { CopyFormat } from "./copyFormats.ts"
import { type Pos, step } from "./selection.ts"

/** What the grid's keys act on: its focus, its actions, and the owner's row actions where it gives them. */
export interface GridKeyContext {
  readonly focus: Pos
  readonly last: Pos
  /** Rows a PageUp/PageDown moves by. */
  readonly pageRows: number
  readonly editable: (pos: Pos) => boolean
  readonly selectedRows: () => ReadonlyArray<number>
  readonly moveTo: (next: Pos, extend: boolean) => void
  readonly selectAll: () => void
  readonly openMenu: () => void
  readonly edit: (pos: Pos, typed?: string) => void
  readonly view: (pos: Pos) => void
  readonly collapse: () => void
  readonly setNull: () => void
  readonly copy: (format: CopyFormat) => void
  readonly onOpenRow?: ((row: number) => void) | undefined
  readonly onDeleteRows?: ((rows: ReadonlyArray<number>) => void) | undefined
  readonly onDuplicateRows?: ((rows: ReadonlyArray<number>) => void) | undefined
}

/**
 * The grid's keyboard (the shortcut list names each): the menu key or Shift+F10, Space (row detail), Delete, Ctrl/Cmd+D,
 * typing to edit, arrows/Tab/Home/End/PgUp/PgDn (+Shift extends), Ctrl/Cmd+Shift+N, +C, +A, Enter/F2, Escape.
 */
export const onGridKey = (event: KeyboardEvent<HTMLDivElement>, ctx: GridKeyContext): void => {
  const { focus } = ctx
  const mod = event.ctrlKey || event.metaKey
  const key = event.key.toLowerCase()
  const take = (run: () => void) => {
    event.preventDefault()
    run()
  }
  if (event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) return take(ctx.openMenu)
  if (event.key === " " && !mod && ctx.onOpenRow !== undefined) return take(() => ctx.onOpenRow?.(focus.r))
  if ((event.key === "Delete" || (mod && event.key === "Backspace")) && ctx.onDeleteRows !== undefined) {
    return take(() => ctx.onDeleteRows?.(ctx.selectedRows()))
  }
  if (mod && !event.shiftKey && key === "d" && ctx.onDuplicateRows !== undefined) {
    return take(() => ctx.onDuplicateRows?.(ctx.selectedRows()))
  }
  // typing on a cell starts its editor with that character, as in a spreadsheet
  if (!mod && !event.altKey && event.key.length === 1 && event.key !== " " && ctx.editable(focus)) {
    return take(() => ctx.edit(focus, event.key))
  }
  const next = step(event.key, { mod, shift: event.shiftKey }, focus, ctx.last, ctx.pageRows)
  if (next !== undefined) return take(() => ctx.moveTo(next, event.shiftKey && event.key !== "Tab"))
  if (mod && event.shiftKey && key === "n") return take(ctx.setNull)
  if (mod && key === "c") return take(() => ctx.copy("tsv"))
  if (mod && key === "a") return take(ctx.selectAll)
  if (event.key === "Enter" || event.key === "F2") {
    return take(() => (!event.shiftKey && ctx.editable(focus) ? ctx.edit(focus) : ctx.view(focus)))
  }
  if (event.key === "Escape") ctx.collapse()
}
