import { Clock, Effect } from "effect"
import { touch, trimToBound } from "./BoundedMap.ts"

export interface LockoutPolicy {
  readonly maxFailures: number
  readonly windowMs: number
  readonly lockoutMs: number
}

/** D-39: failed authentication, 5 per 60 s per (address, fingerprint) → 300 s. */
export const AUTH_LOCKOUT: LockoutPolicy = { maxFailures: 5, windowMs: 60_000, lockoutMs: 300_000 }
/** D-39: pairing exchange, 5 failures per 300 s → 900 s. */
export const PAIRING_LOCKOUT: LockoutPolicy = { maxFailures: 5, windowMs: 300_000, lockoutMs: 900_000 }

/** Entries without a live lockout or a recent failure are swept once the table grows past this. */
const SWEEP_THRESHOLD = 1024

/**
 * Callers counted at most. The key holds the presented token's fingerprint, so a client trying a new token on every
 * request makes a new entry each time; past this bound the least recently failed go first (each of them could only
 * lock out its own fingerprint, so forgetting one gives an attacker nothing a fresh fingerprint would not).
 */
export const MAX_LOCKOUT_ENTRIES = 16_384

interface Entry {
  failures: Array<number>
  lockedUntil: number
}

export type LockoutStatus = { readonly locked: false } | { readonly locked: true; readonly retryAfterSeconds: number }

/**
 * A failure counter with lockout, keyed by the caller. Failures are kept as a sliding log of
 * timestamps: the in-memory store of `@effect/experimental`'s RateLimiter leaks one token per
 * window/limit (12 s here), so five failures 13 s apart would never lock; and it has no notion of
 * a lockout that outlasts the window. Time comes from Effect's Clock.
 */
export const makeLockout = (policy: LockoutPolicy) => {
  const entries = new Map<string, Entry>()

  /** The next sweep waits until the table has grown by a quarter, so failures cost O(1) each on average. */
  let sweepAbove = SWEEP_THRESHOLD

  const sweep = (now: number) => {
    if (entries.size <= sweepAbove) return
    for (const [key, entry] of entries) {
      if (entry.lockedUntil <= now && entry.failures.every((at) => now - at >= policy.windowMs)) entries.delete(key)
    }
    trimToBound(entries, MAX_LOCKOUT_ENTRIES - 1)
    sweepAbove = Math.min(MAX_LOCKOUT_ENTRIES - 1, Math.max(SWEEP_THRESHOLD, Math.floor(entries.size * 1.25)))
  }

  const status = (key: string) =>
    Effect.map(Clock.currentTimeMillis, (now): LockoutStatus => {
      const entry = entries.get(key)
      if (entry === undefined || entry.lockedUntil <= now) return { locked: false }
      return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil((entry.lockedUntil - now) / 1000)) }
    })

  /** Records one failure; the failure that reaches the limit starts the lockout. */
  const fail = (key: string) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      sweep(now)
      const entry = entries.get(key) ?? { failures: [], lockedUntil: 0 }
      entry.failures = [...entry.failures.filter((at) => now - at < policy.windowMs), now]
      if (entry.failures.length >= policy.maxFailures) {
        entry.lockedUntil = now + policy.lockoutMs
        entry.failures = []
      }
      touch(entries, key, entry)
    })

  /** A success clears the counter (not a running lockout: a locked pair is never checked). */
  const succeed = (key: string) => Effect.sync(() => void entries.delete(key))

  /** Callers counted now (for tests and diagnostics). */
  const size = () => entries.size

  return { status, fail, succeed, size } as const
}

/** Failed-authentication lockouts, counted apart from request rates (wire contract §5 point 10). */
export class AuthLockouts extends Effect.Service<AuthLockouts>()("dbdesk/services/AuthLockouts", {
  sync: () => makeLockout(AUTH_LOCKOUT)
}) {}

/** Pairing-exchange lockouts for the UI's `POST /api/pairing/exchange` (wire contract §5 point 10). */
export class PairingLockouts extends Effect.Service<PairingLockouts>()("dbdesk/services/PairingLockouts", {
  sync: () => makeLockout(PAIRING_LOCKOUT)
}) {}
