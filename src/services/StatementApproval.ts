import { Clock, Effect } from "effect"
import { approvalText } from "../domain/Approval.ts"
import { type ApprovalPreview, previewText } from "../domain/ApprovalPreview.ts"
import type { Connection } from "../domain/Connection.ts"
import type { JsonObject } from "../domain/Json.ts"
import { isJsonObject } from "../domain/Json.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { toolFailure } from "../domain/ToolErrors.ts"
import type { MethodContext } from "./MethodContext.ts"
import { ActivityLog } from "./ActivityLog.ts"
import { sha256Hex } from "./activity/ActivityChain.ts"
import type { Preflight } from "./ApprovalPreflight.ts"
import { Approvals } from "./Approvals.ts"
import { RequestStates } from "./RequestStates.ts"

/** What to ask about: the question's verb phrase and the statement shown verbatim. */
export interface ApprovalSubject {
  readonly connection: Connection
  /** e.g. "UPDATE", "an insert of 3 rows", "DROP" — used as "Allow <what> on '<connection>'?" */
  readonly what: string
  /** The statement verbatim (SQL, or the search request's method, path and body). */
  readonly statement: string
  /** A plain-words warning such as "deletes every row of orders". */
  readonly warning?: string
  /** The statement destroys data (confirm_destructive_operation); the host's dialog says so. */
  readonly destructive?: boolean
  /** D-69: the database's check before anyone is asked, and the dry run shown with the question. */
  readonly preflight?: Preflight
}

/** The outcome of the gate: answer now with `input_required`, or run after an optional app dialog. */
export type ApprovalGate =
  | { readonly kind: "input_required"; readonly result: JsonObject }
  | { readonly kind: "proceed"; readonly askApp: Effect.Effect<void, ReturnType<typeof toolFailure> | ProtocolError> }

/** D-26: form-mode elicitation is declared by `elicitation: {}` or one holding `form`. */
export const declaresFormElicitation = (context: MethodContext): boolean => {
  if (context.era !== "modern") return false
  const elicitation = context.envelope?.clientCapabilities["elicitation"]
  if (!isJsonObject(elicitation)) return false
  return Object.keys(elicitation).length === 0 || "form" in elicitation
}

const questionOf = (subject: ApprovalSubject) =>
  `Allow ${subject.what} on '${subject.connection.name}'?${
    subject.warning === undefined ? "" : ` This ${subject.warning}.`
  }`

const DENIED = "the user did not approve this operation"

/** The tool whose call waits, for the host's dialog. */
const toolOf = (context: MethodContext): { readonly tool?: string } => {
  const name = context.params["name"]
  return context.method === "tools/call" && typeof name === "string" ? { tool: name } : {}
}

/** What the activity row of a preview says: its outcome and a count or a reason class, never statement text or values. */
const previewDetails = (preview: ApprovalPreview): { readonly outcome: string; readonly details: string } => {
  switch (preview._tag) {
    case "Changes":
      return { outcome: "success", details: `action=${preview.action}; ${preview.unit}s=${preview.count}` }
    case "Unavailable":
      return {
        outcome: "unavailable",
        details: preview.reason.startsWith("took too long") ? "reason=took_too_long" : "reason=failed"
      }
    case "NoPreview":
      return { outcome: "none", details: "reason=not_previewed" }
    case "Estimate":
      return {
        outcome: "estimate",
        details: `rows=${Math.round(preview.rows)}${
          preview.cost === undefined ? "" : `; cost=${Math.round(preview.cost)}`
        }`
      }
  }
}
/**
 * Wire contract §3.1, every row: without form elicitation the call waits on the app's own dialog;
 * with it the first call answers `input_required` and the repeated call proceeds when accepted —
 * on `fullAccess` the form replaces the dialog, on every other principal the dialog follows (C3.1-d/e).
 */
