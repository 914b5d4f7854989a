import { useCallback, useEffect, useMemo, useState } from "react"
import { call } from "../../api.ts"
import { useDirty } from "../../workspace/LeaveGuard.tsx"
import { searchRequests, type usePendingEdits } from "./pendingEdits.ts"

/**
 * The Data tab's Save (D-86): Ctrl/Cmd+S or the button asks for the exact statements (SQL: the server's preview;
 * search: one request per document), the dialog applies them, and a tab with pending edits is registered with the
 * leave guard so nothing unsaved is dropped without asking.
 */
export const useSaveFlow = ({ connectionId, table, database, search, active, pending }: {
  readonly connectionId: string
  readonly table: string
  /** The tab's database when it is not the connection's own (D-98). */
  readonly database: string | undefined
  readonly search: boolean
  /** Only the tab on screen answers Ctrl/Cmd+S. */
  readonly active: boolean
  readonly pending: ReturnType<typeof usePendingEdits>
}) => {
  const [saved, setSaved] = useState<string>()
  const [review, setReview] = useState<ReadonlyArray<string>>()
  const startSave = useCallback(() => {
    if (pending.count === 0) return
    setSaved(undefined)
    if (search) return setReview(searchRequests(table, pending.searchEdits()))
    call((client) =>
      client.browse.sqlPreview({
        path: { id: connectionId, table },
        urlParams: database === undefined ? {} : { database },
        payload: pending.sqlEdits()
      })
    ).then(
      (preview) => setReview(preview.statements),
      (e: Error) => setSaved(e.message)
    )
  }, [pending, search, table, connectionId, database])

  const dirty = useMemo(
    () => (pending.count === 0
      ? undefined
      : { label: table, count: pending.count, save: startSave, discard: pending.discard }),
    [pending.count, pending.discard, startSave, table]
  )
  useDirty(`${connectionId}/table:${table}`, dirty)

  useEffect(() => {
    if (!active) return
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
        event.preventDefault()
        startSave()
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [startSave, active])
  const apply = async () => {
    if (search) {
      const result = await call((client) =>
        client.browse.save({ path: { id: connectionId, table }, payload: pending.searchEdits() })
      )
      // a failure names its document id ("new row <id>" for an insert); the request that carries that id is the one
      const failedOn = (statement: string) =>
        result.failures.find((f) => {
          const id = f.row.replace(/^new row ?/, "")
          return id === ""
            ? statement.startsWith("POST ")
            : statement.includes(`/${encodeURIComponent(id)}`) ||
              statement.includes(JSON.stringify({ id }).slice(1, -1))
        })?.message ?? null
      return {
        ok: result.failures.length === 0,
        results: (review ?? []).map((statement) => ({ statement, rowsAffected: null, error: failedOn(statement) }))
      }
    }
    const result = await call((client) =>
      client.browse.sqlApply({
        path: { id: connectionId, table },
        urlParams: database === undefined ? {} : { database },
        payload: { edits: pending.sqlEdits(), statements: review ?? [] }
      })
    )
    return { ok: result.committed, results: result.results }
  }

  return { startSave, apply, review, setReview, saved, setSaved } as const
}
