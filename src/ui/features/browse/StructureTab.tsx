import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { useLoad } from "../../api.ts"

/** Structure: read-only (doc 2 §8 for search; the SQL structure editor is not built). */
export const StructureTab = ({ connection, table }: { readonly connection: UiConnection; readonly table: string }) => {
  const structure = useLoad((client) => client.browse.structure({ path: { id: connection.id, table } }), [connection.id, table])
  if (structure.error !== undefined) return <div className="error">{structure.error}</div>
  if (structure.data === undefined) return <p className="progress">Reading the structure…</p>
  const s = structure.data
  return (
    <div>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <p className="note">Read-only{connection.type === "search" ? ": the structure of a collection is changed from the console." : "."}</p>
        <button onClick={structure.reload}>Reload structure</button>
      </div>
      <table className="list" aria-label="Columns">
        <thead><tr><th>Column</th><th>Type</th><th>Key</th><th>Nullable</th><th>Sortable</th></tr></thead>
        <tbody>{s.columns.map((c) => (
          <tr key={c.name}><td>{c.name}</td><td>{c.type}</td><td>{c.isPrimaryKey ? "primary" : ""}</td><td>{c.nullable ? "yes" : "no"}</td><td>{c.sortable ? "yes" : <span className="muted" title={c.sortNote ?? ""}>no</span>}</td></tr>
        ))}</tbody>
      </table>
      {s.indexes.length > 0 && <><h3>Indexes</h3><ul>{s.indexes.map((i) => <li key={i.name}>{i.name} ({i.columns.join(", ")}){i.unique ? " unique" : ""}</li>)}</ul></>}
      {s.foreignKeys.length > 0 && <><h3>Foreign keys</h3><ul>{s.foreignKeys.map((k) => <li key={k.columns.join()}>{k.columns.join(", ")} → {k.references}</li>)}</ul></>}
      <h3>{connection.type === "search" ? "Collection schema" : "DDL"}</h3>
      <pre className="json">{s.definition}</pre>
    </div>
  )
}
