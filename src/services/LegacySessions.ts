import { Clock, Data, Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { Principal } from "../domain/Principal.ts"
import type { ClientInfo } from "../domain/RequestEnvelope.ts"

/** Wire contract §8 "legacy sessions held": 16, least recently used evicted (C3.3-e). */
export const MAX_LEGACY_SESSIONS = 16

/** A legacy (2025-11-25 / 2025-06-18) client's session, bound to the principal that initialised it (§3.3, §5 point 9). */
export interface LegacySession {
  readonly id: string
  readonly principalKey: string
  /** Who the session counts against: the principal, or `anonymous` for every anonymous caller. */
  readonly holder: string
  readonly rank: number
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

/** The 16 sessions are held by principals this caller may not evict (D-45): nothing was created or evicted. */
export class LegacySessionsFull extends Data.TaggedError("LegacySessionsFull")<{ readonly held: number }> {}

/** The creator of a session, as far as the store's eviction policy needs it. */
export type SessionCreator = Pick<Principal, "key" | "kind" | "access">

const RANK: Record<Principal["access"], number> = { anonymous: 0, readOnly: 1, readWrite: 2, fullAccess: 3 }

/** Every anonymous caller counts as one holder: any loopback address can be used, so an address is no identity. */
const holderOf = (creator: SessionCreator): string => (creator.kind === "anonymous" ? "anonymous" : creator.key)

/**
 * Within wire contract §3.3 (17th session → a least recently used one evicted, at most 16 held): the
 * session evicted for a new one is the least recently used of the holder with the most sessions among those the
 * creator may evict — its own, those of holders with a lower access level, and those of holders of its level with at
 * least as many sessions as it will hold. One holder alone gets plain LRU. An anonymous or lower-level caller can so
 * never push out a token client's sessions, nor can a client that opens many sessions push out one that has few.
 * `undefined` when the creator may evict none (`initialize` is then 503 -33000, D-46).
 */
const victimFor = (store: ReadonlyMap<string, LegacySession>, holder: string, rank: number): string | undefined => {
  const counts = new Map<string, number>()
  for (const session of store.values()) counts.set(session.holder, (counts.get(session.holder) ?? 0) + 1)
  const mine = (counts.get(holder) ?? 0) + 1
  let victim: LegacySession | undefined
  for (const session of store.values()) {
    const held = counts.get(session.holder)!
    const evictable = session.holder === holder || session.rank < rank || (session.rank === rank && held >= mine)
    // The store iterates least recently used first, so the first session of the largest holder is its LRU one.
    if (evictable && (victim === undefined || held > counts.get(victim.holder)!)) victim = session
  }
  return victim?.id
}

/** 32 random bytes as base64url: visible ASCII, unguessable (interop §10.1 point 1). */
const newSessionId = (): string => randomBytes(32).toString("base64url")

/**
 * Wire contract §3.3 and D-45: at most 16 sessions in memory,
 * one evicted when a 17th is created (`victimFor` says which); no idle expiry, so a session lives
 * until it is evicted or the server stops (C3.3-g). A lookup under another principal fails and
 * leaves the store unchanged (C3.3-d).
 */
export class LegacySessions extends Effect.Service<LegacySessions>()("dbdesk/services/LegacySessions", {
  sync: () => {
    // A Map iterates in insertion order; re-inserting on use keeps the least recently used first.
    const store = new Map<string, LegacySession>()

    const create = Effect.fn("LegacySessions.create")(function*(
      creator: SessionCreator,
      protocolVersion: string,
      clientInfo?: ClientInfo
    ) {
      const holder = holderOf(creator)
      const rank = RANK[creator.access]
      if (store.size >= MAX_LEGACY_SESSIONS) {
        const victim = victimFor(store, holder, rank)
        if (victim === undefined) return yield* new LegacySessionsFull({ held: store.size })
        store.delete(victim)
      }
      const now = yield* Clock.currentTimeMillis
      const session: LegacySession = {
        id: newSessionId(),
        principalKey: creator.key,
        holder,
        rank,
        protocolVersion,
        ...(clientInfo === undefined ? {} : { clientInfo }),
        createdAt: new Date(now)
      }
      store.set(session.id, session)
      return session
    })

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const use = Effect.fnUntraced(function*(sessionId: string, principalKey: string) {
      const session = store.get(sessionId)
      if (session === undefined) return yield* new SessionNotFound({ sessionId, reason: "unknown" })
      if (session.principalKey !== principalKey) {
        return yield* new SessionNotFound({ sessionId, reason: "other-principal" })
      }
      store.delete(sessionId)
      store.set(sessionId, session)
      return session
    })

    /** Session ids from least to most recently used. */
    const ids = Effect.sync((): ReadonlyArray<string> => [...store.keys()])

    return { create, use, ids } as const
  }
}) {}
