import { Either } from "effect"
import { useState } from "react"
import type { CuratedToolDefinition } from "../../../domain/CuratedTool.ts"
import { call, useLoad } from "../../api.ts"
import { CuratedToolFields, definitionOf, draftOf, draftReady, parameterNames, type ToolDraft } from "./CuratedToolForm.tsx"

/** A sample argument as typed in the form, in the parameter's JSON type; empty: left out. */
const typed = (type: string, text: string): unknown =>
  type === "integer" || type === "number" ? (Number.isNaN(Number(text)) ? text : Number(text)) : type === "boolean" ? text === "true" : text

/** Test with sample arguments: a reading tool runs once and its rows are shown; a writing one is only checked. */
const TestForm = ({ tool, onClose }: { readonly tool: CuratedToolDefinition; readonly onClose: () => void }) => {
  const [values, setValues] = useState<Record<string, string>>({})
  const [result, setResult] = useState<{ columns: ReadonlyArray<string>; rows: ReadonlyArray<ReadonlyArray<unknown>>; note: string | null }>()
  const [error, setError] = useState<string>()
  const run = () => {
    setError(undefined)
    setResult(undefined)
    const args = Object.fromEntries((tool.parameters ?? []).flatMap((p) => (values[p.name] ?? "") === "" ? [] : [[p.name, typed(p.type, values[p.name]!)]]))
    call((client) => client.mcp.testCuratedTool({ path: { name: tool.name }, payload: { arguments: args } })).then(setResult, (e: Error) => setError(e.message))
  }
  return (
    <div className="card" role="group" aria-label={`Test ${tool.name}`}>
      <div className="row">
        {(tool.parameters ?? []).map((p) => (
          <input key={p.name} aria-label={`Sample ${p.name}`} placeholder={`${p.name} (${p.type}${p.type === "enum" ? `: ${(p.values ?? []).join(" | ")}` : ""})`}
            value={values[p.name] ?? ""} onChange={(e) => setValues({ ...values, [p.name]: e.target.value })} />
        ))}
        <button className="primary" onClick={run}>Run test</button>
        <button onClick={onClose}>Close</button>
      </div>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {result !== undefined && (result.note !== null
        ? <div role="status" aria-label="Test result">{result.note}</div>
        : (
          <table className="list" aria-label="Test result">
            <thead><tr>{result.columns.map((c) => <th key={c}>{c}</th>)}</tr></thead>
            <tbody>{result.rows.map((row, i) => <tr key={i}>{row.map((cell, j) => <td key={j}>{cell === null ? "NULL" : String(cell)}</td>)}</tr>)}</tbody>
          </table>
        ))}
    </div>
  )
}

/**
 * Edit: the form of the console's Save dialog, on the tool as tools.json holds it (its statement or search kept); the
 * server checks the result as a whole before writing it in the tool's place.
 */
const EditForm = ({ tool, taken, onClose, onSaved }: {
  readonly tool: CuratedToolDefinition
  readonly taken: ReadonlyArray<string>
  readonly onClose: () => void
  readonly onSaved: (message: string) => void
}) => {
  const [draft, setDraft] = useState<ToolDraft>(() => draftOf(tool))
  const [error, setError] = useState<string>()
  const connections = useLoad((client) => client.connections.list(), [])
  const connection = (connections.data ?? []).find((c) => c.id === tool.connection) ?? (connections.data ?? []).find((c) => c.name === tool.connection)
  const found = tool.sql === undefined || connection === undefined || connection.type === "search"
    ? Either.right((tool.parameters ?? []).map((p) => p.name))
    : parameterNames(tool.sql, connection.type)
  const names = Either.getOrElse(found, () => [] as ReadonlyArray<string>)
  const namesProblem = Either.isLeft(found) ? found.left : undefined
  const save = () => {
    setError(undefined)
    const next = definitionOf(draft, names, tool)
    if (Either.isLeft(next)) return setError(next.left)
    call((client) => client.mcp.saveCuratedTool({ payload: { tool: next.right, replacing: tool.name } })).then((saved) => onSaved(saved.message), (e: Error) => setError(e.message))
  }
  const ready = draftReady(draft, taken, namesProblem)
  return (
    <div className="card" role="group" aria-label={`Edit ${tool.name}`}
      onKeyDown={(e) => { if (e.key === "Escape") onClose(); else if (e.key === "Enter" && (e.metaKey || e.ctrlKey) && ready) { e.preventDefault(); save() } }}>
      {tool.sql !== undefined ? <pre className="mono">{tool.sql}</pre> : <p className="muted">Searches {tool.search?.collection}; its filters are edited in tools.json.</p>}
      <CuratedToolFields draft={draft} onChange={setDraft} names={names} namesProblem={namesProblem} taken={taken} />
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      <div className="row">
        <button className="primary" disabled={!ready} onClick={save}>Save changes</button>
        <button onClick={onClose}>Cancel</button>
      </div>
    </div>
  )
}

