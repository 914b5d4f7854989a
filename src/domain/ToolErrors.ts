import { Data } from "effect"

/** Wire contract §7.2: the codes a tool error's text starts with. */
export const TOOL_ERROR_CODES = [
  "invalid_argument",
  "not_connected",
  "not_found",
  "denied",
  "timeout",
  "unsupported",
  "query_failed",
  "user_cancelled",
  "internal_failure"
] as const
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number]

/**
 * A tool that failed because of the database, the arguments' values or the user's policy: a
 * successful JSON-RPC result with `isError: true` whose text is `<code>: <message>` (§7.2, C7.2-a).
 */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{
  readonly code: ToolErrorCode
  readonly detail: string
  /** D-64: the AI-settings gate that refused the call (shown to the caller and recorded in the activity log). */
  readonly policy?: PolicyGate | undefined
}> {
  override get message(): string {
    return `${this.code}: ${this.detail}`
  }
}

export const toolFailure = (code: ToolErrorCode, detail: string) => new ToolFailure({ code, detail })

/** D-65: which gate refused, the rule (a secret catalog, a masking pattern) and the connection setting behind it. */
export interface PolicyGate {
  readonly gate: "secret_catalog" | "untraceable"
  readonly rule: string
  readonly setting: string
}

export const policyFailure = (refusal: PolicyGate & { readonly message: string }) =>
  new ToolFailure({
    code: "denied",
    detail: refusal.message,
    policy: { gate: refusal.gate, rule: refusal.rule, setting: refusal.setting }
  })
