import { Schema } from "effect"
import { useEffect, useRef, useState } from "react"
import type { PendingApproval } from "../../../domain/Approval.ts"
import { UiEvent } from "../../../domain/UiSchemas.ts"
import { call } from "../../api.ts"
import { PreviewBlock } from "./PreviewBlock.tsx"

const decodeEvent = Schema.decodeUnknownOption(Schema.parseJson(UiEvent))

/**
 * The app's own dialog (D-25): every call waiting for the user appears here, pushed over SSE, one at
 * a time in arrival order; the statement is shown whole as a block; Deny is the default (focus, Escape).
 */
export const ApprovalModal = () => {
  const [queue, setQueue] = useState<ReadonlyArray<PendingApproval>>([])
  const [error, setError] = useState<string>()
  const [connected, setConnected] = useState(true)
  const denyRef = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    const source = new EventSource("/api/events")
    source.onopen = () => setConnected(true)
    source.onerror = () => setConnected(false)
    source.onmessage = (message) => {
      const event = decodeEvent(message.data)
      if (event._tag === "None") return
      const value = event.value
      if (value._tag === "Snapshot") setQueue(value.approvals)
      else if (value._tag === "Pending") setQueue((list) => [...list.filter((a) => a.id !== value.approval.id), value.approval])
      else setQueue((list) => list.filter((a) => a.id !== value.id))
    }
    return () => source.close()
  }, [])

  const current = queue[0]
  useEffect(() => {
    document.title = queue.length > 0 ? `(${queue.length}) Approval needed · dbdesk` : "dbdesk"
    if (current !== undefined) denyRef.current?.focus()
  }, [current?.id, queue.length])

  if (current === undefined) return connected ? null : <div className="error" style={{ position: "fixed", bottom: 8, right: 8 }}>Approval dialogs are not reaching this page; reload it.</div>

  const answer = (decision: "approved" | "denied") => {
    setError(undefined)
    call((client) => client.mcp.answer({ path: { id: current.id }, payload: { decision } })).then(
      (result) => {
        if (!result.answered) setError("This request is no longer waiting (it ended or was answered elsewhere).")
        setQueue((list) => list.filter((a) => a.id !== current.id))
      },
      (e: Error) => setError(e.message)
    )
  }

  return (
    <div className="modal-back" onKeyDown={(e) => e.key === "Escape" && answer("denied")}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="approval-title">
        <h2 id="approval-title">{current.message}</h2>
        {current.kind === "host_key" ? <p>dbdesk is connecting to <strong>{current.connectionName}</strong> through SSH. Accept the key only if its fingerprint matches the host's; a wrong key can mean someone is intercepting the connection.</p> : <p>
          <strong>{current.client ?? "An MCP client"}</strong> using token <strong>{current.principal}</strong> on <strong>{current.connectionName}</strong>
          {queue.length > 1 && <span className="badge warn" style={{ marginLeft: 8 }}>{queue.length - 1} more waiting</span>}
        </p>}
        {current.statement !== undefined
          ? <pre className="block" aria-label="Statement">{current.statement}</pre>
          : current.kind === "host_key" ? null : (
            <>
              <p>It asks to use this connection{current.wants === undefined ? "." : ", to run:"}</p>
              {current.wants !== undefined && <pre className="block" aria-label="What it wants to run">{current.wants}</pre>}
              <p className="note">
                Allowing it lets this client use '{current.connectionName}'; whether you are asked again is set in MCP › Settings › Connection approval. A
                statement that changes data is still asked about on its own.
              </p>
            </>
          )}
        {current.preview !== undefined && <PreviewBlock preview={current.preview} />}
        <p className="note">Requested {new Date(current.requestedAt).toLocaleTimeString()}. Closing this dialog denies the request.</p>
        {error !== undefined && <div className="error">{error}</div>}
        <div className="row" style={{ justifyContent: "flex-end" }}>
          <button ref={denyRef} onClick={() => answer("denied")} autoFocus>Deny</button>
          <button className="primary" onClick={() => answer("approved")}>Approve</button>
        </div>
      </div>
    </div>
  )
}
