import type { UiNodeHealth } from "../../../domain/UiSchemas.ts"
import { useLoad } from "../../api.ts"

const clientView = (node: UiNodeHealth) =>
  node.healthy ? "healthy" : `unhealthy${node.checkedAt === null ? "" : ` since ${new Date(node.checkedAt).toLocaleTimeString()}`}${node.lastError === null ? "" : `: ${node.lastError}`}`

/**
 * Each node of a search connection (D-59): whether dbdesk's client counts it healthy (it fails over away
 * from an unhealthy node until the health-check interval passes) and a live `GET /health` to that node alone.
 */
export const NodesPanel = ({ connectionId }: { readonly connectionId: string }) => {
  const nodes = useLoad((client) => client.insight.nodes({ path: { id: connectionId } }), [connectionId])
  return (
    <section aria-label="Nodes">
      <div className="row"><h3>Nodes</h3><button onClick={nodes.reload} disabled={nodes.loading}>Check nodes</button>{nodes.loading && <span className="progress">Checking…</span>}</div>
      {nodes.error !== undefined && <div className="error">{nodes.error}</div>}
      <table className="list" aria-label="Node health">
        <thead><tr><th>Node</th><th>Address</th><th>dbdesk's client</th><th>GET /health</th></tr></thead>
        <tbody>{(nodes.data ?? []).map((node) => (
          <tr key={`${node.label} ${node.url}`}>
            <td>{node.label === "nearest" ? "nearest" : `node ${node.label}`}</td>
            <td><code>{node.url}</code></td>
            <td><span className={node.healthy ? "badge" : "badge warn"}>{clientView(node)}</span></td>
            <td><span className={node.probe.ok ? "badge" : "badge warn"}>{node.probe.ok ? `ok · ${node.probe.ms} ms` : node.probe.message}</span></td>
          </tr>
        ))}</tbody>
      </table>
    </section>
  )
}
