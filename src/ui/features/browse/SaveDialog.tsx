import { useState } from "react"
import { Dialog } from "../../shell/Dialog.tsx"

export interface StatementResult {
  readonly statement: string
  readonly error: string | null
  readonly rowsAffected: number | null
}

/**
 * Save of the grid's pending changes (D-86): the exact statements (SQL) or requests (search documents) are shown
 * first; Apply runs them and shows what each did; a failure keeps the pending edits so they can be fixed and saved
 * again; Cancel runs nothing.
 */
export const SaveDialog = ({ statements, transactional, onApply, onClose }: {
  readonly statements: ReadonlyArray<string>
  readonly transactional: boolean
  readonly onApply: () => Promise<{ readonly ok: boolean; readonly results: ReadonlyArray<StatementResult> }>
  readonly onClose: (saved: boolean) => void
}) => {
  const [running, setRunning] = useState(false)
  const [results, setResults] = useState<ReadonlyArray<StatementResult>>()
  const [error, setError] = useState<string>()
  const apply = () => {
    setRunning(true)
    setError(undefined)
    onApply().then(
      (outcome) => {
        setRunning(false)
        if (outcome.ok) onClose(true)
        else setResults(outcome.results)
      },
      (e: Error) => { setRunning(false); setError(e.message) }
    )
  }
  const failed = results?.filter((result) => result.error !== null).length ?? 0
  return (
    <Dialog title={`Save ${statements.length} change${statements.length === 1 ? "" : "s"}`} onClose={() => onClose(false)} wide>
      <p className="note">
        {transactional
          ? "These statements run in one transaction: all of them are kept, or none."
          : "Each request runs on its own (the search engine has no transactions)."}
      </p>
      <ol className="statements" aria-label="Statements">
        {statements.map((statement, index) => {
          const result = results?.[index]
          return (
            <li key={index} className={result?.error != null ? "failed" : undefined}>
              <pre className="block">{statement}</pre>
              {result?.error != null && <div className="error" role="alert">{result.error}</div>}
              {result !== undefined && result.error === null && <span className="note">{transactional ? "ran, then rolled back" : "applied"}</span>}
            </li>
          )
        })}
      </ol>
      {results !== undefined && (
        <div className="error" role="alert">
          {transactional
            ? `${failed} of ${statements.length} statements failed, so nothing was saved. Your pending changes are kept: fix them and save again, or Discard.`
            : `${failed} of ${statements.length} requests failed; the others were applied. Reload to see the current rows.`}
        </div>
      )}
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button onClick={() => onClose(false)} data-autofocus>{results === undefined ? "Cancel" : "Close"}</button>
        {results === undefined && <button className="primary" onClick={apply} disabled={running}>{running ? "Applying…" : "Apply"}</button>}
      </div>
    </Dialog>
  )
}
