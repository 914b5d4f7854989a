import { Context, Effect, Layer } from "effect"
import {
  type ApprovalDecision,
  type ApprovalRequest,
  type PendingApproval,
  toApprovalRequest
} from "../domain/Approval.ts"

/** The host's own dialog (D-28): resolves `true` to approve. */
export type ApproveCallback = (request: ApprovalRequest, options: { readonly signal: AbortSignal }) => Promise<boolean>

/**
 * The app's own dialog (D-28): a port with several implementations — the UI
 * (answers arrive through `Approvals.answer`), a terminal prompt, the host's callback when
 * embedded, and scripted answers in tests. `ask` may never answer: the caller's deadline ends it.
 */
export class ApprovalPrompt extends Context.Tag("dbdesk/services/ApprovalPrompt")<ApprovalPrompt, {
  readonly ask: (approval: PendingApproval) => Effect.Effect<ApprovalDecision>
}>() {
  /** No prompt of its own: only the UI (through `Approvals.answer`) can answer. */
  static readonly uiOnly = Layer.succeed(ApprovalPrompt, { ask: () => Effect.never })

  /**
   * Embedded mode: the host application's dialog decides. Only a promise resolved with `true` approves: `false`,
   * a rejection, a throw or any other value denies (fail closed). `signal` aborts when the request ends first
   * (deadline, cancel, the client gone), so the host can close its dialog.
   */
  static readonly host = (approve: ApproveCallback) =>
    Layer.succeed(ApprovalPrompt, {
      ask: (approval) =>
        Effect.tryPromise((signal) => approve(toApprovalRequest(approval), { signal })).pipe(
          Effect.map((approved): ApprovalDecision => (approved === true ? "approved" : "denied")),
          Effect.orElseSucceed((): ApprovalDecision => "denied")
        )
    })

  /** Tests: a function answers each dialog; `asked` records every dialog shown. */
  static readonly scripted = (
    answer: (approval: PendingApproval) => ApprovalDecision | "never",
    asked: Array<PendingApproval> = []
  ) =>
    Layer.succeed(ApprovalPrompt, {
      ask: (approval) =>
        Effect.suspend(() => {
          asked.push(approval)
          const decision = answer(approval)
          return decision === "never" ? Effect.never : Effect.succeed(decision)
        })
    })
}
