import { useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call, useLoad } from "../../api.ts"

const TEMPLATES = {
  search: { label: "Search only", actions: ["documents:search"] },
  read: { label: "Read only", actions: ["documents:search", "documents:get", "documents:export", "collections:get", "collections:list"] },
  admin: { label: "Admin (everything)", actions: ["*"] }
} as const

/** Users & Roles (doc 2 §2.3): API keys listed, created (value shown once), deleted; keys cannot be edited. */
export const UsersRolesView = ({ connection }: { readonly connection: UiConnection }) => {
  const keys = useLoad((client) => client.search.keys({ path: { id: connection.id } }), [connection.id])
  const [description, setDescription] = useState("")
  const [template, setTemplate] = useState<keyof typeof TEMPLATES>("search")
  const [collections, setCollections] = useState("*")
  const [created, setCreated] = useState<{ name: string; value: string }>()
  const [error, setError] = useState<string>()
  const create = () => {
    setError(undefined)
    call((client) => client.search.createKey({
      path: { id: connection.id },
      payload: { description, actions: TEMPLATES[template].actions, collections: collections.split(",").map((c) => c.trim()).filter((c) => c !== "") }
    })).then((r) => { setCreated({ name: r.key.name, value: r.value }); setDescription(""); keys.reload() }, (e: Error) => setError(e.message))
  }
  const remove = (id: number, name: string) => {
    if (!window.confirm(`Delete the key ${name}? Clients using it stop working at once.`)) return
    call((client) => client.search.deleteKey({ path: { id: connection.id, keyId: id } })).then(keys.reload, (e: Error) => setError(e.message))
  }
  return (
    <section>
      <h2>Users &amp; Roles</h2>
      {created !== undefined && (
        <div className="card" role="status">
          <strong>Key {created.name} created.</strong> Copy it now: Typesense never shows it again.
          <pre className="block" aria-label="New key value">{created.value}</pre>
          <button onClick={() => setCreated(undefined)}>I have copied it</button>
        </div>
      )}
      {keys.error !== undefined && <div className="error">{keys.error}</div>}
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      <table className="list" aria-label="API keys">
        <thead><tr><th>Key</th><th>Starts with</th><th>Actions</th><th>Collections</th><th>Expires</th><th></th></tr></thead>
        <tbody>{(keys.data ?? []).map((k) => (
          <tr key={k.id}>
            <td>{k.name}</td><td><code>{k.valuePrefix}…</code></td><td>{k.actions.join(", ")}</td>
            <td>{k.serverWide ? <span className="badge">server-wide</span> : k.collections.join(", ")}</td>
            <td>{k.expiresAt === undefined || k.expiresAt > 4e10 ? "never" : new Date(k.expiresAt * 1000).toLocaleDateString()}</td>
            <td><button onClick={() => remove(k.id, k.name)}>Delete</button></td>
          </tr>
        ))}</tbody>
      </table>
      {keys.loading && <p className="progress">Loading keys…</p>}
      <div className="card" style={{ marginTop: 12 }} aria-label="New key">
        <h3>New key</h3>
        <div className="row">
          <input aria-label="Key description" placeholder="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
          <select aria-label="Key template" value={template} onChange={(e) => setTemplate(e.target.value as keyof typeof TEMPLATES)}>
            {Object.entries(TEMPLATES).map(([id, t]) => <option key={id} value={id}>{t.label}</option>)}
          </select>
          <input aria-label="Key collections" value={collections} onChange={(e) => setCollections(e.target.value)} title="Comma-separated; * for every collection" />
          <button className="primary" onClick={create}>Create key</button>
        </div>
        <p className="note">Keys cannot be edited: create a new one and delete the old one when clients have moved.</p>
      </div>
    </section>
  )
}
