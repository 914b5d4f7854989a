import { useEffect, useMemo, useState } from "react"
import type { Cell, UiColumn, UiConnection, UiForeignKey } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { onFilterRequest, requestOpenTable } from "./sidebar/catalogStore.ts"

const text = (value: Cell | undefined): string | null =>
  value === null || value === undefined ? null : typeof value === "object" ? JSON.stringify(value) : String(value)

/**
 * Foreign-key cells link to the referenced row (D-99): the table's foreign keys (its structure, read once), a title
 * for every non-NULL cell of a key column, and following it opens the referenced table in its tab with the filter bar
 * set to the key (column = value for every column of the key), applied and editable. A tab already open on that table
 * takes the filter too: `storageKey` names this tab's kept view, which a jump from another grid replaces.
 */
export const useForeignKeyLinks = <V>(options: {
  readonly connection: UiConnection
  readonly table: string
  /** The tab's own database (D-98), when not the connection's. */
  readonly database?: string | undefined
  readonly columns: ReadonlyArray<UiColumn>
  readonly rows: ReadonlyArray<ReadonlyArray<Cell>>
  readonly storageKey: string
  readonly setView: (view: V) => void
}) => {
  const { connection, table, database, columns, rows, storageKey, setView } = options
  const [keys, setKeys] = useState<ReadonlyArray<UiForeignKey>>([])
  useEffect(() => {
    if (connection.type === "search") return
    let live = true
    call((client) =>
      client.browse.structure({
        path: { id: connection.id, table },
        urlParams: database === undefined ? {} : { database }
      })
    ).then(
      (structure) => live && setKeys(structure.foreignKeys),
      () => live && setKeys([])
    )
    return () => {
      live = false
    }
  }, [connection.id, connection.type, table, database])
  useEffect(() => onFilterRequest<V>(storageKey, setView), [storageKey, setView])

  const byColumn = useMemo(() => {
    const map = new Map<number, UiForeignKey>()
    for (const key of keys) {
      for (const name of key.columns) {
        const index = columns.findIndex((column) => column.name === name)
        if (index >= 0 && !map.has(index)) map.set(index, key)
      }
    }
    return map
  }, [keys, columns])

  if (byColumn.size === 0) return {}
  const pairs = (row: number, key: UiForeignKey) =>
    key.columns.map((name, i) =>
      [
        key.referencedColumns[i] ?? name,
        text(rows[row]?.[columns.findIndex((column) => column.name === name)])
      ] as const
    )
  return {
    cellLink: (row: number, column: number): string | undefined => {
      const key = byColumn.get(column)
      if (key === undefined || text(rows[row]?.[column]) === null) return undefined
      return `Open the referenced row in ${key.referencedTable}`
    },
    onCellLink: (row: number, column: number) => {
      const key = byColumn.get(column)
      if (key === undefined || text(rows[row]?.[column]) === null) return
      requestOpenTable({ connectionId: connection.id, table: key.referencedTable, equals: pairs(row, key) })
    }
  }
}
