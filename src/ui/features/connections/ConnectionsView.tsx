import { useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call, type Loaded, useLoad } from "../../api.ts"
import { ConnectionForm } from "./ConnectionForm.tsx"

const kindLabel = { sqlite: "SQLite", postgresql: "PostgreSQL", mysql: "MySQL / MariaDB", search: "Typesense" } as const

/** Connections (product-decisions §9 point 1): the list, a driver chooser with the install step, the form. */
export const ConnectionsView = ({ connections, onOpen }: { readonly connections: Loaded<ReadonlyArray<UiConnection>>; readonly onOpen: (c: UiConnection) => void }) => {
  const [editing, setEditing] = useState<UiConnection | "new" | undefined>()
  const [error, setError] = useState<string>()
  const [status, setStatus] = useState<Record<string, string>>({})
  const remove = (connection: UiConnection) => {
    if (!window.confirm(`Remove the connection '${connection.name}'? The database itself is not touched.`)) return
    call((client) => client.connections.remove({ path: { id: connection.id } })).then(connections.reload, (e: Error) => setError(e.message))
  }
  const test = (connection: UiConnection) => {
    setStatus((s) => ({ ...s, [connection.id]: "Testing…" }))
    call((client) => client.connections.test({ path: { id: connection.id } })).then(
      (result) => setStatus((s) => ({ ...s, [connection.id]: result.message })),
      (e: Error) => setStatus((s) => ({ ...s, [connection.id]: e.message }))
    )
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
          {(connections.data ?? []).map((c) => (
            <tr key={c.id}>
              <td><button onClick={() => onOpen(c)} style={{ border: "none", color: "#2456d3", padding: 0 }}>{c.name}</button></td>
              <td>{kindLabel[c.type]}</td>
              <td className="note">{c.path ?? `${c.host ?? ""}:${c.port ?? ""}${c.database === undefined ? "" : `/${c.database}`}`}{status[c.id] !== undefined && <div>{status[c.id]}</div>}</td>
              <td>{c.externalAccess}</td><td>{c.aiPolicy}</td><td>{c.confirmQueries}</td>
              <td className="row">
                <button onClick={() => onOpen(c)}>Open</button>
                <button onClick={() => test(c)}>Test</button>
                <button onClick={() => setEditing(c)}>Edit</button>
                <button onClick={() => remove(c)}>Remove</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

export const useDrivers = () => useLoad((client) => client.connections.drivers(), [])
