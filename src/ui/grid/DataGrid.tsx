import { columnOrderingFeature, columnResizingFeature, columnSizingFeature, columnVisibilityFeature, tableFeatures, useTable } from "@tanstack/react-table"
import { useVirtualizer } from "@tanstack/react-virtual"
import { type KeyboardEvent, type MouseEvent, startTransition, useEffect, useMemo, useRef, useState } from "react"
import type { SqlDialect } from "../../domain/SqlLexer.ts"
import type { Cell } from "../../domain/UiSchemas.ts"
import { usePrefs } from "../shell/Prefs.tsx"
import { displayText, kindOfType, kindOfValues } from "./cellTypes.ts"
import { CellEditor } from "./CellEditor.tsx"
import { CellViewer } from "./CellViewer.tsx"
import { HeaderCell } from "./HeaderCell.tsx"
import type { GridColumn } from "./cellTypes.ts"

export type { GridColumn } from "./cellTypes.ts"
import { type CopyFormat, copyText, formatRange } from "./copyFormats.ts"
import { cellMenuItems, GridMenu, type MenuItem } from "./GridMenu.tsx"
import { GridStatus } from "./GridStatus.tsx"
import { pastedText, pasteEdits } from "./pasteRange.ts"
import { widthOf } from "./columnWidth.ts"
import { useFocusFollow } from "./useFocusFollow.ts"
import { type Pos, type Range, rangeOf, step } from "./selection.ts"

const features = tableFeatures({ columnOrderingFeature, columnSizingFeature, columnResizingFeature, columnVisibilityFeature })
type Row = ReadonlyArray<Cell>

export type RowState = "inserted" | "changed" | "deleted" | undefined

export interface DataGridProps {
  readonly label: string
  readonly columns: ReadonlyArray<GridColumn>
  /** Keep the array identity stable between renders: the table's row model is rebuilt when it changes. */
  readonly rows: ReadonlyArray<Row>
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
   * Ctrl/Cmd+V of a range, staged at once (D-102): cell edits (`row`, `column` as in `columns`) and the lines past the
   * last row as new rows; without it a paste edits cell by cell through `onEdit` and must fit the rows shown.
   */
  readonly onPasteRows?: (edits: ReadonlyArray<readonly [number, number, Cell]>, newRows: ReadonlyArray<ReadonlyArray<readonly [number, Cell]>>) => void
  /** The menu's "Filter by this value" (`column` as in `columns`). */
  readonly onFilterValue?: (column: number, value: Cell) => void
}

const HEADER_HEIGHT = 40

/**
 * The data grid of SQL tables, search collections and console results (D-85, ui-anchors §3): TanStack Table for
 * the column model (sizes, resizing, order), TanStack Virtual for rows and columns, so only what is on screen is in
 * the DOM. Cells are typed (numbers right-aligned, NULL apart from ''), selected as a range with the mouse or the
 * keyboard, copied as TSV, CSV, JSON or SQL INSERT, viewed whole, and edited where the owner allows.
 */
