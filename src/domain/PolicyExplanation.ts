import { Schema } from "effect"

/** What the policy explainer says about one statement from one token (issue 28 item 3), for the CLI, UI and tests. */
export const ExplainedStep = Schema.Struct({
  gate: Schema.String,
  title: Schema.String,
  /** The rule the gate enforces (contract or product-decisions section). */
  section: Schema.String,
  verdict: Schema.Literal("pass", "ask", "skip", "refuse"),
  detail: Schema.String
})
export type ExplainedStep = typeof ExplainedStep.Type

export const PolicyExplanation = Schema.Struct({
  tool: Schema.Literal("execute_query", "confirm_destructive_operation"),
  token: Schema.Struct({ id: Schema.String, name: Schema.String, access: Schema.String }),
  connection: Schema.Struct({ id: Schema.String, name: Schema.String, type: Schema.String }),
  elicitation: Schema.Boolean,
  steps: Schema.Array(ExplainedStep),
  outcome: Schema.Struct({
    kind: Schema.Literal("refused", "runs"),
    /** One line: "refused with -33007 …", "runs after the user approves it in …", "runs at once". */
    summary: Schema.String,
    /** The JSON-RPC error code (-33007) or the tool error code (`denied`) of a refusal. */
    code: Schema.optionalWith(Schema.Union(Schema.Number, Schema.String), { exact: true }),
    reason: Schema.optionalWith(Schema.String, { exact: true }),
    /** The gates that ask a person before it runs: `access_dialog`, `approval`. */
    asks: Schema.Array(Schema.String)
  })
})
export type PolicyExplanation = typeof PolicyExplanation.Type

/** The request of the UI panel (and the CLI's flags). */
export const PolicyExplainRequest = Schema.Struct({
  tokenId: Schema.String,
  connectionId: Schema.String,
  sql: Schema.String,
  tool: Schema.optionalWith(Schema.Literal("execute_query", "confirm_destructive_operation"), { exact: true }),
  elicitation: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type PolicyExplainRequest = typeof PolicyExplainRequest.Type

const MARK: Record<ExplainedStep["verdict"], string> = { pass: "pass ", ask: "ask  ", skip: "skip ", refuse: "STOP " }

/** The explanation as text: one line per gate in order, then the outcome. */
export const explanationText = (explanation: PolicyExplanation): string => {
  const lines = [
    `${explanation.tool} on '${explanation.connection.name}' (${explanation.connection.type}) from token '${explanation.token.name}' (${explanation.token.access}), client ${explanation.elicitation ? "with" : "without"} form elicitation:`
  ]
  explanation.steps.forEach((step, index) => {
    lines.push(`  ${index + 1}. ${MARK[step.verdict]} ${step.title} [${step.section}]: ${step.detail}`)
  })
  lines.push(`Outcome: ${explanation.outcome.summary}`)
  return lines.join("\n")
}
