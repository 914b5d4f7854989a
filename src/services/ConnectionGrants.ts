import { Clock, Effect, Option, Stream } from "effect"
import type { Connection } from "../domain/Connection.ts"
import type { Principal } from "../domain/Principal.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { accessDialogVerdict, type GrantState, refusedAccess } from "./policy/StatementPolicy.ts"
import { Approvals } from "./Approvals.ts"
import { SettingsStore } from "./Settings.ts"
import { Tokens } from "./Tokens.ts"

/** D-29: a refusal blocks re-asking for 60 s. */
export const REFUSAL_COOL_OFF_MS = 60_000
/** The access dialog shares the handler deadline (wire contract §8). */
const DIALOG_DEADLINE = "330 seconds"

/** Connection grants are kept per grant subject: the token, or `bridge` for every bridge token. */
export const grantSubject = (
  principal: Principal
): string => (principal.tokenName === "bridge" ? "bridge" : principal.key)

/**
 * D-29 for AI policy `askEachTime`: "<client> wants
 * to access '<connection>'", asked before the response starts and before any statement approval,
 * never through elicitation; remembered per `mcp.connectionApproval`; forgotten on revocation.
 */
export class ConnectionGrants extends Effect.Service<ConnectionGrants>()("dbdesk/services/ConnectionGrants", {
  scoped: Effect.gen(function*() {
    const approvals = yield* Approvals
    const settings = yield* SettingsStore
    const granted = new Set<string>()
    const refusedUntil = new Map<string, number>()
    const keyOf = (subject: string, connectionId: string) => `${subject}\u0000${connectionId}`

    const tokens = yield* Effect.serviceOption(Tokens)
    if (Option.isSome(tokens)) {
      const revocations = yield* tokens.value.subscribeRevocations
      yield* revocations.pipe(
        Stream.runForEach((tokenId) =>
          Effect.sync(() => {
            for (const key of [...granted, ...refusedUntil.keys()]) {
              if (key.startsWith(`token:${tokenId}\u0000`)) {
                granted.delete(key)
                refusedUntil.delete(key)
              }
            }
          })
        ),
        Effect.forkScoped
      )
    }

    /** What the access dialog's memory holds for this caller and connection now. */
    const grantState = (principal: Principal, connection: Connection, now: number): GrantState => {
      const key = keyOf(grantSubject(principal), connection.id)
      if (granted.has(key)) return "granted"
      const refusal = refusedUntil.get(key)
      return refusal !== undefined && refusal > now ? "refused" : "none"
    }

    /** The mode and the memory the statement policy decides with (D-70). */
    const snapshot = Effect.fnUntraced(function*(principal: Principal, connection: Connection) {
      const mode = (yield* settings.current).mcp.connectionApproval
      return { mode, grant: grantState(principal, connection, yield* Clock.currentTimeMillis) }
    })

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    /** `wants`: the statement the client will run once allowed, shown in the dialog. */
    const ensure = Effect.fnUntraced(
      function*(principal: Principal, connection: Connection, client: string | undefined, wants?: string) {
        const { grant, mode } = yield* snapshot(principal, connection)
        const verdict = accessDialogVerdict(connection, mode, grant)
        if (verdict.kind === "refuse") return yield* verdict.error
        if (verdict.kind !== "ask") return
        const key = keyOf(grantSubject(principal), connection.id)
        const who = client ?? principal.tokenName ?? "An AI client"
        const decision = yield* approvals.ask({
          kind: "connection_access",
          message: `${who} wants to access '${connection.name}'`,
          connectionId: connection.id,
          connectionName: connection.name,
          principal: principal.tokenName ?? principal.kind,
          access: principal.access,
          ...(client === undefined ? {} : { client, clientName: client }),
          ...(wants === undefined ? {} : { wants })
        }).pipe(Effect.timeoutFail({
          duration: DIALOG_DEADLINE,
          onTimeout: () =>
            ProtocolError.of(-33003, "Nobody answered the access dialog before the 330 s deadline", {
              deadline: "handler",
              seconds: 330
            })
        }))
        if (decision === "approved") {
          if (mode === "oncePerConnection") granted.add(key)
          return
        }
        const refusedAt = yield* Clock.currentTimeMillis
        // a refusal only matters for 60 s: the ones that are over are dropped, so the map holds the last minute's
        for (const [other, until] of refusedUntil) if (until <= refusedAt) refusedUntil.delete(other)
        refusedUntil.set(key, refusedAt + REFUSAL_COOL_OFF_MS)
        return yield* refusedAccess(connection)
      }
    )

    return { ensure, snapshot } as const
  })
}) {}
