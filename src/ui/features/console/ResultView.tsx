import { useMemo } from "react"
import type { UiConsoleResult } from "../../../domain/UiSchemas.ts"
import { DataGrid, type GridColumn } from "../../grid/DataGrid.tsx"

/** One console result: a grid (typed by its values), pretty JSON, or the message of a statement without rows. */
export const ResultView = ({ result, dialect }: { readonly result: UiConsoleResult; readonly dialect: "sqlite" | "postgresql" | "mysql" | undefined }) => {
  const columns = useMemo((): ReadonlyArray<GridColumn> => (result._tag === "Grid" ? result.columns.map((name, i) => ({ name, type: result.columnTypes?.[i] ?? "" })) : []), [result])
  if (result._tag === "Json") return <pre className="json" aria-label="Response">{result.text}</pre>
  if (result._tag !== "Grid") return null
  const summary = result.columns.length > 0 ? `${result.rows.length.toLocaleString()} row${result.rows.length === 1 ? "" : "s"}` : `${result.rowsAffected.toLocaleString()} row${result.rowsAffected === 1 ? "" : "s"} affected`
  // one summary per run: the database's own "N rows affected" says again what the summary says
  const message = result.message === null || /^\s*\d+ rows? affected\.?\s*$/i.test(result.message) ? "" : ` · ${result.message}`
  return (
    <div>
      <p className="note" role="status">
        {summary}{` in ${Math.round(result.timeMs).toLocaleString()} ms`}{message}
      </p>
      {result.columns.length > 0 && <DataGrid label="Results" columns={columns} rows={result.rows} height="calc(100vh - 480px)" {...(dialect === undefined ? {} : { sql: { dialect, table: "result" } })} />}
    </div>
  )
}
