import type { CopyFormat } from "./copyFormats.ts"

/** The line under the grid: where the focus is, how much is selected, copy in four formats, view the cell whole. */
export const GridStatus = ({ position, copied, onCopy, onView }: {
  readonly position: string
  readonly copied: string | undefined
  readonly onCopy: (format: CopyFormat) => void
  readonly onView: (() => void) | undefined
}) => (
  <div className="grid-status" aria-label="Grid status">
    <span>{position}</span>
    <span className="row">
      Copy as
      <button onClick={() => onCopy("tsv")} title="Ctrl/Cmd+C">TSV</button>
      <button onClick={() => onCopy("csv")}>CSV</button>
      <button onClick={() => onCopy("json")}>JSON</button>
      <button onClick={() => onCopy("sql")}>SQL INSERT</button>
      <button onClick={onView} disabled={onView === undefined} title="Shift+Enter">View cell</button>
      {copied !== undefined && <span role="status" className="note">{copied}</span>}
    </span>
  </div>
)
