import { useState } from "react"
import { plainWords, type PolicyExplanation } from "../../../domain/PolicyExplanation.ts"
import { call, useLoad } from "../../api.ts"

const VERDICT: Record<PolicyExplanation["steps"][number]["verdict"], string> = { pass: "✔ passes", ask: "? asks you", skip: "– not needed", refuse: "✖ stops here" }
const LEVEL: Record<string, string> = { readOnly: "read only", readWrite: "read and write", fullAccess: "full access" }

/** The outcome in plain words: what runs, or the refusing gate's own reason (the JSON-RPC code is for `--json`). */
const outcomeText = (explanation: PolicyExplanation): string => {
  if (explanation.outcome.kind === "runs") return `It ${explanation.outcome.summary.replace(/ on a (read-only|read-write) handle/, "")}.`
  const stop = explanation.steps.find((step) => step.verdict === "refuse")
  return `Refused${stop === undefined ? "" : ` at “${stop.title}”: ${plainWords(stop.detail)}`}.`
}

/**
 * The policy explainer in MCP › Settings: what the server would do with a statement from a token, gate by gate in
 * plain words (what it checks, what it found, where to change it), and the outcome; the same decision the tools
 * enact. Runs nothing.
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
          {(tokens.data ?? []).map((t) => <option key={t.id} value={t.id}>{t.name} ({LEVEL[t.access] ?? t.access}{t.state === "active" ? "" : `, ${t.state}`})</option>)}
        </select>
        <select aria-label="Connection" value={connection} onChange={(e) => setConnectionId(e.target.value)}>
          {(connections.data ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
        <select aria-label="Tool" value={tool} onChange={(e) => setTool(e.target.value as typeof tool)}>
          <option value="execute_query">Run a statement (execute_query)</option>
          <option value="confirm_destructive_operation">Run a destructive statement (confirm_destructive_operation)</option>
        </select>
        <label><input type="checkbox" checked={elicitation} onChange={(e) => setElicitation(e.target.checked)} /> the client can show its own approval form</label>
      </div>
      <textarea aria-label="Statement to explain" rows={3} style={{ width: "100%" }} value={sql} onChange={(e) => setSql(e.target.value)} />
      <button className="primary" onClick={explain} disabled={token === "" || connection === ""}>Explain</button>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {explanation !== undefined && (
        <>
          <ol aria-label="Gates" className="gates">
            {explanation.steps.map((step) => (
              <li key={step.gate} className={`gate ${step.verdict}`}>
                <span className={`verdict ${step.verdict}`}>{VERDICT[step.verdict]}</span> <strong>{step.title}</strong>: {plainWords(step.detail)}
                <div className="note">Checks {step.checks}. Change it in {step.changeIn}.</div>
              </li>
            ))}
          </ol>
          <p role="status" aria-label="Outcome"><strong>Outcome:</strong> {outcomeText(explanation)}</p>
        </>
      )}
    </section>
  )
}
