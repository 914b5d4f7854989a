import * as RateLimiter from "@effect/experimental/RateLimiter"
import { Duration, Effect, Layer } from "effect"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { layerStoreMemoryBounded } from "./RateLimitStore.ts"
import { SettingsStore } from "./Settings.ts"

const RATE_WINDOW = Duration.minutes(1)

/** D-39: `subscriptions/listen` takes no request slot (notifications never get here). */
const EXEMPT_METHODS: ReadonlySet<string> = new Set(["subscriptions/listen"])

/** Wire contract §7.1/§8: 429 -33010 with `Retry-After` in whole seconds. */
export const rateLimited = (message: string, retryAfterSeconds: number, limit: string) =>
  new ProtocolError({
    code: -33010,
    message,
    data: { limit, retryAfterSeconds },
    headers: { "retry-after": String(retryAfterSeconds) }
  })

const wholeSeconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

/**
 * Per-caller request limits (D-39): `limits.requestsPerMinute`
 * through the keyed RateLimiter of @effect/experimental (fixed window, so `Retry-After` is the
 * time until the window frees a slot) and `limits.concurrentPerCaller` as an in-flight count.
 * Both are read from the settings on every request, so a change applies without restart.
 */
export class RateLimits extends Effect.Service<RateLimits>()("dbdesk/services/RateLimits", {
  effect: Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const settings = yield* SettingsStore
    const inFlight = new Map<string, number>()

    const release = (callerKey: string) =>
      Effect.sync(() => {
        const count = (inFlight.get(callerKey) ?? 1) - 1
        if (count <= 0) inFlight.delete(callerKey)
        else inFlight.set(callerKey, count)
      })

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    /**
     * Takes a request slot for the caller, or fails 429 -33010. The returned effect gives the slot
     * back; it is idempotent, so every path that ends the request may call it.
     */
    const admit = Effect.fnUntraced(function*(callerKey: string, method: string) {
      if (EXEMPT_METHODS.has(method)) return Effect.void
      const { limits } = yield* settings.current
      if ((inFlight.get(callerKey) ?? 0) >= limits.concurrentPerCaller) {
        return yield* rateLimited(
          `At most ${limits.concurrentPerCaller} requests may run at once for one caller; retry when one finishes`,
          1,
          "concurrentPerCaller"
        )
      }
      yield* limiter.consume({
        algorithm: "fixed-window",
        onExceeded: "fail",
        window: RATE_WINDOW,
        limit: limits.requestsPerMinute,
        key: callerKey
      }).pipe(
        Effect.catchTag("RateLimiterError", (error) =>
          error.reason === "Exceeded"
            ? Effect.fail(
              rateLimited(
                `At most ${limits.requestsPerMinute} requests a minute per caller`,
                wholeSeconds(error.retryAfter),
                "requestsPerMinute"
              )
            )
            : Effect.die(error))
      )
      inFlight.set(callerKey, (inFlight.get(callerKey) ?? 0) + 1)
      let released = false
      return Effect.suspend(() => {
        if (released) return Effect.void
        released = true
        return release(callerKey)
      })
    })

    const running = (callerKey: string) => Effect.sync(() => inFlight.get(callerKey) ?? 0)

    return { admit, running } as const
  }),
  dependencies: [RateLimiter.layer.pipe(Layer.provide(layerStoreMemoryBounded))]
}) {}
