import { type ApprovalPreview, estimateLines, previewHeadline, previewRowText } from "../../../domain/ApprovalPreview.ts"

/** The dry run shown in the approval dialog (D-69): what the statement would change, rolled back. */
export const PreviewBlock = ({ preview }: { readonly preview: ApprovalPreview }) => {
  if (preview._tag === "Estimate") {
    return <div className="card" aria-label="Estimate">{estimateLines(preview).map((line) => <p key={line}>{line}</p>)}</div>
  }
  if (preview._tag !== "Changes") {
    return <p className="note" aria-label="Preview">{preview._tag === "Unavailable" ? "Preview unavailable" : "No preview"}: {preview.reason}.</p>
  }
  const more = preview.count - preview.rows.length
  return (
    <div className="card" aria-label="Preview">
      <strong>Dry run (rolled back): {previewHeadline(preview)}.</strong>
      {preview.rows.length > 0 && (
        <ul className="block">
          {preview.rows.map((row, index) => <li key={index}>{previewRowText(preview.columns, row, preview.action)}</li>)}
          {more > 0 && <li className="muted">… and {more.toLocaleString()} more</li>}
        </ul>
      )}
      {preview.note !== undefined && <p className="note">{preview.note}</p>}
    </div>
  )
}
