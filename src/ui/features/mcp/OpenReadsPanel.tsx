import { useState } from "react"
import { call, useLoad } from "../../api.ts"

/** Seconds from now to `iso`, as people read them. */
const inSeconds = (iso: string, now: number) => `${Math.max(0, Math.round((Date.parse(iso) - now) / 1000))} s`
const age = (iso: string, now: number) => `${Math.max(0, Math.round((now - Date.parse(iso)) / 1000))} s`

/** D-93: the answers an AI client has not read to the end, each keeping its database session; Close ends one. */
export const OpenReadsPanel = () => {
  const reads = useLoad((client) => client.mcp.continuations(), [])
  const [error, setError] = useState<string>()
  const now = Date.now()
  const close = (id: string) => call((client) => client.mcp.closeContinuation({ path: { id } })).then(reads.reload, (e: Error) => setError(e.message))
  return (
    <section>
      <div className="row"><h2>Open reads</h2><button onClick={reads.reload}>Refresh</button></div>
      <p className="note">Answers cut at their size that an AI client can still read on. Each keeps a database session until it is read to the end, left unused too long, or closed here.</p>
      {(reads.error ?? error) !== undefined && <div className="error" role="alert">{reads.error ?? error}</div>}
      <table className="list" aria-label="Open reads">
        <thead><tr><th>Connection</th><th>Token</th><th>Statement</th><th>Rows so far</th><th>Open for</th><th>Ends in</th><th></th></tr></thead>
        <tbody>{(reads.data ?? []).map((read) => (
          <tr key={read.id}>
            <td>{read.connection}</td><td>{read.caller}</td><td><code>{read.statement}</code></td><td>{read.rows}</td>
            <td>{age(read.openedAt, now)}</td><td>{inSeconds(read.expiresAt, now)}</td>
            <td><button onClick={() => void close(read.id)}>Close</button></td>
          </tr>
        ))}</tbody>
      </table>
      {reads.data?.length === 0 && <p className="muted">No open reads.</p>}
    </section>
  )
}
