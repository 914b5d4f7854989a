import { RateLimiter } from "@effect/experimental"
import { Duration, Effect, Layer } from "effect"
import { touch, trimToBound } from "./BoundedMap.ts"

/**
 * Callers whose request counts are kept at most. The store of @effect/experimental never forgets a key (one per token
 * id or anonymous address, and the bridge mints a new token every hour); this one drops a caller whose window has
 * ended once the table passes the bound, then the least recently seen down to three quarters (a forgotten caller
 * starts a fresh window, which only matters with thousands of callers active in one minute).
 */
export const MAX_RATE_LIMIT_KEYS = 4096

interface Counter {
  count: number
  expiresAt: number
}

interface Bucket {
  tokens: number
  lastRefill: number
}

/**
 * The in-memory RateLimiterStore with a bounded key table; the counting is the library's own
 * (`RateLimiter.layerStoreMemory`, @effect/experimental 0.61): fixed windows refill one token per `refillRate`.
 */
export const makeStoreMemoryBounded = () => {
  const counters = new Map<string, Counter>()
  const buckets = new Map<string, Bucket>()
  const store = RateLimiter.RateLimiterStore.of({
    fixedWindow: (options) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const refillMillis = Duration.toMillis(options.refillRate)
          const now = clock.unsafeCurrentTimeMillis()
          const known = counters.get(options.key)
          const counter = known === undefined || known.expiresAt <= now ? { count: 0, expiresAt: now } : known
          touch(counters, options.key, counter)
          trimToBound(counters, MAX_RATE_LIMIT_KEYS, (entry) => entry !== counter && entry.expiresAt <= now)
          if (options.limit !== undefined && counter.count + options.tokens > options.limit) {
            return [counter.count + options.tokens, counter.expiresAt - now] as const
          }
          counter.count += options.tokens
          counter.expiresAt += refillMillis * options.tokens
          return [counter.count, counter.expiresAt - now] as const
        })
      ),
    tokenBucket: (options) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const refillMillis = Duration.toMillis(options.refillRate)
          const now = clock.unsafeCurrentTimeMillis()
          const bucket = buckets.get(options.key) ?? { tokens: options.limit, lastRefill: now }
          const added = Math.floor((now - bucket.lastRefill) / refillMillis)
          if (added > 0) {
            bucket.tokens = Math.min(options.limit, bucket.tokens + added)
            bucket.lastRefill += added * refillMillis
          }
          touch(buckets, options.key, bucket)
          trimToBound(buckets, MAX_RATE_LIMIT_KEYS, (entry) => entry !== bucket && entry.tokens >= options.limit)
          const left = bucket.tokens - options.tokens
          if (options.allowOverflow || left >= 0) bucket.tokens = left
          return left
        })
      )
  })
  /** Callers currently counted (for tests and diagnostics). */
  const size = () => counters.size + buckets.size
  return { store, size } as const
}

export const layerStoreMemoryBounded = Layer.sync(RateLimiter.RateLimiterStore, () => makeStoreMemoryBounded().store)
