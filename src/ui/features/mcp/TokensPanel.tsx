import { useState } from "react"
import type { UiCreatedToken } from "../../../domain/UiSchemas.ts"
import { call, useLoad } from "../../api.ts"

/** Tokens (D-36): create shows the value once, revoke. */
export const TokensPanel = () => {
  const tokens = useLoad((client) => client.mcp.tokens({ urlParams: {} }), [])
  const connections = useLoad((client) => client.connections.list(), [])
  const [name, setName] = useState("")
  const [access, setAccess] = useState<"readOnly" | "readWrite" | "fullAccess">("readOnly")
  const [scope, setScope] = useState<string>("all")
  const [days, setDays] = useState("")
  const [toolset, setToolset] = useState("")
  const [created, setCreated] = useState<UiCreatedToken>()
  const [error, setError] = useState<string>()
  const create = () => {
    setError(undefined)
    call((client) => client.mcp.createToken({ payload: { name, access, connections: scope === "all" ? "all" : [scope], expiresInDays: days === "" ? null : Number(days), tools: toolset.split(",").map((t) => t.trim()).filter((t) => t !== "") } })).then(
      (r) => { setCreated(r); setName(""); tokens.reload() },
      (e: Error) => setError(e.message)
    )
  }
  const revoke = (id: string, tokenName: string) => {
    if (!window.confirm(`Revoke ${tokenName}? Its running requests are cancelled and clients using it lose access.`)) return
    call((client) => client.mcp.revokeToken({ path: { id } })).then(tokens.reload, (e: Error) => setError(e.message))
  }
  return (
    <section>
      <h2>Tokens</h2>
      {created !== undefined && (
        <div className="card" role="status" aria-label="New token">
          <strong>Token {created.token.name} created.</strong> Copy the value now: dbdesk keeps only a hash and cannot show it again.
          <pre className="block" aria-label="Token value">{created.value}</pre>
          <div className="row">
            <button onClick={() => void navigator.clipboard?.writeText(created.value)}>Copy</button>
            <button onClick={() => setCreated(undefined)}>I have copied it</button>
          </div>
        </div>
      )}
      {(tokens.error ?? error) !== undefined && <div className="error" role="alert">{tokens.error ?? error}</div>}
      <table className="list" aria-label="Tokens">
        <thead><tr><th>Name</th><th>Prefix</th><th>Access</th><th>Connections</th><th>Tools</th><th>Created</th><th>Last used</th><th>Expires</th><th>State</th><th></th></tr></thead>
        <tbody>{(tokens.data ?? []).map((t) => (
          <tr key={t.id}>
            <td>{t.name}</td><td><code>{t.prefix}…</code></td><td>{t.access}</td>
            <td>{t.connections === "all" ? "all" : t.connections.map((id) => connections.data?.find((c) => c.id === id)?.name ?? id).join(", ")}</td>
            <td>{t.tools === undefined ? "all" : t.tools.join(", ")}</td>
            <td>{new Date(t.createdAt).toLocaleString()}</td><td>{t.lastUsedAt === null ? "never" : new Date(t.lastUsedAt).toLocaleString()}</td>
            <td>{t.expiresAt === null ? "never" : new Date(t.expiresAt).toLocaleDateString()}</td><td>{t.state}</td>
            <td>{t.state === "active" && <button onClick={() => revoke(t.id, t.name)}>Revoke</button>}</td>
          </tr>
        ))}</tbody>
      </table>
      <div className="card" style={{ marginTop: 12 }}>
        <h3>New token</h3>
        <div className="row">
          <input aria-label="Token name" placeholder="Name (e.g. Claude Desktop)" value={name} onChange={(e) => setName(e.target.value)} />
          <select aria-label="Access level" value={access} onChange={(e) => setAccess(e.target.value as typeof access)}>
            <option value="readOnly">Read only</option><option value="readWrite">Read and write</option><option value="fullAccess">Full access</option>
          </select>
          <select aria-label="Token connections" value={scope} onChange={(e) => setScope(e.target.value)}>
            <option value="all">All connections</option>
            {(connections.data ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
          </select>
          <input aria-label="Token tools" list="toolset-presets" placeholder="Tools (empty: all; lean; or names, comma-separated)" value={toolset} onChange={(e) => setToolset(e.target.value)} />
          <datalist id="toolset-presets"><option value="lean">list_connections, describe_table, execute_query and the curated tools</option></datalist>
          <input aria-label="Expires in days" type="number" min={1} placeholder="Expires in days (empty: never)" value={days} onChange={(e) => setDays(e.target.value)} />
          <button className="primary" onClick={create}>Create token</button>
        </div>
      </div>
    </section>
  )
}
