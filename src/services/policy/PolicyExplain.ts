import { expiredToken, invalidToken } from "../../domain/AuthChallenges.ts"
import type { Connection } from "../../domain/Connection.ts"
import { costBudgetOf, planKind } from "../../domain/CostGuard.ts"
import type { PolicyExplanation } from "../../domain/PolicyExplanation.ts"
import { tokenPrincipal } from "../../domain/Principal.ts"
import type { Settings } from "../../domain/Settings.ts"
import { type TokenSummary, tokenState } from "../../domain/Token.ts"
import {
  decideStatement,
  type GateId,
  type GrantState,
  type PolicyDecision,
  type PolicyInput,
  type PolicyTool
} from "./StatementPolicy.ts"

const ASKED: Partial<Record<GateId, string>> = {
  access_dialog: "allows access in the access dialog",
  cost_guard: "approves a read the planner cannot estimate",
  approval: "approves the statement"
}

/**
 * Each gate in plain words for the person reading the explanation: what it checks, where they change it, and for
 * tooling only the id of the rule it enforces (docs/contract.md) or of the product decision (docs/decisions.md).
 */
export const GATE_WORDS: Record<
  GateId | "authentication",
  { readonly checks: string; readonly changeIn: string; readonly rule: string }
> = {
  authentication: {
    checks: "that the token is known, not revoked and not expired",
    changeIn: "MCP › Tokens (create a new token)",
    rule: "C5-c"
  },
  scope: {
    checks: "that the token's access level allows this tool",
    changeIn: "MCP › Tokens (the token's access level)",
    rule: "C4.3-a"
  },
  external_access: {
    checks: "that the connection lets AI clients in at all",
    changeIn: "Connections › Edit › External access",
    rule: "C5-h"
  },
  ai_policy: {
    checks: "that AI clients may use this connection",
    changeIn: "Connections › Edit › AI policy",
    rule: "C5-h"
  },
  allowlist: {
    checks: "that the token may use this connection",
    changeIn: "MCP › Tokens (the token's connections)",
    rule: "C5-h"
  },
  access_dialog: {
    checks: "whether you are asked before a client first uses this connection",
    changeIn: "Connections › Edit › AI policy, and MCP › Settings › Connection approval",
    rule: "D-29"
  },
  classifier: {
    checks: "whether the statement only reads, changes data or destroys data",
    changeIn: "the statement itself (there is no setting for it)",
    rule: "D-22"
  },
  destructive_tool: {
    checks: "that a statement which drops or empties a table comes through the tool made for it, which always asks you",
    changeIn: "the AI client's choice of tool (there is no setting for it)",
    rule: "D-24"
  },
  write_scope: {
    checks: "that the token may change data",
    changeIn: "MCP › Tokens (a Read and write or Full access token)",
    rule: "C5-e"
  },
  write_access: {
    checks: "that the connection lets AI clients change data",
    changeIn: "Connections › Edit › External access (Read and write)",
    rule: "C5-h"
  },
  ai_settings: {
    checks: "that the statement reads no stored credentials, and which columns of the answer are masked",
    changeIn: "Connections › Edit › Secret catalogs and Masking rules",
    rule: "D-64"
  },
  cost_guard: {
    checks: "whether a read the planner expects to be large is asked about or refused before it runs",
    changeIn: "Connections › Edit › Cost guard",
    rule: "D-95"
  },
  approval: {
    checks: "whether you are asked to approve the statement before it runs",
    changeIn: "Connections › Edit › Confirm queries",
    rule: "C3.1-a"
  }
}

/** D-95: a read the planner will estimate runs as said only within the budget; above it the guard asks or refuses. */
const costCondition = (input: PolicyInput, decision: PolicyDecision): string => {
  const budget = costBudgetOf(input.connection)
  const estimated = decision.steps.some((step) => step.id === "cost_guard" && step.verdict.kind === "pass") &&
    planKind(input.statement) === "estimate"
  if (budget === undefined || !estimated) return ""
  return `, if the planner's estimate is within the cost budget (above it, ${
    budget.mode === "ask" ? "the user is asked first" : "the read is refused"
  })`
}

/** The decision as the explainer shows it: each gate in order and the outcome in one line. */
export const explainDecision = (
  input: PolicyInput & { readonly token: { readonly id: string; readonly name: string } },
  decision: PolicyDecision
): PolicyExplanation => {
  const outcome = decision.outcome
  const handle = outcome.kind === "runs" && outcome.tier === "safe" ? "read-only" : "read-write"
  const summary = outcome.kind === "refused"
    ? outcome.error._tag === "ProtocolError"
      ? `refused with JSON-RPC error ${outcome.error.code} (HTTP ${outcome.error.status}): ${outcome.error.message}${
        outcome.error.data === undefined ? "" : ` ${JSON.stringify(outcome.error.data)}`
      }`
      : `refused with the tool error ${outcome.error.message}`
    : `${
      outcome.asks.length === 0
        ? `runs at once on a ${handle} handle`
        : `runs on a ${handle} handle once the user ${outcome.asks.map((id) => ASKED[id] ?? id).join(" and ")}`
    }${costCondition(input, decision)}`
  const reason = outcome.kind === "refused" && outcome.error._tag === "ProtocolError"
    ? outcome.error.data?.["reason"]
    : undefined
  return {
    tool: input.tool,
    token: { id: input.token.id, name: input.token.name, access: input.principal.access },
    connection: { id: input.connection.id, name: input.connection.name, type: input.connection.type },
    elicitation: input.elicitation,
    steps: decision.steps.map((step) => ({
      gate: step.id,
      title: step.title,
      ...GATE_WORDS[step.id],
      verdict: step.verdict.kind,
      detail: step.verdict.detail
    })),
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
 * `dbdesk policy explain` and the MCP settings panel: a revoked or expired token stops at authentication (C5-c, C5-d)
 * as the server's authenticator answers; otherwise the statement policy the tools enact decides.
 */
export const explainStatement = (
  token: TokenSummary,
  connection: Connection,
  options: ExplainOptions
): PolicyExplanation => {
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
  const step = {
    id: "scope" as const,
    title: "Authentication",
    verdict: { kind: "refuse" as const, detail: `the token is ${state}`, error }
  }
  const explained = explainDecision(input, { steps: [step], facts: {}, outcome: { kind: "refused", error } })
  const words = { ...GATE_WORDS.authentication, ...(state === "expired" ? { rule: "C5-d" } : {}) }
  return { ...explained, steps: explained.steps.map((shown) => ({ ...shown, ...words, gate: "authentication" })) }
}