export class StatementApproval extends Effect.Service<StatementApproval>()("dbdesk/services/StatementApproval", {
  effect: Effect.gen(function*() {
    const approvals = yield* Approvals
    const states = yield* RequestStates
    const log = yield* ActivityLog

    /** D-69: the dry run, recorded in the activity log as a preview (its outcome and count, a digest). */
    const preview = (context: MethodContext, subject: ApprovalSubject) =>
      Effect.gen(function*() {
        if (subject.preflight === undefined) return undefined
        const started = yield* Clock.currentTimeMillis
        const result = yield* subject.preflight.preview
        const finished = yield* Clock.currentTimeMillis
        yield* log.record({
          category: "approval",
          action: "approval.preview",
          ...previewDetails(result),
          subject: "statement",
          connectionId: subject.connection.id,
          tokenId: context.principal.tokenId ?? null,
          tokenName: context.principal.tokenName ?? context.principal.kind,
          clientName: context.clientInfo?.name ?? null,
          clientVersion: context.clientInfo?.version ?? null,
          digest: sha256Hex(subject.statement),
          durationMs: finished - started
        })
        return result
      })

    /** D-68: never ask a person to approve what cannot run. */
    const check = (subject: ApprovalSubject) => subject.preflight?.check ?? Effect.void

    /** Inside the response (cancellable, under the handler deadline): the database's check, the dry run, the dialog. */
    const appDialog = (context: MethodContext, subject: ApprovalSubject) =>
      Effect.flatMap(Effect.zipRight(check(subject), preview(context, subject)), (shown) =>
        approvals.ask({
          kind: "statement",
          message: questionOf(subject),
          statement: subject.statement,
          connectionId: subject.connection.id,
          connectionName: subject.connection.name,
          principal: context.principal.tokenName ?? context.principal.kind,
          access: context.principal.access,
          ...(context.clientInfo === undefined
            ? {}
            : {
              client: `${context.clientInfo.name} ${context.clientInfo.version}`.trim(),
              clientName: context.clientInfo.name,
              clientVersion: context.clientInfo.version
            }),
          ...toolOf(context),
          destructive: subject.destructive ?? false,
          ...(shown === undefined ? {} : { preview: shown })
        })).pipe(
          Effect.flatMap((
            decision
          ) => (decision === "approved" ? Effect.void : Effect.fail(toolFailure("denied", DENIED))))
        )

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const gate = Effect.fnUntraced(function*(context: MethodContext, subject: ApprovalSubject) {
      const state = context.params["requestState"]
      const responses = context.params["inputResponses"]
      if (state !== undefined || responses !== undefined) {
        if (typeof state !== "string") {
          return yield* ProtocolError.invalidParams(
            "inputResponses came without the requestState of the input_required result"
          )
        }
        yield* states.redeem(context.principal, context.method, context.params, state)
        const response = isJsonObject(responses) ? responses["approve_statement"] : undefined
        const content = isJsonObject(response) ? response["content"] : undefined
        const accepted = isJsonObject(response) && response["action"] === "accept" && isJsonObject(content) &&
          content["approved"] === true
        if (!accepted) return yield* toolFailure("denied", DENIED)
        const askApp = context.principal.access === "fullAccess" ? Effect.void : appDialog(context, subject)
        return { kind: "proceed", askApp } satisfies ApprovalGate
      }
      if (declaresFormElicitation(context)) {
        // The form is the answer to this request: the check and the dry run (both bounded) come before it.
        yield* check(subject)
        const shown = yield* preview(context, subject)
        const requestState = yield* states.issue(context.principal, context.method, context.params)
        const result: JsonObject = {
          resultType: "input_required",
          inputRequests: {
            approve_statement: {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: shown === undefined ? questionOf(subject) : `${questionOf(subject)}\n\n${previewText(shown)}`,
                requestedSchema: {
                  type: "object",
                  properties: {
                    approved: {
                      type: "boolean",
                      title: `Approve this ${subject.what}`,
                      description: approvalText(subject.statement)
                    }
                  },
                  required: ["approved"]
                }
              }
            }
          },
          requestState
        }
        return { kind: "input_required", result } satisfies ApprovalGate
      }
      return { kind: "proceed", askApp: appDialog(context, subject) } satisfies ApprovalGate
    })

    return { gate } as const
  })
}) {}
