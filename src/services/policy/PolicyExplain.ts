import { expiredToken, invalidToken } from "../../domain/AuthChallenges.ts"
import type { Connection } from "../../domain/Connection.ts"
import type { PolicyExplanation } from "../../domain/PolicyExplanation.ts"
import { tokenPrincipal } from "../../domain/Principal.ts"
import type { Settings } from "../../domain/Settings.ts"
import { type TokenSummary, tokenState } from "../../domain/Token.ts"
import { decideStatement, type GateId, type GrantState, type PolicyDecision, type PolicyInput, type PolicyTool } from "./StatementPolicy.ts"

const ASKED: Partial<Record<GateId, string>> = { access_dialog: "allows access in the access dialog", approval: "approves the statement" }

/** The decision as the explainer shows it (issue 28 item 3): each gate in order and the outcome in one line. */
export const explainDecision = (
  input: PolicyInput & { readonly token: { readonly id: string; readonly name: string } },
  decision: PolicyDecision
): PolicyExplanation => {
  const outcome = decision.outcome
  const handle = outcome.kind === "runs" && outcome.tier === "safe" ? "read-only" : "read-write"
  const summary = outcome.kind === "refused"
    ? outcome.error._tag === "ProtocolError"
      ? `refused with JSON-RPC error ${outcome.error.code} (HTTP ${outcome.error.status}): ${outcome.error.message}${outcome.error.data === undefined ? "" : ` ${JSON.stringify(outcome.error.data)}`}`
      : `refused with the tool error ${outcome.error.message}`
    : outcome.asks.length === 0
    ? `runs at once on a ${handle} handle`
    : `runs on a ${handle} handle once the user ${outcome.asks.map((id) => ASKED[id] ?? id).join(" and ")}`
  const reason = outcome.kind === "refused" && outcome.error._tag === "ProtocolError" ? outcome.error.data?.["reason"] : undefined
  return {
    tool: input.tool,
    token: { id: input.token.id, name: input.token.name, access: input.principal.access },
    connection: { id: input.connection.id, name: input.connection.name, type: input.connection.type },
    elicitation: input.elicitation,
    steps: decision.steps.map((step) => ({ gate: step.id, title: step.title, section: step.section, verdict: step.verdict.kind, detail: step.verdict.detail })),
    outcome: {
      kind: outcome.kind,
      summary,
      ...(outcome.kind === "refused" ? { code: outcome.error.code } : {}),
      ...(typeof reason === "string" ? { reason } : {}),
      asks: outcome.kind === "runs" ? outcome.asks : []
    }
  }
}

export interface ExplainOptions {
  readonly tool: PolicyTool
  readonly sql: string
  readonly elicitation: boolean
  readonly connectionApproval: Settings["mcp"]["connectionApproval"]
  readonly grant: GrantState
  readonly now: number
}

/**
 * `dbdesk policy explain` and the MCP settings panel (issue 28 item 3): a revoked or expired token stops at
 * authentication (wire contract §5 points 3–4) as the server's authenticator answers; otherwise the statement policy
 * the tools enact decides.
 */
export const explainStatement = (token: TokenSummary, connection: Connection, options: ExplainOptions): PolicyExplanation => {
  const input: PolicyInput & { readonly token: TokenSummary } = {
    tool: options.tool,
    principal: tokenPrincipal(token),
    connection,
    statement: options.sql,
    elicitation: options.elicitation,
    connectionApproval: options.connectionApproval,
    grant: options.grant,
    token
  }
  const state = tokenState({ ...token, hash: "", salt: "" }, options.now)
  if (state === "active") return explainDecision(input, decideStatement(input))
  const error = state === "expired" ? expiredToken() : invalidToken()
  const step = { id: "scope" as const, title: "Authentication", section: "wire contract §5 points 3–4", verdict: { kind: "refuse" as const, detail: `the token is ${state}`, error } }
  const explained = explainDecision(input, { steps: [step], facts: {}, outcome: { kind: "refused", error } })
  return { ...explained, steps: explained.steps.map((shown) => ({ ...shown, gate: "authentication" })) }
}
