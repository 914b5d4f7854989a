import type { UiConsoleResult } from "../../../domain/UiSchemas.ts"
import { ExportButton } from "../export/ExportDialog.tsx"
import { ResultView } from "./ResultView.tsx"

export interface ResultTab {
  readonly id: number
  readonly text: string
  readonly result?: UiConsoleResult
  readonly error?: string
  /** The user stopped it: not an error. */
  readonly cancelled?: string
}

/** A tab's name: the first words of its statement. */
export const tabName = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim().replace(/;$/, "")
  return flat.length > 32 ? `${flat.slice(0, 31)}…` : flat
}

/** One tab per statement run, named after it; an error is marked, a cancelled run is only greyed. */
export const ResultTabs = ({ tabs, active, onActive, onClose, dialect, exportFrom }: {
  readonly tabs: ReadonlyArray<ResultTab>
  readonly active: number | undefined
  readonly onActive: (id: number) => void
  readonly onClose: (id: number) => void
  readonly dialect: "sqlite" | "postgresql" | "mysql" | undefined
  /** The connection a grid result can be exported from (D-92): its statement is run again into a file. */
  readonly exportFrom?: string
}) => {
  const current = tabs.find((tab) => tab.id === active) ?? tabs[0]
  if (current === undefined) return null
  return (
    <>
      <div className="tabs result-tabs" role="tablist" aria-label="Results">
        {tabs.map((tab) => (
          <span key={tab.id} className={`result-tab${tab.error === undefined ? "" : " failed"}${tab.cancelled === undefined ? "" : " cancelled"}`}>
            <button role="tab" aria-selected={tab.id === current.id} onClick={() => onActive(tab.id)} title={tab.text}>
              {tab.error !== undefined && <span aria-hidden="true">⚠ </span>}{tabName(tab.text)}
            </button>
            <button aria-label={`Close ${tabName(tab.text)}`} onClick={() => onClose(tab.id)}>✕</button>
          </span>
        ))}
      </div>
      {current.error !== undefined && <div className="error" role="alert">{current.error}</div>}
      {current.cancelled !== undefined && <p className="note" role="status">{current.cancelled}</p>}
      {exportFrom !== undefined && current.result?._tag === "Grid" && current.result.columns.length > 0 && (
        <div className="row toolbar" role="toolbar" aria-label="Result"><ExportButton connectionId={exportFrom} target={{ kind: "query", query: current.text }} /></div>
      )}
      {current.result !== undefined && <ResultView key={current.id} result={current.result} dialect={dialect} />}
    </>
  )
}
