import { useCallback, useEffect, useMemo, useState } from "react"
import type { Cell, UiColumn, UiEditRequest, UiPage } from "../../../domain/UiSchemas.ts"
import type { UiSqlEdits } from "../../../domain/UiWorkSchemas.ts"
import type { RowState } from "../../grid/DataGrid.tsx"
import { readSession, writeSession } from "../../workspace/sessionState.ts"

type Values = Readonly<Record<string, Cell>>

/** Pending edits as kept for the session: existing rows by their key values, so a re-read page finds them again. */
interface Stored {
  readonly inserts: ReadonlyArray<Values>
  readonly edits: ReadonlyArray<readonly [string, Values]>
  readonly deleted: ReadonlyArray<string>
}

const rowKey = (page: UiPage, index: number): string | undefined => {
  const keys = page.columns.flatMap((column, i) => (column.isPrimaryKey ? [i] : []))
  const row = page.rows[index]
  return keys.length === 0 || row === undefined ? undefined : JSON.stringify(keys.map((i) => row[i] ?? null))
}

/**
 * The grid's pending changes (D-86), the same model for SQL rows and search documents: edited cells by page row,
 * deleted rows, and new rows shown first. A value set back to the original is no longer pending.
 */
export const usePendingEdits = (page: UiPage | undefined, storageKey?: string) => {
  const [edits, setEdits] = useState<Readonly<Record<number, Values>>>({})
  const [deleted, setDeleted] = useState<ReadonlySet<number>>(new Set())
  const [inserts, setInserts] = useState<ReadonlyArray<Values>>([])
  const [restore, setRestore] = useState(
    () => (storageKey === undefined ? undefined : readSession<Stored>(`${storageKey}:edits`))
  )
  const columns = page?.columns ?? []
  const pageRows = page?.rows ?? []

  // the first page read after a reload gets back the edits of the rows it holds (found by key, not by position)
  useEffect(() => {
    if (page === undefined || restore === undefined) return
    const byKey = new Map(page.rows.map((_, index) => [rowKey(page, index), index] as const))
    setInserts(restore.inserts)
    setEdits(Object.fromEntries(restore.edits.flatMap(([key, values]) => {
      const index = byKey.get(key)
      return index === undefined ? [] : [[index, values]]
    })))
    setDeleted(
      new Set(restore.deleted.flatMap((key) => {
        const index = byKey.get(key)
        return index === undefined ? [] : [index]
      }))
    )
    setRestore(undefined)
  }, [page, restore])

  useEffect(() => {
    if (storageKey === undefined || restore !== undefined || page === undefined) return
    const empty = inserts.length === 0 && deleted.size === 0 && Object.keys(edits).length === 0
    const stored: Stored = {
      inserts,
      edits: Object.entries(edits).flatMap(([index, values]) => {
        const key = rowKey(page, Number(index))
        return key === undefined ? [] : [[key, values] as const]
      }),
      deleted: [...deleted].flatMap((index) => rowKey(page, index) ?? [])
    }
    writeSession(`${storageKey}:edits`, empty ? undefined : stored)
  }, [storageKey, restore, page, inserts, edits, deleted])

  const rows = useMemo(() => [
    ...inserts.map((values) => columns.map((column) => values[column.name] ?? null)),
    ...pageRows.map((row, index) => {
      const changed = edits[index]
      return changed === undefined
        ? row
        : columns.map((column, i) => (column.name in changed ? changed[column.name] ?? null : row[i] ?? null))
    })
  ], [inserts, pageRows, edits, columns])

  const count = Object.keys(edits).filter((index) => !deleted.has(Number(index))).length + deleted.size + inserts.length
  const discard = useCallback(() => {
    setEdits({})
    setDeleted(new Set())
    setInserts([])
  }, [])

  const edit = (row: number, column: number, value: Cell) => {
    const name = columns[column]?.name
    if (name === undefined) return
    // functional: the row detail stages several columns of a new row at once
    if (row < inserts.length) {
      return setInserts((current) => current.map((values, i) => (i === row ? { ...values, [name]: value } : values)))
    }
    const index = row - inserts.length
    const original = pageRows[index]?.[column] ?? null
    setEdits((current) => {
      const { [name]: _, ...rest } = current[index] ?? {}
      const next = original === value ? rest : { ...rest, [name]: value }
      const { [index]: __, ...others } = current
      return Object.keys(next).length === 0 ? others : { ...others, [index]: next }
    })
  }

  /**
   * Many cells at once (a pasted range, D-100): one state update for all of them, so 10,000 cells cost one render.
   * `changes` are grid positions before `added` (whole new rows, by column index) go in above the other new rows.
   */
  const stageMany = (
    changes: ReadonlyArray<readonly [number, number, Cell]>,
    added: ReadonlyArray<ReadonlyArray<readonly [number, Cell]>> = []
  ) => {
    const named = (values: ReadonlyArray<readonly [number, Cell]>) =>
      Object.fromEntries(
        values.flatMap((
          [column, value]
        ) => (columns[column] === undefined ? [] : [[columns[column].name, value] as const]))
      )
    const toInserts = changes.filter(([row]) => row < inserts.length)
    const toRows = changes.filter(([row]) => row >= inserts.length)
    if (toInserts.length > 0 || added.length > 0) {
      setInserts((current) => {
        const next = current.map((values) => ({ ...values }))
        for (const [row, column, value] of toInserts) {
          const name = columns[column]?.name
          const target = next[row]
          if (name !== undefined && target !== undefined) target[name] = value
        }
        return [...added.map(named), ...next]
      })
    }
    if (toRows.length === 0) return
    setEdits((current) => {
      const next: Record<number, Record<string, Cell>> = {}
      for (const [index, values] of Object.entries(current)) next[Number(index)] = { ...values }
      for (const [row, column, value] of toRows) {
        const index = row - inserts.length
        const name = columns[column]?.name
        if (name === undefined) continue
        const changed = (next[index] ??= {})
        if ((pageRows[index]?.[column] ?? null) === value) delete changed[name]
        else changed[name] = value
        if (Object.keys(changed).length === 0) delete next[index]
      }
      return next
    })
  }

  const rowState = (row: number): RowState =>
    row < inserts.length
      ? "inserted"
      : deleted.has(row - inserts.length)
      ? "deleted"
      : edits[row - inserts.length] !== undefined
      ? "changed"
      : undefined
  const cellChanged = (row: number, column: number) => {
    const name = columns[column]?.name ?? ""
    return row < inserts.length ? name in (inserts[row] ?? {}) : name in (edits[row - inserts.length] ?? {})
  }

  const addRow = () => setInserts([{}, ...inserts])
  /** Copies of the selected rows without their key columns, which the database or the user assigns anew. */
  const duplicate = (selected: ReadonlyArray<number>) =>
    setInserts([
      ...selected.map((row) =>
        Object.fromEntries(
          columns.flatMap((
            column,
            i
          ) => (column.isPrimaryKey || column.isReadOnly ? [] : [[column.name, rows[row]?.[i] ?? null] as const]))
        )
      ),
      ...inserts
    ])
  const toggleDelete = (selected: ReadonlyArray<number>) => {
    const newRows = new Set(selected.filter((row) => row < inserts.length))
    if (newRows.size > 0) setInserts(inserts.filter((_, i) => !newRows.has(i)))
    setDeleted((current) => {
      const next = new Set(current)
      for (const row of selected) {
        if (row >= inserts.length && !next.delete(row - inserts.length)) next.add(row - inserts.length)
      }
      return next
    })
  }

  const keyOf = (index: number, keyColumns: ReadonlyArray<UiColumn>) =>
    Object.fromEntries(keyColumns.map((column) => [column.name, pageRows[index]?.[columns.indexOf(column)] ?? null]))

  const sqlEdits = (): UiSqlEdits => {
    const keys = columns.filter((column) => column.isPrimaryKey)
    return {
      inserts,
      updates: Object.entries(edits).filter(([index]) => !deleted.has(Number(index))).map(([index, changes]) => ({
        key: keyOf(Number(index), keys),
        changes
      })),
      deletes: [...deleted].map((index) => keyOf(index, keys))
    }
  }

  const searchEdits = (): UiEditRequest => {
    const id = columns.findIndex((column) => column.isPrimaryKey)
    const idOf = (index: number) => String(pageRows[index]?.[id] ?? "")
    const mapOf = (row: ReadonlyArray<Cell>) =>
      Object.fromEntries(columns.map((column, i) => [column.name, row[i] ?? null]))
    return {
      inserts: inserts.map((values) =>
        Object.fromEntries(Object.entries(values).filter(([, value]) => value !== "" && value !== null))
      ),
      updates: Object.entries(edits).filter(([index]) => !deleted.has(Number(index))).map(([index, changes]) => ({
        id: idOf(Number(index)),
        original: mapOf(pageRows[Number(index)] ?? []),
        changes
      })),
      deletes: [...deleted].map(idOf)
    }
  }

  return {
    rows,
    count,
    discard,
    edit,
    stageMany,
    rowState,
    cellChanged,
    addRow,
    duplicate,
    toggleDelete,
    sqlEdits,
    searchEdits,
    insertCount: inserts.length,
    deleted
  } as const
}

/** The document requests a search Save makes, as the dialog lists them (doc 2 §8). */
export const searchRequests = (collection: string, edits: UiEditRequest): Array<string> => {
  const base = `/collections/${encodeURIComponent(collection)}/documents`
  return [
    ...edits.inserts.map((values) => `POST ${base}\n${JSON.stringify(values)}`),
    ...edits.updates.map((update) =>
      `PATCH ${base}/${encodeURIComponent(update.id)}\n${JSON.stringify(update.changes)}`
    ),
    ...edits.deletes.map((id) => `DELETE ${base}/${encodeURIComponent(id)}`)
  ]
}
