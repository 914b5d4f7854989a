import { columnOrderingFeature, columnResizingFeature, columnSizingFeature, columnVisibilityFeature, tableFeatures, useTable } from "@tanstack/react-table"
import { useVirtualizer } from "@tanstack/react-virtual"
import { type KeyboardEvent, type MouseEvent, useEffect, useMemo, useRef, useState } from "react"
import type { Cell } from "../../domain/UiSchemas.ts"
import { usePrefs } from "../shell/Prefs.tsx"
import { kindOfType, kindOfValues } from "./cellTypes.ts"
import { GridCell } from "./GridCell.tsx"
import { onGridKey } from "./gridKeys.ts"
import { CellLink } from "./CellLink.tsx"
import { CellViewer } from "./CellViewer.tsx"
import { HeaderAt } from "./HeaderCell.tsx"

export type { GridColumn } from "./cellTypes.ts"
import { type CopyFormat, copyText, formatRange } from "./copyFormats.ts"
import { cellMenuItems, GridMenu, type MenuItem } from "./GridMenu.tsx"
import { GridStatus } from "./GridStatus.tsx"
import { pasteRange } from "./pasteRange.ts"
import { widthOf } from "./columnWidth.ts"
import type { DataGridProps } from "./gridProps.ts"
import { useFocusFollow } from "./useFocusFollow.ts"
import { type Pos, type Range, rangeOf } from "./selection.ts"

const features = tableFeatures({ columnOrderingFeature, columnSizingFeature, columnResizingFeature, columnVisibilityFeature })
type Row = ReadonlyArray<Cell>

export type { DataGridProps, RowState } from "./gridProps.ts"

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
    const linkColumn = order[focus.c] ?? focus.c
    if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key === "Enter" && props.onCellLink !== undefined && props.cellLink?.(focus.r, linkColumn) !== undefined) {
      event.preventDefault()
      return props.onCellLink(focus.r, linkColumn)
    }
    onGridKey(event, {
      focus,
      last,
      pageRows: Math.max(1, Math.floor(((scrollRef.current?.clientHeight ?? 400) - HEADER_HEIGHT) / rowHeight) - 1),
      editable,
      selectedRows,
      moveTo,
      selectAll: () => { setAnchor({ r: 0, c: 0 }); setFocus(last) },
      openMenu,
      edit: (pos, key) => { setTyped(key); setEditing(pos) },
      view: setViewing,
      collapse: () => setAnchor(focus),
      setNull,
      copy,
      onOpenRow: props.onOpenRow,
      onDeleteRows: props.onDeleteRows,
      onDuplicateRows: props.onDuplicateRows
    })
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
          setCopied(pasteRange(event.clipboardData.getData("text/plain"), rows.length === 0 ? { r: 0, c: 0 } : focus, { rows: rows.length, columns: headers.length }, {
            kindAt: (c) => kinds[order[c] ?? c] ?? "text",
            nameAt: (c) => columns[order[c] ?? c]?.name ?? "",
            columnAt: (c) => order[c] ?? c,
            editable,
            onEdit: props.onEdit,
            onPasteRows: props.onPasteRows
          }))
        }}
        style={props.height === undefined ? undefined : { height: props.height }}
      >
        <div style={{ width: totalWidth, height: rowV.getTotalSize(), position: "relative" }}>
          <div role="row" aria-rowindex={1} className="grid-header" style={{ width: totalWidth, height: HEADER_HEIGHT }}>
            {virtualCols.map((item) => (
              <HeaderAt key={item.key} index={item.index} headers={headers} order={order} columns={columns} kinds={kinds} starts={starts} sizes={sizes} sort={props.sort} onClick={props.onHeaderClick} setOrder={(ids) => table.setColumnOrder(ids)} />
            ))}
          </div>
          {virtualRows.map((item) => {
            const r = item.index
            const state = props.rowState?.(r)
            return (
              <div key={item.key} role="row" aria-rowindex={r + 2} className={`grid-tr${state === undefined ? "" : ` ${state}`}${editing?.r === r ? " editing" : ""}`} style={{ transform: `translateY(${item.start}px)`, height: rowHeight, width: totalWidth }}>
                {virtualCols.map((col) => {
                  const original = order[col.index] ?? col.index
                  const value = rows[r]?.[original] ?? null
                  const pos = { r, c: col.index }
                  const inRange = r >= range.r0 && r <= range.r1 && col.index >= range.c0 && col.index <= range.c1
                  return (
                    <GridCell
                      key={col.key}
                      value={value}
                      kind={kinds[original] ?? "text"}
                      colindex={original + 1}
                      left={starts[col.index]}
                      width={sizes[col.index]}
                      selected={inRange}
                      focused={r === focus.r && col.index === focus.c}
                      changed={props.cellChanged?.(r, original) === true}
                      editing={editing?.r === r && editing.c === col.index}
                      typed={typed}
                      adornment={props.cellLink?.(r, original) === undefined ? props.cellAdornment?.(r, original, value) : <CellLink title={props.cellLink(r, original)} follow={() => props.onCellLink?.(r, original)} />}
                      onMouseDown={(event) => onCellMouseDown(event, pos)}
                      onContextMenu={(event) => {
                        event.preventDefault()
                        setFocus(pos)
                        if (!inRange) setAnchor(pos)
                        setMenu({ x: event.clientX, y: event.clientY })
                      }}
                      onMouseEnter={() => dragging.current && setFocus(pos)}
                      onDoubleClick={() => (editable(pos) ? setEditing(pos) : setViewing(pos))}
                      onEdited={(result, move) => {
                        setEditing(undefined)
                        setTyped(undefined)
                        if (result !== undefined) props.onEdit?.(r, original, result.value)
                        scrollRef.current?.focus({ preventScroll: true })
                        if (move) moveTo({ r, c: Math.min(last.c, col.index + 1) }, false)
                      }}
                    />
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
