import { Fragment, type RefObject, useEffect, useRef, useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call, type Loaded, useLoad } from "../../api.ts"
import { ConnectionForm } from "./ConnectionForm.tsx"
import { groupConnections, matchesSearch, whereOf } from "./connectionGroups.ts"
import { ConnectionMark } from "./ConnectionMark.tsx"
import { CopyUrlButton } from "./CopyAsUrl.tsx"
import { AI_POLICY, CONFIRM_QUERIES, EXTERNAL_ACCESS, labelOf } from "./labels.ts"
import { TestResult, type TestState } from "./TestResult.tsx"

const kindLabel = { sqlite: "SQLite", postgresql: "PostgreSQL", mysql: "MySQL / MariaDB", search: "Typesense" } as const

/** Cmd/Ctrl+F on the list focuses its search box, as the grid's filter bar takes it on a table. */
const useFindKey = (box: RefObject<HTMLInputElement | null>, active: boolean) => {
  useEffect(() => {
    if (!active) return
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "f" && !event.defaultPrevented) {
        event.preventDefault()
        box.current?.focus()
        box.current?.select()
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [box, active])
}

/**
 * Connections (D-60): the list with a search box and collapsible groups (D-103), Duplicate and Copy as URL on each
 * row; a driver chooser with the install step; the form.
 */
export const ConnectionsView = ({ connections, onOpen }: { readonly connections: Loaded<ReadonlyArray<UiConnection>>; readonly onOpen: (c: UiConnection) => void }) => {
  const [editing, setEditing] = useState<UiConnection | "new" | { readonly copyOf: UiConnection } | undefined>()
  const [query, setQuery] = useState("")
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set())
  const [copied, setCopied] = useState<string>()
  const searchBox = useRef<HTMLInputElement>(null)
  useFindKey(searchBox, editing === undefined)
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
    const done = () => { setEditing(undefined); connections.reload() }
    if (editing !== "new" && "copyOf" in editing) return <ConnectionForm connection={undefined} copyOf={editing.copyOf} onDone={done} />
    return <ConnectionForm connection={editing === "new" ? undefined : editing} onDone={done} />
  }
  const all = connections.data ?? []
  const shown = all.filter((c) => matchesSearch(c, kindLabel[c.type], query))
  const groups = groupConnections(shown)
  const grouped = all.some((c) => c.group !== undefined && c.group !== "")
  const toggle = (group: string) => setCollapsed((set) => {
    const next = new Set(set)
    if (!next.delete(group)) next.add(group)
    return next
  })
  /** A connection's row, and under it the result of its Test when there is one. */
  const rowsOf = (c: UiConnection) => {
    const state = status[c.id]
    return [
      <tr key={c.id} className="connection-row">
        <td className="nowrap"><ConnectionMark connection={c} /> <button className="link" onClick={() => onOpen(c)}>{c.name}</button></td>
        <td className="nowrap">{kindLabel[c.type]}</td>
        <td className="note where">{whereOf(c)}</td>
        <td>{labelOf(EXTERNAL_ACCESS, c.externalAccess)}</td><td>{labelOf(AI_POLICY, c.aiPolicy)}</td><td>{labelOf(CONFIRM_QUERIES, c.confirmQueries)}</td>
        <td className="actions">
          <button onClick={() => onOpen(c)}>Open</button>
          <button onClick={() => test(c)} aria-label={`Test ${c.name}`}>Test</button>
          <button onClick={() => setEditing(c)}>Edit</button>
          <button onClick={() => setEditing({ copyOf: c })} aria-label={`Duplicate ${c.name}`} title="A new connection with the same settings, except the password">Duplicate</button>
          <CopyUrlButton connection={c} onCopied={setCopied} />
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
      <div className="row" style={{ marginBottom: 6 }}>
        <input
          ref={searchBox}
          type="search"
          aria-label="Search connections"
          placeholder="Search by name, group, type, host or file (Cmd/Ctrl+F)"
          style={{ flex: 1, maxWidth: 420 }}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => { if (e.key === "Escape" && query !== "") { e.preventDefault(); setQuery("") } }}
        />
        {copied !== undefined && <span className="note" role="status">{copied}</span>}
      </div>
      {query !== "" && shown.length === 0 && all.length > 0 && <p className="note" role="status">No connection matches '{query}'.</p>}
      <table className="list" aria-label="Connections">
        <thead><tr><th>Name</th><th>Type</th><th>Where</th><th>External access</th><th>AI policy</th><th>Confirm queries</th><th></th></tr></thead>
        {groups.map(([group, members]) => {
          // a search shows its matches in collapsed groups too
          const open = group === undefined || query !== "" || !collapsed.has(group)
          return (
            <Fragment key={group ?? ""}>
              {grouped && (
                <tbody>
                  <tr className="group-row">
                    <th colSpan={7}>
                      {group === undefined ? <span className="note">No group ({members.length})</span> : (
                        <button className="link" aria-expanded={open} onClick={() => toggle(group)}>{open ? "▾" : "▸"} {group} ({members.length})</button>
                      )}
                    </th>
                  </tr>
                </tbody>
              )}
              {open && <tbody aria-label={group === undefined ? undefined : `Group ${group}`}>{members.flatMap(rowsOf)}</tbody>}
            </Fragment>
          )
        })}
      </table>
    </section>
  )
}

export const useDrivers = () => useLoad((client) => client.connections.drivers(), [])
