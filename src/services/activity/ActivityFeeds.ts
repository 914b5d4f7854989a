import { Effect, Layer, Stream } from "effect"
import type { PendingApproval } from "../../domain/Approval.ts"
import { ActivityLog } from "../ActivityLog.ts"
import { Approvals } from "../Approvals.ts"
import { SettingsStore } from "../Settings.ts"
import { Tokens } from "../Tokens.ts"
import { sha256Hex } from "./ActivityChain.ts"

/**
 * D-51 `token` rows: created and revoked tokens, whether the server or the CLI
 * (another process, seen when the server reloads tokens.json) made the change. Bridge tokens
 * are logged by BridgeToken itself (created, rotated).
 */
export const TokenActivity = Layer.scopedDiscard(Effect.gen(function*() {
  const log = yield* ActivityLog
  const tokens = yield* Tokens
  const changes = yield* tokens.subscribeChanges
  yield* Effect.forkScoped(
    Stream.runForEach(Stream.filter(changes, (change) => !change.token.bridge), (change) =>
      log.record({
        category: "token",
        action: change.kind === "created" ? "token.created" : "token.revoked",
        outcome: "success",
        tokenId: change.token.id,
        tokenName: change.token.name,
        details: change.kind === "created"
          ? `access=${change.token.access}`
          : change.kind === "removed"
          ? "removed"
          : null
      }))
  )
}))

/**
 * D-51 `approval` rows: asked, approved, denied, no response. The statement is
 * kept as its digest only, like a tool row's.
 */
export const ApprovalActivity = Layer.scopedDiscard(Effect.gen(function*() {
  const log = yield* ActivityLog
  const approvals = yield* Approvals
  const asked = new Map<string, PendingApproval>()
  const row = (approval: PendingApproval, action: string, outcome: string) =>
    log.record({
      category: "approval",
      action,
      outcome,
      subject: approval.kind,
      connectionId: approval.connectionId,
      tokenName: approval.principal,
      // the client as every other row names it: its name, and its version apart
      clientName: approval.clientName ?? approval.client ?? null,
      clientVersion: approval.clientVersion ?? null,
      digest: approval.statement === undefined ? null : sha256Hex(approval.statement)
    })
  yield* Effect.forkScoped(Stream.runForEach(approvals.events, (event) => {
    if (event.kind === "pending") {
      asked.set(event.approval.id, event.approval)
      return row(event.approval, "approval.asked", "pending")
    }
    const approval = asked.get(event.id)
    asked.delete(event.id)
    return approval === undefined ? Effect.void : row(approval, `approval.${event.decision}`, event.decision)
  }))
}))

/** D-51 `server` rows: started (with the port) now, stopped when the scope closes. */
export const recordServerLifecycle = (port: number) =>
  Effect.gen(function*() {
    const log = yield* ActivityLog
    yield* log.record({ category: "server", action: "server.started", outcome: "success", details: `port=${port}` })
    yield* Effect.addFinalizer(() =>
      log.record({ category: "server", action: "server.stopped", outcome: "success", details: `port=${port}` })
    )
  })

/**
 * D-51 `server` rows for settings.json edited while the server runs (D-11): the settings that
 * changed, or why an edit was refused and the previous settings kept.
 */
export const SettingsActivity = Layer.scopedDiscard(Effect.gen(function*() {
  const log = yield* ActivityLog
  const events = yield* Effect.flatMap(SettingsStore, (store) => store.subscribeEvents)
  yield* Effect.forkScoped(Stream.runForEach(events, (event) =>
    event.kind === "applied"
      ? log.record({
        category: "server",
        action: "settings.applied",
        outcome: "success",
        subject: "settings.json",
        details: `changed=${event.changed.join(",")}`
      })
      : log.record({
        category: "server",
        action: "settings.rejected",
        outcome: "error",
        subject: "settings.json",
        details: `kept the previous settings: ${event.reason}`
      })))
}))
