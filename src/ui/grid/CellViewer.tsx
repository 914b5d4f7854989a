import { useState } from "react"
import type { Cell } from "../../domain/UiSchemas.ts"
import { Dialog } from "../shell/Dialog.tsx"
import { viewerText } from "./cellTypes.ts"

/** The whole value of one cell (long text, JSON pretty-printed, binary as its hex literal) with Copy. */
export const CellViewer = ({ name, value, onClose }: { readonly name: string; readonly value: Cell; readonly onClose: () => void }) => {
  const [copied, setCopied] = useState(false)
  const text = viewerText(value)
  return (
    <Dialog title={`Value of ${name}`} onClose={onClose} wide>
      <pre className={`block${value === null ? " null" : ""}`} aria-label="Cell value">{text}</pre>
      <p className="note">{value === null ? "NULL (no value)" : `${String(value).length.toLocaleString()} characters`}</p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true))}>{copied ? "Copied" : "Copy"}</button>
        <button className="primary" onClick={onClose}>Close</button>
      </div>
    </Dialog>
  )
}
