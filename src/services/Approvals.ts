import { Deferred, Effect, PubSub, type Scope, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { ApprovalDecision, PendingApproval } from "../domain/Approval.ts"
import { ApprovalPrompt } from "./ApprovalPrompt.ts"

export type ApprovalEvent =
  | { readonly kind: "pending"; readonly approval: PendingApproval }
  | { readonly kind: "settled"; readonly id: string; readonly decision: ApprovalDecision | "no_response" }

/**
 * Dialog events waiting for a slow reader (an open UI tab whose connection stalled) at most; past it the oldest go.
 * Dialogs come at a person's pace, and the UI reads the pending list again on reconnect.
 */
export const MAX_PENDING_EVENTS = 256

/**
 * Every dialog that waits for the user: shown through the ApprovalPrompt port and published as
 * pending on an in-process stream the UI consumes; whichever answers first decides. A request
 * that ends while waiting (deadline, cancel, dropped client) settles as "no_response".
 */
export class Approvals extends Effect.Service<Approvals>()("dbdesk/services/Approvals", {
  effect: Effect.gen(function*() {
    const prompt = yield* ApprovalPrompt
    const events = yield* PubSub.sliding<ApprovalEvent>(MAX_PENDING_EVENTS)
    const pending = new Map<
      string,
      { readonly approval: PendingApproval; readonly decision: Deferred.Deferred<ApprovalDecision> }
    >()

    const ask = Effect.fn("Approvals.ask")(function*(request: Omit<PendingApproval, "id" | "requestedAt">) {
      const approval: PendingApproval = { ...request, id: randomUUID(), requestedAt: new Date().toISOString() }
      const decision = yield* Deferred.make<ApprovalDecision>()
      pending.set(approval.id, { approval, decision })
      yield* PubSub.publish(events, { kind: "pending", approval })
      const fromPrompt = yield* Effect.fork(
        Effect.flatMap(prompt.ask(approval), (answer) => Deferred.succeed(decision, answer))
      )
      return yield* Deferred.await(decision).pipe(
        Effect.tap((answer) => PubSub.publish(events, { kind: "settled", id: approval.id, decision: answer })),
        Effect.onInterrupt(() => PubSub.publish(events, { kind: "settled", id: approval.id, decision: "no_response" })),
        Effect.ensuring(
          Effect.zipRight(Effect.sync(() => pending.delete(approval.id)), fromPrompt.interruptAsFork(fromPrompt.id()))
        )
      )
    })

    /** The UI's answer to a pending dialog; false when it is no longer pending. */
    const answer = (id: string, decision: ApprovalDecision) =>
      Effect.suspend(() => {
        const entry = pending.get(id)
        return entry === undefined ? Effect.succeed(false) : Deferred.succeed(entry.decision, decision)
      })

    const list = Effect.sync(() => [...pending.values()].map((entry) => entry.approval))

    /** Subscribes now, so no dialog asked after this call is missed (an embedding host's events). */
    const subscribe: Effect.Effect<Stream.Stream<ApprovalEvent>, never, Scope.Scope> = Stream.fromPubSub(events, {
      scoped: true
    })

    return { ask, answer, list, events: Stream.fromPubSub(events), subscribe } as const
  })
}) {}