/** Curated tools (D-90): the saved statements AI clients call by name, with their parameters; edit, test, disable or enable one. */
export const CuratedToolsPanel = () => {
  const curated = useLoad((client) => client.mcp.curatedTools(), [])
  const [error, setError] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const [testing, setTesting] = useState<string>()
  const [editing, setEditing] = useState<string>()
  const toggle = (name: string, disabled: boolean) => {
    setError(undefined)
    call((client) => client.mcp.setCuratedToolDisabled({ path: { name }, payload: { disabled } })).then(curated.reload, (e: Error) => setError(e.message))
  }
  const tools = curated.data?.tools ?? []
  return (
    <section>
      <h2>Curated tools</h2>
      <p>Saved statements AI clients call by name with typed arguments. Add one from the console (Save query, then Expose to AI clients), with <code>dbdesk tools add</code> or in tools.json.</p>
      {(curated.error ?? error ?? curated.data?.problem ?? undefined) !== undefined && (
        <div className="error" role="alert">{curated.error ?? error ?? curated.data?.problem}</div>
      )}
      {tools.length === 0 ? <p>No curated tools yet.</p> : (
        <table className="list" aria-label="Curated tools">
          <thead><tr><th>Name</th><th>Connection</th><th>Parameters</th><th>Runs</th><th>State</th><th></th></tr></thead>
          <tbody>{tools.map((tool) => (
            <tr key={tool.name}>
              <td title={tool.description}>{tool.name}</td>
              <td>{tool.connection}</td>
              <td>{(tool.parameters ?? []).map((p) => `${p.name}: ${p.type}${p.default === undefined ? "" : ` = ${String(p.default)}`}`).join(", ") || "none"}</td>
              <td>{tool.search !== undefined ? `search in ${tool.search.collection}` : <code>{tool.sql}</code>}{tool.approvedInAdvance === true ? " (approved in advance)" : ""}</td>
              <td>{tool.disabled === true ? "disabled" : "offered"}</td>
              <td>
                <button onClick={() => { setTesting(undefined); setEditing(tool.name) }}>Edit</button>
                <button onClick={() => { setEditing(undefined); setTesting(tool.name) }}>Test</button>
                <button onClick={() => toggle(tool.name, tool.disabled !== true)}>{tool.disabled === true ? "Enable" : "Disable"}</button>
              </td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {notice !== undefined && <div className="muted" role="status" aria-label="Saved">{notice}</div>}
      {tools.filter((tool) => tool.name === editing).map((tool) => (
        <EditForm key={tool.name} tool={tool} taken={tools.map((other) => other.name).filter((name) => name !== tool.name)} onClose={() => setEditing(undefined)}
          onSaved={(message) => { setEditing(undefined); setNotice(message); curated.reload() }} />
      ))}
      {tools.filter((tool) => tool.name === testing).map((tool) => <TestForm key={tool.name} tool={tool} onClose={() => setTesting(undefined)} />)}
    </section>
  )
}
