import { useState } from "react"
import type { PolicyExplanation } from "../../../domain/PolicyExplanation.ts"
import { call, useLoad } from "../../api.ts"

const VERDICT: Record<PolicyExplanation["steps"][number]["verdict"], string> = { pass: "pass", ask: "asks", skip: "skip", refuse: "stops" }

/**
 * The policy explainer in MCP › Settings (issue 28 item 3): what the server would do with a statement from a token,
 * gate by gate with its rule, and the outcome; the same decision the tools enact. Runs nothing.
 */
export const PolicyExplainerPanel = () => {
  const tokens = useLoad((client) => client.mcp.tokens({ urlParams: {} }), [])
  const connections = useLoad((client) => client.connections.list(), [])
  const [tokenId, setTokenId] = useState("")
  const [connectionId, setConnectionId] = useState("")
  const [sql, setSql] = useState("UPDATE orders SET status = 'shipped' WHERE id = 7")
  const [tool, setTool] = useState<"execute_query" | "confirm_destructive_operation">("execute_query")
  const [elicitation, setElicitation] = useState(false)
  const [explanation, setExplanation] = useState<PolicyExplanation>()
  const [error, setError] = useState<string>()
  const token = tokenId || tokens.data?.[0]?.id || ""
  const connection = connectionId || connections.data?.[0]?.id || ""

  const explain = () => {
    setError(undefined)
    call((client) => client.insight.explain({ payload: { tokenId: token, connectionId: connection, sql, tool, elicitation } })).then(
      (result) => setExplanation(result),
      (e: Error) => {
        setExplanation(undefined)
        setError(e.message)
      }
    )
  }

  return (
    <section aria-label="Policy explainer">
      <h2>Explain the policy for a statement</h2>
      <p className="note">What the server would do with this statement from this token: every gate in order, then the outcome. Nothing is run.</p>
      <div className="row">
        <select aria-label="Token" value={token} onChange={(e) => setTokenId(e.target.value)}>
          {(tokens.data ?? []).map((t) => <option key={t.id} value={t.id}>{t.name} ({t.access}{t.state === "active" ? "" : `, ${t.state}`})</option>)}
        </select>
        <select aria-label="Connection" value={connection} onChange={(e) => setConnectionId(e.target.value)}>
          {(connections.data ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
        <select aria-label="Tool" value={tool} onChange={(e) => setTool(e.target.value as typeof tool)}>
          <option value="execute_query">execute_query</option>
          <option value="confirm_destructive_operation">confirm_destructive_operation</option>
        </select>
        <label><input type="checkbox" checked={elicitation} onChange={(e) => setElicitation(e.target.checked)} /> client has form elicitation</label>
      </div>
      <textarea aria-label="Statement to explain" rows={3} style={{ width: "100%" }} value={sql} onChange={(e) => setSql(e.target.value)} />
      <button className="primary" onClick={explain} disabled={token === "" || connection === ""}>Explain</button>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {explanation !== undefined && (
        <>
          <ol aria-label="Gates">
            {explanation.steps.map((step) => (
              <li key={step.gate}><span className={step.verdict === "refuse" ? "badge warn" : "badge"}>{VERDICT[step.verdict]}</span> <strong>{step.title}</strong> <span className="muted">({step.section})</span>: {step.detail}</li>
            ))}
          </ol>
          <p role="status" aria-label="Outcome"><strong>Outcome:</strong> {explanation.outcome.summary}</p>
        </>
      )}
    </section>
  )
}
