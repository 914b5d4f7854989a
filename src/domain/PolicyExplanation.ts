import { Schema } from "effect"

/** What the policy explainer says about one statement from one token, for the CLI, UI and tests. */
export const ExplainedStep = Schema.Struct({
  gate: Schema.String,
  title: Schema.String,
  /** For tooling (`--json`): the id of the rule the gate enforces (`C5-h`, docs/contract.md) or of the product decision (`D-29`, docs/decisions.md). */
  rule: Schema.String,
  /** In plain words: what the gate checks. */
  checks: Schema.String,
  /** In plain words: where the user changes what it decides. */
  changeIn: Schema.String,
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

const WORDS: Record<string, string> = {
  readOnly: "read only",
  readWrite: "read and write",
  fullAccess: "full access",
  askEachTime: "ask each time",
  alwaysAllow: "always allow",
  oncePerConnection: "once per connection",
  everyTime: "every time",
  alwaysApprove: "never ask",
  secretCatalogs: "Secret catalogs",
  maskingRules: "Masking rules"
}

/** A gate's detail in the words the UI's forms use for settings (`readWrite` is "read and write"). */
export const plainWords = (text: string): string =>
  text.replace(
    /\b(readOnly|readWrite|fullAccess|askEachTime|alwaysAllow|oncePerConnection|everyTime|alwaysApprove|secretCatalogs|maskingRules)\b/g,
    (word) => WORDS[word] ?? word
  )

/** The explanation as text: one line per gate in order (what it checks and where to change it under it), then the outcome. */
export const explanationText = (explanation: PolicyExplanation): string => {
  const lines = [
    `${explanation.tool} on '${explanation.connection.name}' (${explanation.connection.type}) from token '${explanation.token.name}' (${explanation.token.access}), client ${
      explanation.elicitation ? "with" : "without"
    } form elicitation:`
  ]
  explanation.steps.forEach((step, index) => {
    lines.push(`  ${index + 1}. ${MARK[step.verdict]} ${step.title}: ${plainWords(step.detail)}`)
    lines.push(`${" ".repeat(String(index + 1).length + 10)}checks ${step.checks}; change it in ${step.changeIn}`)
  })
  lines.push(`Outcome: ${explanation.outcome.summary}`)
  return lines.join("\n")
}
