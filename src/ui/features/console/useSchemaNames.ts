import { useEffect, useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { onSchemaChanged } from "./consoleStore.ts"

/** Tables read for completion at most; larger databases complete the first ones' columns and every table name. */
const MAX_DESCRIBED = 100

/** Table and column names for the editor's completion, read in the background once per connection and again after the console changed the schema. */
export const useSchemaNames = (
  connection: UiConnection,
  enabled: boolean,
  database?: string
): Readonly<Record<string, ReadonlyArray<string>>> => {
  const [schema, setSchema] = useState<Readonly<Record<string, ReadonlyArray<string>>>>({})
  const [version, setVersion] = useState(0)
  useEffect(() => onSchemaChanged(connection.id, () => setVersion((n) => n + 1)), [connection.id])
  useEffect(() => {
    if (!enabled) return
    let live = true
    void (async () => {
      const { tables } = await call((client) =>
        client.browse.tables({ path: { id: connection.id }, urlParams: database === undefined ? {} : { database } })
      )
      const names: Record<string, ReadonlyArray<string>> = Object.fromEntries(tables.map((table) => [table.name, []]))
      if (live) setSchema({ ...names })
      for (const table of tables.slice(0, MAX_DESCRIBED)) {
        const structure = await call((client) =>
          client.browse.structure({
            path: { id: connection.id, table: table.name },
            urlParams: database === undefined ? {} : { database }
          })
        ).catch(() => undefined)
        if (structure !== undefined) names[table.name] = structure.columns.map((column) => column.name)
      }
      if (live) setSchema({ ...names })
    })().catch(() => undefined)
    return () => {
      live = false
    }
  }, [connection.id, enabled, version, database])
  return schema
}
