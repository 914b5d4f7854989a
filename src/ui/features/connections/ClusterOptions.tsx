import type { UiConnectionInput } from "../../../domain/UiSchemas.ts"
import { NodesPanel } from "../search/NodesPanel.tsx"

type ClusterField = "healthcheckIntervalSeconds" | "numRetries" | "retryIntervalSeconds" | "connectionTimeoutSeconds"

const NUMBERS: ReadonlyArray<readonly [ClusterField, string, string]> = [
  ["healthcheckIntervalSeconds", "Health-check interval (s)", "60"],
  ["numRetries", "Retries", "one per node"],
  ["retryIntervalSeconds", "Retry interval (s)", "0.1"],
  ["connectionTimeoutSeconds", "Connection timeout (s)", "5"]
]

/**
 * A Typesense cluster on the connection form's Options tab (D-59): more nodes and a nearest node as URLs,
 * the official client's retry and health-check settings (empty: its defaults), and each saved node's health.
 */
export const ClusterOptions = ({ form, set, connectionId }: {
  readonly form: UiConnectionInput
  readonly set: (patch: Partial<UiConnectionInput>) => void
  readonly connectionId: string | undefined
}) => (
  <fieldset aria-label="Cluster">
    <legend>Cluster (the host and port above are node 1)</legend>
    <div className="form-grid">
      <label className="field">More nodes<input aria-label="More nodes" value={form.nodes ?? ""} placeholder="https://node2.example.com:443, https://node3.example.com:443" onChange={(e) => set({ nodes: e.target.value })} /></label>
      <label className="field">Nearest node<input aria-label="Nearest node" value={form.nearestNode ?? ""} placeholder="optional, e.g. https://nearest.example.com:443" onChange={(e) => set({ nearestNode: e.target.value })} /></label>
      {NUMBERS.map(([field, label, placeholder]) => (
        <label className="field" key={field}>{label}<input aria-label={label} type="number" step="any" value={form[field] ?? ""} placeholder={placeholder} onChange={(e) => set({ [field]: e.target.value === "" ? undefined : Number(e.target.value) })} /></label>
      ))}
      <label className="row"><input type="checkbox" checked={form.randomizeNodes ?? true} onChange={(e) => set({ randomizeNodes: e.target.checked })} /> Shuffle the node order once (as the official client does)</label>
    </div>
    {connectionId !== undefined && <NodesPanel connectionId={connectionId} />}
  </fieldset>
)
