import { Deferred, type Duration, Effect, Either, Layer, Mailbox, Schedule, Stream } from "effect"
import type { Connection } from "../domain/Connection.ts"
import type { JsonObject } from "../domain/Json.ts"
import type { RequestId } from "../domain/JsonRpc.ts"
import type { Principal } from "../domain/Principal.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { hiddenReason } from "./ConnectionAccess.ts"
import { Connections } from "./Connections.ts"
import { parseResourceUri } from "./resources/ResourceUris.ts"
import { SettingsStore } from "./Settings.ts"
import { Tokens } from "./Tokens.ts"

/** D-50: at most 8 open subscriptions per caller; keep-alive every 15 s. */
export const MAX_SUBSCRIPTIONS_PER_CALLER = 8
export const KEEPALIVE_INTERVAL = "15 seconds"
export const SUBSCRIPTION_ID_META = "io.modelcontextprotocol/subscriptionId"
/**
 * Frames waiting for a slow listener at most; past it the oldest are dropped. Every frame is a "look again" signal
 * (list changed, schema updated), so a listener that lags this far loses nothing it cannot read again, and the
 * graceful result, offered last, is never the one dropped.
 */
export const MAX_PENDING_FRAMES = 64

/** What the client asked for (interop §5.1); the tools and prompts flags are never honoured. */
export interface SubscriptionRequest {
  readonly resourcesListChanged: boolean
  readonly resourceSubscriptions: ReadonlyArray<string>
}

/** A frame of a listen stream: a JSON-RPC message, or a keep-alive comment line. */
export type SubscriptionFrame = { readonly kind: "message"; readonly message: JsonObject } | {
  readonly kind: "keepalive"
}

interface Open {
  readonly principal: Principal
  readonly id: RequestId
  readonly listChanged: boolean
  /** connection id → the schema URI exactly as the client subscribed it */
  readonly schemaUris: ReadonlyMap<string, string>
  readonly mailbox: Mailbox.Mailbox<SubscriptionFrame>
  fingerprint: string
}

const visibleTo = (principal: Principal, connection: Connection) => hiddenReason(principal, connection) === undefined

/** The part of the visible set that `resources/list` shows: a change here is `resources/list_changed`. */
const fingerprintOf = (principal: Principal, all: ReadonlyArray<Connection>) =>
  JSON.stringify(
    all.filter((connection) => visibleTo(principal, connection)).map((
      connection
    ) => [connection.id, connection.name, connection.type]).sort()
  )

const message = (method: string, id: RequestId, params: JsonObject = {}): SubscriptionFrame => ({
  kind: "message",
  message: { jsonrpc: "2.0", method, params: { ...params, _meta: { [SUBSCRIPTION_ID_META]: id } } }
})

/** Interop §5.3: the graceful end of a subscription is the listen request's own result. */
const gracefulResult = (id: RequestId): SubscriptionFrame => ({
  kind: "message",
  message: { jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID_META]: id } } }
})

/**
 * The open `subscriptions/listen` streams (D-50, interop §5): acknowledgement first
 * with the honoured subset, then `resources/list_changed` and `resources/updated` tagged with the
 * subscription id, keep-alive comments through Effect's Clock, and the graceful result when the
 * server ends a stream (cancel, revocation, stop). A dropped client just ends its stream.
 */
