import { useEffect, useRef } from "react"
import type { Cell } from "../../domain/UiSchemas.ts"
import type { GridColumn } from "./cellTypes.ts"
import type { CopyFormat } from "./copyFormats.ts"

export type MenuItem = { readonly label: string; readonly hint?: string; readonly disabled?: boolean; readonly run: () => void } | "separator"

/**
 * The grid's context menu (right-click, the context-menu key or Shift+F10): a WAI-ARIA menu — the first item takes the
 * focus, arrows move, Enter runs, Escape or a click elsewhere closes and gives the focus back to the grid.
 */
export const GridMenu = ({ x, y, items, onClose }: {
  readonly x: number
  readonly y: number
  readonly items: ReadonlyArray<MenuItem>
  readonly onClose: () => void
}) => {
  const menu = useRef<HTMLDivElement>(null)
  const buttons = () => [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not([disabled])') ?? [])]
  useEffect(() => {
    buttons()[0]?.focus()
    const away = (event: MouseEvent) => { if (!menu.current?.contains(event.target as Node)) onClose() }
    window.addEventListener("mousedown", away)
    return () => window.removeEventListener("mousedown", away)
  }, [onClose])
  const left = Math.min(x, window.innerWidth - 240)
  const top = Math.min(y, window.innerHeight - 24 * items.length - 16)
  return (
    <div
      ref={menu}
      role="menu"
      aria-label="Cell actions"
      className="grid-menu"
      style={{ left, top: Math.max(0, top) }}
      onKeyDown={(event) => {
        event.stopPropagation()
        const all = buttons()
        const at = all.indexOf(document.activeElement as HTMLButtonElement)
        if (event.key === "Escape" || event.key === "Tab") { event.preventDefault(); onClose() }
        else if (event.key === "ArrowDown") { event.preventDefault(); all[(at + 1) % all.length]?.focus() }
        else if (event.key === "ArrowUp") { event.preventDefault(); all[(at - 1 + all.length) % all.length]?.focus() }
        else if (event.key === "Home") { event.preventDefault(); all[0]?.focus() }
        else if (event.key === "End") { event.preventDefault(); all[all.length - 1]?.focus() }
      }}
    >
      {items.map((item, i) =>
        item === "separator"
          ? <div key={`s${i}`} role="separator" />
          : (
            <button key={item.label} role="menuitem" disabled={item.disabled} onClick={() => { onClose(); item.run() }}>
              {item.label}{item.hint === undefined ? null : <span className="note"> {item.hint}</span>}
            </button>
          ))}
    </div>
  )
}

/** The cell menu's items for the focused cell and the selected rows; an action the grid's owner does not offer is left out. */
export const cellMenuItems = (at: {
  readonly columns: ReadonlyArray<GridColumn>
  readonly sql?: unknown
  readonly copy: (format: CopyFormat) => void
  readonly setNull: () => void
  readonly anyEditable: boolean
  readonly row: number
  readonly rows: ReadonlyArray<number>
  readonly column: number
  readonly value: Cell
  readonly shown: number
  readonly hidden: number
  readonly hide: () => void
  readonly showAll: () => void
  readonly onOpenRow?: ((row: number) => void) | undefined
  readonly onDeleteRows?: ((rows: ReadonlyArray<number>) => void) | undefined
  readonly onDuplicateRows?: ((rows: ReadonlyArray<number>) => void) | undefined
  readonly onFilterValue?: ((column: number, value: Cell) => void) | undefined
}): ReadonlyArray<MenuItem> => {
  const { onOpenRow, onDuplicateRows, onDeleteRows, onFilterValue } = at
  return [
    { label: "Copy as TSV", hint: "Ctrl/Cmd+C", run: () => at.copy("tsv") },
    { label: "Copy as CSV", run: () => at.copy("csv") },
    { label: "Copy as JSON", run: () => at.copy("json") },
    ...(at.sql === undefined ? [] : [{ label: "Copy as SQL INSERT", run: () => at.copy("sql") }]),
    "separator",
    { label: "Set NULL", hint: "Ctrl/Cmd+Shift+N", disabled: !at.anyEditable, run: at.setNull },
    ...(onOpenRow === undefined ? [] : [{ label: "Row detail", hint: "Space", run: () => onOpenRow(at.row) }]),
    ...(onDuplicateRows === undefined ? [] : [{ label: "Duplicate row", hint: "Ctrl/Cmd+D", run: () => onDuplicateRows(at.rows) }]),
    ...(onDeleteRows === undefined ? [] : [{ label: "Delete row", hint: "Delete", run: () => onDeleteRows(at.rows) }]),
    "separator",
    ...(onFilterValue === undefined ? [] : [{ label: "Filter by this value", run: () => onFilterValue(at.column, at.value) }]),
    { label: `Hide column “${at.columns[at.column]?.name ?? ""}”`, disabled: at.shown <= 1, run: at.hide },
    ...(at.hidden === 0 ? [] : [{ label: `Show ${at.hidden} hidden column${at.hidden === 1 ? "" : "s"}`, run: at.showAll }])
  ]
}
