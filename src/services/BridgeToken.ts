import { Clock, Context, Duration, Effect, Layer, Schedule, SubscriptionRef } from "effect"
import { ActivityLog } from "./ActivityLog.ts"
import { Tokens } from "./Tokens.ts"

/** D-37: rotated hourly; the previous value keeps working 10 minutes. */
export class BridgeTiming extends Context.Tag("dbdesk/services/BridgeTiming")<BridgeTiming, {
  readonly rotateEvery: Duration.Duration
  readonly overlap: Duration.Duration
}>() {
  static readonly standard = { rotateEvery: Duration.hours(1), overlap: Duration.minutes(10) }
  static readonly layer = (
    timing: { readonly rotateEvery: Duration.DurationInput; readonly overlap: Duration.DurationInput } =
      BridgeTiming.standard
  ) =>
    Layer.succeed(BridgeTiming, {
      rotateEvery: Duration.decode(timing.rotateEvery),
      overlap: Duration.decode(timing.overlap)
    })
}

/** What the handshake file publishes; `expiresAt` is when this value stops working if nothing rotates it. */
export interface BridgeCredential {
  readonly tokenId: string
  readonly value: string
  readonly expiresAt: string
}

/** A safety margin on the stored record: removal after the overlap is what ends a value, never expiry (-33008). */
const RECORD_MARGIN = Duration.minutes(1)

/**
 * The bridge token (D-37, D-53): a `readWrite` token on all connections with
 * `bridge: true`, minted when the server starts, rotated on a schedule, removed at stop. Rotation
 * is not revocation: the previous record stays valid through the overlap and is then removed
 * (-33009 from then on), and every bridge value authenticates as the one principal "bridge", so
 * neither rotation nor that removal cancels a call or forgets a grant. Bridge records left by a
 * server that did not stop cleanly are removed at start.
 */
export class BridgeToken extends Effect.Service<BridgeToken>()("dbdesk/services/BridgeToken", {
  scoped: Effect.gen(function*() {
    const tokens = yield* Tokens
    const log = yield* ActivityLog
    const { overlap, rotateEvery } = yield* BridgeTiming
    const live = new Set<string>()

    const removeQuietly = (id: string) =>
      Effect.zipRight(tokens.remove(id).pipe(Effect.ignore), Effect.sync(() => live.delete(id)))

    const stale = (yield* tokens.list().pipe(Effect.orDie)).filter((token) => token.bridge)
    yield* Effect.forEach(stale, (token) => removeQuietly(token.id), { discard: true })

    const mint = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const stopsAt = now + Duration.toMillis(rotateEvery) + Duration.toMillis(overlap)
      const { token, value } = yield* tokens.create({
        name: "bridge",
        access: "readWrite",
        connections: "all",
        bridge: true,
        expiresAt: new Date(stopsAt + Duration.toMillis(RECORD_MARGIN))
      })
      live.add(token.id)
      return { tokenId: token.id, value, expiresAt: new Date(stopsAt).toISOString() } satisfies BridgeCredential
    })

    const first = yield* Effect.orDie(mint)
    yield* log.record({
      category: "token",
      action: "token.created",
      outcome: "success",
      tokenId: first.tokenId,
      tokenName: "bridge",
      details: "bridge"
    })
    const current = yield* SubscriptionRef.make<BridgeCredential>(first)
    yield* Effect.addFinalizer(() => Effect.forEach([...live], removeQuietly, { discard: true }))

    const rotate = Effect.gen(function*() {
      const previous = yield* SubscriptionRef.get(current)
      const next = yield* mint
      yield* SubscriptionRef.set(current, next)
      yield* log.record({
        category: "token",
        action: "token.rotated",
        outcome: "success",
        tokenId: next.tokenId,
        tokenName: "bridge",
        details: `previous=${previous.tokenId}`
      })
      yield* Effect.forkScoped(Effect.delay(removeQuietly(previous.tokenId), overlap))
    })
    // A rotation that cannot write tokens.json (a full disk) is tried again shortly, never given up: the published
    // value stops working once its overlap has passed (D-37).
    const retryEvery = Duration.min(rotateEvery, Duration.seconds(10))
    const rotateUntilDone = rotate.pipe(
      Effect.tapErrorCause((cause) => Effect.logWarning("bridge token rotation failed; trying again", cause)),
      Effect.retry(Schedule.spaced(retryEvery))
    )
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(rotateEvery), rotateUntilDone)))

    return {
      /** The value the handshake file publishes now; `changes` emits it and every rotation. */
      current: SubscriptionRef.get(current),
      changes: current.changes
    } as const
  })
}) {}
