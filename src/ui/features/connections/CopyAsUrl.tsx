import { useState } from "react"
import { connectionUrl } from "../../../domain/ConnectionUrl.ts"
import type { UiConnection } from "../../../domain/UiSchemas.ts"

/** "Copy as URL": the saved connection as a URL without its password (dbdesk keeps that), for psql, mysql or a script. */
export const CopyAsUrl = ({ connection }: { readonly connection: UiConnection }) => {
  const [copied, setCopied] = useState<string>()
  const url = connectionUrl(connection)
  if (url === undefined) return null
  const copy = () => {
    const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard
    if (clipboard === undefined) return setCopied("Select the URL and copy it.")
    clipboard.writeText(url).then(() => setCopied("Copied (without the password)."), () => setCopied("The browser refused the clipboard: select the URL and copy it."))
  }
  return (
    <div className="row" style={{ marginTop: 8 }}>
      <input aria-label="URL without the password" readOnly style={{ flex: 1 }} value={url} onFocus={(e) => e.target.select()} />
      <button onClick={copy}>Copy as URL</button>
      {copied !== undefined && <span className="note" role="status">{copied}</span>}
    </div>
  )
}

/** "Copy as URL" on a row of the list: the URL without the password goes to the clipboard; the status says so. */
export const CopyUrlButton = ({ connection, onCopied }: { readonly connection: UiConnection; readonly onCopied: (message: string) => void }) => {
  const url = connectionUrl(connection)
  if (url === undefined) return null
  const copy = () => {
    const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard
    if (clipboard === undefined) return onCopied(`The browser has no clipboard here: Edit shows the URL to copy.`)
    clipboard.writeText(url).then(
      () => onCopied(`Copied the URL of '${connection.name}' (without the password).`),
      () => onCopied("The browser refused the clipboard: Edit shows the URL to copy.")
    )
  }
  return <button onClick={copy} aria-label={`Copy ${connection.name} as URL`} title="Copies the connection's URL without its password">Copy as URL</button>
}