export const DataGrid = (props: DataGridProps) => {
  const { rowHeight } = usePrefs()
  const { columns, rows } = props
  const kinds = useMemo(() => columns.map((column, i) => kindOfType(column.type) ?? kindOfValues(rows, i)), [columns, rows])
  const columnDefs = useMemo(
    () => columns.map((column, i) => ({ id: `c${i}`, accessorFn: (row: Row) => row[i], header: column.name, size: widthOf(column, kinds[i] ?? "text", rows, i), minSize: 48, maxSize: 2000 })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [columns]
  )
  const data = rows as Array<Row>
  const table = useTable({ features, columns: columnDefs, data, columnResizeMode: "onChange", enableColumnResizing: true })
  const headers = table.getHeaderGroups()[0]?.headers ?? []
  const order = headers.map((header) => Number(header.column.id.slice(1)))
  const sizes = headers.map((header) => header.getSize())
  const starts = sizes.reduce<Array<number>>((acc, size, i) => [...acc, (acc[i] ?? 0) + size], [0])
  const totalWidth = starts[starts.length - 1] ?? 0

  const scrollRef = useRef<HTMLDivElement>(null)
  const rowV = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => rowHeight, overscan: 8, paddingStart: HEADER_HEIGHT, scrollPaddingStart: HEADER_HEIGHT })
  const colV = useVirtualizer({ horizontal: true, count: headers.length, getScrollElement: () => scrollRef.current, estimateSize: (i) => sizes[i] ?? 150, overscan: 2 })
  const sizeKey = sizes.join(",")
  useEffect(() => colV.measure(), [sizeKey, colV])
  useEffect(() => rowV.measure(), [rowHeight, rowV])

  const [focus, setFocus] = useState<Pos>({ r: 0, c: 0 })
  const [anchor, setAnchor] = useState<Pos>({ r: 0, c: 0 })
  const [editing, setEditing] = useState<Pos>()
  const [viewing, setViewing] = useState<Pos>()
  const [copied, setCopied] = useState<string>()
  const [typed, setTyped] = useState<string>()
  const [menu, setMenu] = useState<{ readonly x: number; readonly y: number }>()
  const dragging = useRef(false)
  const range: Range = rangeOf(anchor, focus)
  const { onSelectRows, scrollKey, topRows = 0, focusRequest } = props
  useFocusFollow({ scrollKey, topRows, focusRequest, scrollRef, rowV, setFocus, setAnchor })
  useEffect(() => {
    onSelectRows?.(Array.from({ length: range.r1 - range.r0 + 1 }, (_, i) => range.r0 + i).filter((r) => r < rows.length))
  }, [range.r0, range.r1, rows.length, onSelectRows])
  useEffect(() => {
    const end = () => (dragging.current = false)
    window.addEventListener("mouseup", end)
    return () => window.removeEventListener("mouseup", end)
  }, [])

  const last: Pos = { r: Math.max(0, rows.length - 1), c: Math.max(0, headers.length - 1) }
  const moveTo = (next: Pos, extend: boolean) => {
    setFocus(next)
    if (!extend) setAnchor(next)
    rowV.scrollToIndex(next.r)
    colV.scrollToIndex(next.c)
  }
  const cellValue = (r: number, c: number): Cell => rows[r]?.[order[c] ?? c] ?? null
  const editable = (pos: Pos) => props.onEdit !== undefined && (props.canEdit?.(pos.r, order[pos.c] ?? pos.c) ?? false)

  const selected = (): { readonly names: Array<string>; readonly values: Array<Array<Cell>> } => {
    const cols = Array.from({ length: range.c1 - range.c0 + 1 }, (_, i) => order[range.c0 + i] ?? range.c0 + i)
    const values: Array<Array<Cell>> = []
    for (let r = range.r0; r <= Math.min(range.r1, rows.length - 1); r++) values.push(cols.map((c) => rows[r]?.[c] ?? null))
    return { names: cols.map((c) => columns[c]?.name ?? ""), values }
  }
  const copy = (format: CopyFormat) => {
    const { names, values } = selected()
    void copyText(formatRange(format, names, values, props.sql)).then(() =>
      setCopied(`Copied ${values.length * names.length} cell${values.length * names.length === 1 ? "" : "s"} as ${format === "sql" ? "SQL INSERT" : format.toUpperCase()}.`))
  }
  const setNull = () => {
    for (let r = range.r0; r <= range.r1; r++) {
      for (let c = range.c0; c <= range.c1; c++) if (editable({ r, c })) props.onEdit?.(r, order[c] ?? c, null)
    }
  }

  const selectedRows = () => Array.from({ length: range.r1 - range.r0 + 1 }, (_, i) => range.r0 + i).filter((r) => r < rows.length)
  const hidden = columns.length - headers.length
  const menuItems = (): ReadonlyArray<MenuItem> => {
    const original = order[focus.c] ?? focus.c
    return cellMenuItems({
      ...props,
      copy,
      setNull,
      anyEditable: selectedRows().some((r) => Array.from({ length: range.c1 - range.c0 + 1 }, (_, i) => range.c0 + i).some((c) => editable({ r, c }))),
      row: focus.r,
      rows: selectedRows(),
      column: original,
      value: cellValue(focus.r, focus.c),
      shown: headers.length,
      hidden,
      hide: () => { table.setColumnVisibility((v) => ({ ...v, [`c${original}`]: false })); moveTo({ r: focus.r, c: Math.max(0, Math.min(focus.c, headers.length - 2)) }, false) },
      showAll: () => table.setColumnVisibility({})
    })
  }
  const openMenu = () => {
    const at = scrollRef.current?.querySelector(".grid-td.focus")?.getBoundingClientRect() ?? scrollRef.current?.getBoundingClientRect()
    setMenu({ x: (at?.left ?? 0) + 8, y: (at?.bottom ?? 0) })
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (editing !== undefined || viewing !== undefined || rows.length === 0) return
    const mod = event.ctrlKey || event.metaKey
    if (event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) {
      event.preventDefault()
      return openMenu()
    }
    if (event.key === " " && !mod && props.onOpenRow !== undefined) {
      event.preventDefault()
      return props.onOpenRow(focus.r)
    }
    if ((event.key === "Delete" || (mod && event.key === "Backspace")) && props.onDeleteRows !== undefined) {
      event.preventDefault()
      return props.onDeleteRows(selectedRows())
    }
    if (mod && !event.shiftKey && event.key.toLowerCase() === "d" && props.onDuplicateRows !== undefined) {
      event.preventDefault()
      return props.onDuplicateRows(selectedRows())
    }
    if (!mod && !event.altKey && event.key.length === 1 && event.key !== " " && editable(focus)) {
      // typing on a cell starts its editor with that character, as in a spreadsheet
      event.preventDefault()
      setTyped(event.key)
      return setEditing(focus)
    }
    const pageRows = Math.max(1, Math.floor(((scrollRef.current?.clientHeight ?? 400) - HEADER_HEIGHT) / rowHeight) - 1)
    const next = step(event.key, { mod, shift: event.shiftKey }, focus, last, pageRows)
    if (next !== undefined) {
      event.preventDefault()
      return moveTo(next, event.shiftKey && event.key !== "Tab")
    }
    if (mod && event.shiftKey && event.key.toLowerCase() === "n") {
      event.preventDefault()
      return setNull()
    }
    if (mod && event.key.toLowerCase() === "c") {
      event.preventDefault()
      return copy("tsv")
    }
    if (mod && event.key.toLowerCase() === "a") {
      event.preventDefault()
      setAnchor({ r: 0, c: 0 })
      return setFocus(last)
    }
    if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault()
      if (!event.shiftKey && editable(focus)) setEditing(focus)
      else setViewing(focus)
    }
    if (event.key === "Escape") setAnchor(focus)
  }

  const onCellMouseDown = (event: MouseEvent, pos: Pos) => {
    if (event.button !== 0) return
    dragging.current = true
    setFocus(pos)
    if (!event.shiftKey) setAnchor(pos)
    scrollRef.current?.focus({ preventScroll: true })
  }

  const virtualRows = rowV.getVirtualItems()
  const virtualCols = colV.getVirtualItems()
  const sortOf = (name: string) => props.sort?.find((s) => s.column === name)

  return (
    <div className={`datagrid${props.height === undefined ? " fill" : ""}`}>
      <div
        ref={scrollRef}
        className="grid-scroll"
        role="grid"
        aria-label={props.label}
        aria-rowcount={rows.length + 1}
        aria-colcount={columns.length}
        aria-multiselectable="true"
        tabIndex={0}
        onKeyDown={onKeyDown}
        onPaste={(event) => {
          if (editing !== undefined || props.onEdit === undefined || (rows.length === 0 && props.onPasteRows === undefined)) return
          event.preventDefault()
          const plan = pasteEdits(event.clipboardData.getData("text/plain"), rows.length === 0 ? { r: 0, c: 0 } : focus, { rows: rows.length, columns: headers.length }, {
            kindAt: (c) => kinds[order[c] ?? c] ?? "text",
            nameAt: (c) => columns[order[c] ?? c]?.name ?? "",
            editable,
            addRows: props.onPasteRows !== undefined
          })
          if ("error" in plan) return setCopied(plan.error)
          const edits = plan.edits.map(([pos, value]) => [pos.r, order[pos.c] ?? pos.c, value] as const)
          if (props.onPasteRows === undefined) for (const [r, c, value] of edits) props.onEdit?.(r, c, value)
          // a transition: React renders the staged rows in slices between frames, so a large paste does not freeze the page
          else startTransition(() => props.onPasteRows?.(edits, plan.newRows.map((row) => row.map(([c, value]) => [order[c] ?? c, value] as const))))
          setCopied(pastedText(plan))
        }}
        style={props.height === undefined ? undefined : { height: props.height }}
      >
        <div style={{ width: totalWidth, height: rowV.getTotalSize(), position: "relative" }}>
          <div role="row" aria-rowindex={1} className="grid-header" style={{ width: totalWidth, height: HEADER_HEIGHT }}>
            {virtualCols.map((item) => {
              const header = headers[item.index]
              const original = order[item.index] ?? item.index
              const column = columns[original]
              if (header === undefined || column === undefined) return null
              return (
                <HeaderCell
                  key={header.id}
                  header={header}
                  column={column}
                  colindex={original + 1}
                  kind={kinds[original] ?? "text"}
                  left={starts[item.index] ?? 0}
                  width={sizes[item.index] ?? 0}
                  sort={sortOf(column.name)}
                  onClick={props.onHeaderClick}
                  onMove={(moved) => {
                    const ids = headers.map((h) => h.column.id).filter((id) => id !== moved)
                    ids.splice(ids.indexOf(header.column.id), 0, moved)
                    table.setColumnOrder(ids)
                  }}
                />
              )
            })}
          </div>
          {virtualRows.map((item) => {
            const r = item.index
            const state = props.rowState?.(r)
            return (
              <div key={item.key} role="row" aria-rowindex={r + 2} className={`grid-tr${state === undefined ? "" : ` ${state}`}${editing?.r === r ? " editing" : ""}`} style={{ transform: `translateY(${item.start}px)`, height: rowHeight, width: totalWidth }}>
                {virtualCols.map((col) => {
                  const original = order[col.index] ?? col.index
                  const value = rows[r]?.[original] ?? null
                  const kind = kinds[original] ?? "text"
                  const inRange = r >= range.r0 && r <= range.r1 && col.index >= range.c0 && col.index <= range.c1
                  const isFocus = r === focus.r && col.index === focus.c
                  const classes = `grid-td kind-${kind}${value === null ? " null" : value === "" ? " empty" : ""}${inRange ? " selected" : ""}${isFocus ? " focus" : ""}${props.cellChanged?.(r, original) === true ? " changed" : ""}`
                  return (
                    <div
                      key={col.key}
                      role="gridcell"
                      aria-colindex={original + 1}
                      aria-selected={inRange}
                      className={classes}
                      style={{ left: starts[col.index], width: sizes[col.index] }}
                      title={value === "" ? "empty string" : undefined}
                      onMouseDown={(event) => onCellMouseDown(event, { r, c: col.index })}
                      onContextMenu={(event) => {
                        event.preventDefault()
                        const inside = r >= range.r0 && r <= range.r1 && col.index >= range.c0 && col.index <= range.c1
                        setFocus({ r, c: col.index })
                        if (!inside) setAnchor({ r, c: col.index })
                        setMenu({ x: event.clientX, y: event.clientY })
                      }}
                      onMouseEnter={() => dragging.current && setFocus({ r, c: col.index })}
                      onDoubleClick={() => (editable({ r, c: col.index }) ? setEditing({ r, c: col.index }) : setViewing({ r, c: col.index }))}
                    >
                      {editing?.r === r && editing.c === col.index
                        ? (
                          <CellEditor
                            kind={kind}
                            value={value}
                            {...(typed === undefined ? {} : { initial: typed })}
                            onDone={(result, move) => {
                              setEditing(undefined)
                              setTyped(undefined)
                              if (result !== undefined) props.onEdit?.(r, original, result.value)
                              scrollRef.current?.focus({ preventScroll: true })
                              if (move) moveTo({ r, c: Math.min(last.c, col.index + 1) }, false)
                            }}
                          />
                        )
                        : displayText(value, kind)}
                    </div>
                  )
                })}
              </div>
            )
          })}
        </div>
        {rows.length === 0 && <p className="muted grid-empty">No rows.</p>}
      </div>
      <GridStatus
        position={rows.length === 0 ? "" : `Row ${focus.r + 1}, ${columns[order[focus.c] ?? 0]?.name ?? ""}${range.r0 !== range.r1 || range.c0 !== range.c1 ? ` · ${(range.r1 - range.r0 + 1) * (range.c1 - range.c0 + 1)} cells selected` : ""}`}
        copied={copied}
        onCopy={copy}
        onView={rows.length === 0 ? undefined : () => setViewing(focus)}
      />
      {menu !== undefined && <GridMenu x={menu.x} y={menu.y} items={menuItems()} onClose={() => { setMenu(undefined); scrollRef.current?.focus({ preventScroll: true }) }} />}
      {viewing !== undefined && (
        <CellViewer name={columns[order[viewing.c] ?? 0]?.name ?? ""} value={cellValue(viewing.r, viewing.c)} onClose={() => { setViewing(undefined); scrollRef.current?.focus({ preventScroll: true }) }} />
      )}
    </div>
  )
}
