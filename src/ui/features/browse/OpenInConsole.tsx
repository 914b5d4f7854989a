import { useState } from "react"
import type { UiBrowseRequest } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"

/**
 * "Open in console" on a Data view (D-87): asks the server for the request that gives exactly the rows the
 * grid shows (a SELECT … WHERE … ORDER BY … LIMIT … OFFSET …, or the multi_search body) and hands it to `onOpen`.
 */
export const OpenInConsole = ({ connectionId, table, database, request, onOpen }: {
  readonly connectionId: string
  readonly table: string
  /** The tab's own database (D-98), when not the connection's. */
  readonly database?: string | undefined
  readonly request: UiBrowseRequest
  readonly onOpen: (text: string) => void
}) => {
  const [error, setError] = useState<string>()
  const open = () => {
    setError(undefined)
    call((client) => client.insight.consoleRequest({ path: { id: connectionId, table }, urlParams: database === undefined ? {} : { database }, payload: request })).then(
      (result) => onOpen(result.text),
      (e: Error) => setError(e.message)
    )
  }
  return (
    <>
      <button onClick={open} title="Open the console with the request that gives exactly these rows">Open in console</button>
      {error !== undefined && <span className="error" role="alert">{error}</span>}
    </>
  )
}
