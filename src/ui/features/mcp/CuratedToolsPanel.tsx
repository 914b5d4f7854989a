import { useState } from "react"
import { call, useLoad } from "../../api.ts"

/** Curated tools (D-90): the saved statements AI clients call by name, with their parameters; disable or enable one. */
export const CuratedToolsPanel = () => {
  const curated = useLoad((client) => client.mcp.curatedTools(), [])
  const [error, setError] = useState<string>()
  const toggle = (name: string, disabled: boolean) => {
    setError(undefined)
    call((client) => client.mcp.setCuratedToolDisabled({ path: { name }, payload: { disabled } })).then(curated.reload, (e: Error) => setError(e.message))
  }
  const tools = curated.data?.tools ?? []
  return (
    <section>
      <h2>Curated tools</h2>
      <p>Saved statements AI clients call by name with typed arguments. Add one with <code>dbdesk tools add</code> or in tools.json.</p>
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
              <td><button onClick={() => toggle(tool.name, tool.disabled !== true)}>{tool.disabled === true ? "Enable" : "Disable"}</button></td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </section>
  )
}