export class Subscriptions extends Effect.Service<Subscriptions>()("dbdesk/services/Subscriptions", {
  scoped: Effect.gen(function*() {
    const connections = yield* Connections
    const settings = yield* SettingsStore
    const open = new Set<Open>()
    const drained = new Set<Deferred.Deferred<void>>()

    const forget = (entry: Open) =>
      Effect.suspend(() => {
        open.delete(entry)
        if (open.size > 0) return Effect.void
        const waiting = [...drained]
        drained.clear()
        return Effect.forEach(waiting, (deferred) => Deferred.succeed(deferred, undefined), { discard: true })
      })

    const honour = (
      principal: Principal,
      requested: SubscriptionRequest,
      all: ReadonlyArray<Connection>,
      requireAuth: boolean
    ) => {
      const schemaUris = new Map<string, string>()
      // D-47: with auth on and no valid token the acknowledgement honours nothing.
      if (!principal.scopes.includes("resources:read") || (requireAuth && principal.kind === "anonymous")) {
        return { listChanged: false, schemaUris }
      }
      for (const uri of requested.resourceSubscriptions) {
        const ref = Either.getOrUndefined(parseResourceUri(uri))
        const connection = ref?.kind === "schema" ? all.find((item) => item.id === ref.connectionId) : undefined
        if (connection !== undefined && visibleTo(principal, connection)) schemaUris.set(connection.id, uri)
      }
      return { listChanged: requested.resourcesListChanged, schemaUris }
    }

    /**
     * Opens a subscription; the 9th open one of a caller is 429 -33010 with Retry-After. An empty
     * honoured set gets the acknowledgement and the graceful result at once (interop §5.5).
     */
    const subscribe = Effect.fn("Subscriptions.subscribe")(
      function*(principal: Principal, id: RequestId, requested: SubscriptionRequest) {
        const all = yield* connections.list
        const { listChanged, schemaUris } = honour(principal, requested, all, (yield* settings.current).mcp.requireAuth)
        const acknowledged = message("notifications/subscriptions/acknowledged", id, {
          notifications: {
            ...(listChanged ? { resourcesListChanged: true } : {}),
            ...(schemaUris.size > 0 ? { resourceSubscriptions: [...schemaUris.values()] } : {})
          }
        })
        if (!listChanged && schemaUris.size === 0) return Stream.make(acknowledged, gracefulResult(id))
        const mine = [...open].filter((entry) => entry.principal.key === principal.key).length
        if (mine >= MAX_SUBSCRIPTIONS_PER_CALLER) {
          return yield* new ProtocolError({
            code: -33010,
            message: `At most ${MAX_SUBSCRIPTIONS_PER_CALLER} subscriptions may be open per caller; close one first`,
            data: { limit: MAX_SUBSCRIPTIONS_PER_CALLER },
            headers: { "retry-after": "15" }
          })
        }
        const mailbox = yield* Mailbox.make<SubscriptionFrame>({ capacity: MAX_PENDING_FRAMES, strategy: "sliding" })
        const entry: Open = {
          principal,
          id,
          listChanged,
          schemaUris,
          mailbox,
          fingerprint: fingerprintOf(principal, all)
        }
        open.add(entry)
        const keepalive = Stream.fromSchedule(Schedule.spaced(KEEPALIVE_INTERVAL)).pipe(
          Stream.as<SubscriptionFrame>({ kind: "keepalive" })
        )
        return Stream.make(acknowledged).pipe(
          Stream.concat(Stream.merge(Mailbox.toStream(mailbox), keepalive, { haltStrategy: "left" })),
          Stream.ensuring(forget(entry))
        )
      }
    )

    const closeWhere = (matches: (entry: Open) => boolean) =>
      Effect.suspend(() => {
        const closing = [...open].filter(matches)
        return Effect.as(
          Effect.forEach(closing, (entry) =>
            Effect.zipRight(entry.mailbox.offer(gracefulResult(entry.id)), entry.mailbox.end), { discard: true }),
          closing.length
        )
      })

    /** Wire contract §3.2: `notifications/cancelled` naming the listen id, from the same caller. */
    const cancel = (principalKey: string, id: RequestId) =>
      closeWhere((entry) => entry.principal.key === principalKey && entry.id === id)

    /** D-36: a revoked token's subscriptions close. */
    const closeForPrincipal = (principalKey: string) => closeWhere((entry) => entry.principal.key === principalKey)

    /** Server stop: every stream gets the graceful result; waits (at most `within`) until all are written. */
    const closeAll = (within: Duration.DurationInput = "2 seconds") =>
      Effect.gen(function*() {
        const done = yield* Deferred.make<void>()
        if (open.size === 0) return
        drained.add(done)
        yield* closeWhere(() => true)
        // Runs inside a finalizer (uninterruptible): the wait itself must be interruptible for its timeout to end it.
        yield* Effect.timeoutOption(Effect.interruptible(Deferred.await(done)), within)
      })

    /** A schema changed (DDL through dbdesk, or a structure reload in the UI): `resources/updated`. */
    const schemaChanged = Effect.fn("Subscriptions.schemaChanged")(function*(connectionId: string) {
      const connection = yield* connections.get(connectionId)
      if (connection === undefined) return
      for (const entry of open) {
        const uri = entry.schemaUris.get(connectionId)
        if (uri !== undefined && visibleTo(entry.principal, connection)) {
          yield* entry.mailbox.offer(message("notifications/resources/updated", entry.id, { uri }))
        }
      }
    })

    const onConnectionsChanged = Effect.gen(function*() {
      const all = yield* connections.list
      for (const entry of open) {
        if (!entry.listChanged) continue
        const next = fingerprintOf(entry.principal, all)
        if (next === entry.fingerprint) continue
        entry.fingerprint = next
        yield* entry.mailbox.offer(message("notifications/resources/list_changed", entry.id))
      }
    })

    yield* connections.changes.pipe(Stream.runForEach(() => onConnectionsChanged), Effect.forkScoped)
    yield* Effect.addFinalizer(() => closeWhere(() => true))

    const count = Effect.sync(() => open.size)
    const countFor = (principalKey: string) =>
      Effect.sync(() => [...open].filter((entry) => entry.principal.key === principalKey).length)

    return { subscribe, cancel, closeForPrincipal, closeAll, schemaChanged, count, countFor } as const
  })
}) {}

/** D-36: revoking a token closes its subscriptions (graceful result). */
export const RevocationClosesSubscriptions = Layer.scopedDiscard(Effect.gen(function*() {
  const tokens = yield* Tokens
  const subscriptions = yield* Subscriptions
  const revoked = yield* tokens.subscribeRevocations
  yield* Effect.forkScoped(Stream.runForEach(revoked, (tokenId) => subscriptions.closeForPrincipal(`token:${tokenId}`)))
}))

/**
 * Built after the HTTP server so that it is released first: at a clean stop every stream gets the
 * graceful result and is written out before the sockets close (D-47).
 */
export const SubscriptionsShutdown = Layer.scopedDiscard(
  Effect.flatMap(Subscriptions, (subscriptions) => Effect.addFinalizer(() => subscriptions.closeAll()))
)
