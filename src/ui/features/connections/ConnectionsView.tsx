import { useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call, type Loaded, useLoad } from "../../api.ts"
import { ConnectionForm } from "./ConnectionForm.tsx"
import { ConnectionMark } from "./ConnectionMark.tsx"
import { AI_POLICY, CONFIRM_QUERIES, EXTERNAL_ACCESS, labelOf } from "./labels.ts"
import { TestResult, type TestState } from "./TestResult.tsx"

const kindLabel = { sqlite: "SQLite", postgresql: "PostgreSQL", mysql: "MySQL / MariaDB", search: "Typesense" } as const

/** Connections (D-60): the list, a driver chooser with the install step, the form. */
export const ConnectionsView = ({ connections, onOpen }: { readonly connections: Loaded<ReadonlyArray<UiConnection>>; readonly onOpen: (c: UiConnection) => void }) => {
  const [editing, setEditing] = useState<UiConnection | "new" | undefined>()
  const [error, setError] = useState<string>()
  const [status, setStatus] = useState<Record<string, TestState>>({})
  const [controllers] = useState(() => new Map<string, AbortController>())
  const remove = (connection: UiConnection) => {
    if (!window.confirm(`Remove the connection '${connection.name}'? The database itself is not touched.`)) return
    call((client) => client.connections.remove({ path: { id: connection.id } })).then(connections.reload, (e: Error) => setError(e.message))
  }
  const test = (connection: UiConnection) => {
    const controller = new AbortController()
    controllers.get(connection.id)?.abort()
    controllers.set(connection.id, controller)
    setStatus((s) => ({ ...s, [connection.id]: { kind: "testing" } }))
    const done = (state: TestState) => { if (!controller.signal.aborted) setStatus((s) => ({ ...s, [connection.id]: state })) }
    call((client) => client.connections.test({ path: { id: connection.id } }), controller.signal).then(
      (result) => done({ kind: result.ok ? "ok" : "failed", message: result.message }),
      (e: Error) => done({ kind: "failed", message: e.message })
    )
  }
  const cancelTest = (id: string) => {
    controllers.get(id)?.abort()
    setStatus((s) => ({ ...s, [id]: { kind: "cancelled", message: "Test cancelled." } }))
  }
  if (editing !== undefined) {
    return <ConnectionForm connection={editing === "new" ? undefined : editing} onDone={() => { setEditing(undefined); connections.reload() }} />
  }
  return (
    <section>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1>Connections</h1>
        <button className="primary" onClick={() => setEditing("new")}>New connection</button>
      </div>
      {connections.error !== undefined && <div className="error">{connections.error}</div>}
      {error !== undefined && <div className="error">{error}</div>}
      {connections.loading && connections.data === undefined && <p className="progress">Loading connections…</p>}
      <table className="list" aria-label="Connections">
        <thead><tr><th>Name</th><th>Type</th><th>Where</th><th>External access</th><th>AI policy</th><th>Confirm queries</th><th></th></tr></thead>
        <tbody>
          {(connections.data ?? []).flatMap((c) => {
            const state = status[c.id]
            return [
              <tr key={c.id} className="connection-row">
                <td className="nowrap"><ConnectionMark connection={c} /> <button className="link" onClick={() => onOpen(c)}>{c.name}</button></td>
                <td className="nowrap">{kindLabel[c.type]}</td>
                <td className="note where">{c.path ?? `${c.host ?? ""}:${c.port ?? ""}${c.database === undefined ? "" : `/${c.database}`}`}</td>
                <td>{labelOf(EXTERNAL_ACCESS, c.externalAccess)}</td><td>{labelOf(AI_POLICY, c.aiPolicy)}</td><td>{labelOf(CONFIRM_QUERIES, c.confirmQueries)}</td>
                <td className="actions">
                  <button onClick={() => onOpen(c)}>Open</button>
                  <button onClick={() => test(c)} aria-label={`Test ${c.name}`}>Test</button>
                  <button onClick={() => setEditing(c)}>Edit</button>
                  <button onClick={() => remove(c)}>Remove</button>
                </td>
              </tr>,
              ...(state === undefined ? [] : [
                <tr key={`${c.id}-status`} className="status-row">
                  <td colSpan={7}>
                    <TestResult state={state} label={`Test of ${c.name}`} onCancel={() => cancelTest(c.id)}>
                      {state.kind === "failed" && <button className="link" onClick={() => setEditing(c)}>Edit the connection</button>}
                    </TestResult>
                  </td>
                </tr>
              ])
            ]
          })}
        </tbody>
      </table>
    </section>
  )
}

export const useDrivers = () => useLoad((client) => client.connections.drivers(), [])
