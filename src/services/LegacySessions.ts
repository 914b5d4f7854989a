import { Clock, Data, Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { ClientInfo } from "../domain/RequestEnvelope.ts"

/** Wire contract §8 "legacy sessions held": 16, least recently used evicted (C3.3-e). */
export const MAX_LEGACY_SESSIONS = 16

/** A legacy (2025-11-25 / 2025-06-18) client's session, bound to the principal that initialised it (§3.3, §5 point 9). */
export interface LegacySession {
  readonly id: string
  readonly principalKey: string
  /** The revision negotiated at `initialize`; fixed for the session's life. */
  readonly protocolVersion: string
  readonly clientInfo?: ClientInfo
  readonly createdAt: Date
}

/** No live session with this id for this principal: unknown, evicted, or bound to someone else. */
export class SessionNotFound extends Data.TaggedError("SessionNotFound")<{
  readonly sessionId: string
  readonly reason: "unknown" | "other-principal"
}> {}

/** 32 random bytes as base64url: visible ASCII, unguessable (interop §10.1 point 1). */
const newSessionId = (): string => randomBytes(32).toString("base64url")

/**
 * Wire contract §3.3 and product-decisions §4 "Legacy sessions": at most 16 sessions in memory,
 * the least recently used evicted when a 17th is created; no idle expiry, so a session lives
 * until it is evicted or the server stops (C3.3-g). A lookup under another principal fails and
 * leaves the store unchanged (C3.3-d).
 */
export class LegacySessions extends Effect.Service<LegacySessions>()("dbdesk/services/LegacySessions", {
  sync: () => {
    // A Map iterates in insertion order; re-inserting on use keeps the least recently used first.
    const store = new Map<string, LegacySession>()

    const create = Effect.fn("LegacySessions.create")(function*(
      principalKey: string,
      protocolVersion: string,
      clientInfo?: ClientInfo
    ) {
      const now = yield* Clock.currentTimeMillis
      const session: LegacySession = {
        id: newSessionId(),
        principalKey,
        protocolVersion,
        ...(clientInfo === undefined ? {} : { clientInfo }),
        createdAt: new Date(now)
      }
      store.set(session.id, session)
      while (store.size > MAX_LEGACY_SESSIONS) {
        const oldest = store.keys().next().value
        if (oldest === undefined) break
        store.delete(oldest)
      }
      return session
    })

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const use = Effect.fnUntraced(function*(sessionId: string, principalKey: string) {
      const session = store.get(sessionId)
      if (session === undefined) return yield* new SessionNotFound({ sessionId, reason: "unknown" })
      if (session.principalKey !== principalKey) return yield* new SessionNotFound({ sessionId, reason: "other-principal" })
      store.delete(sessionId)
      store.set(sessionId, session)
      return session
    })

    /** Session ids from least to most recently used. */
    const ids = Effect.sync((): ReadonlyArray<string> => [...store.keys()])

    return { create, use, ids } as const
  }
}) {}
