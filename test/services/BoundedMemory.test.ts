import { RateLimiter } from "@effect/experimental"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, TestClock } from "effect"
import { AUTH_LOCKOUT, makeLockout, MAX_LOCKOUT_ENTRIES } from "../../src/services/AuthLockouts.ts"
import { touch, trimToBound } from "../../src/services/BoundedMap.ts"
import { makeStoreMemoryBounded, MAX_RATE_LIMIT_KEYS } from "../../src/services/RateLimitStore.ts"

describe("in-memory tables keyed by what callers choose stay within their bounds (D-39)", () => {
  it.prop("trimToBound keeps at most the bound and never the entry just touched when it is excluded", [
    FastCheck.array(FastCheck.tuple(FastCheck.integer({ min: 0, max: 500 }), FastCheck.boolean()), { maxLength: 400 }),
    FastCheck.integer({ min: 4, max: 64 })
  ], ([touches, max]) => {
    const entries = new Map<number, boolean>()
    for (const [key, over] of touches) {
      touch(entries, key, over)
      trimToBound(entries, max, (isOver, other) => isOver && other !== key)
      expect(entries.size).toBeLessThanOrEqual(max)
      expect(entries.get(key)).toBe(over)
    }
  })

  it("trimToBound drops what is over first, then the least recently touched, down to three quarters", () => {
    const entries = new Map<string, boolean>()
    for (const key of ["a", "b", "c", "d", "e"]) touch(entries, key, key === "d")
    touch(entries, "a", false)
    trimToBound(entries, 4, (over) => over)
    expect([...entries.keys()]).toEqual(["b", "c", "e", "a"])
    touch(entries, "f", false)
    trimToBound(entries, 4)
    expect([...entries.keys()]).toEqual(["e", "a", "f"])
  })

  it.effect("the rate-limit store forgets callers past MAX_RATE_LIMIT_KEYS and still limits the callers it counts", () =>
    Effect.gen(function*() {
      const { size, store } = makeStoreMemoryBounded()
      const limiter = yield* RateLimiter.make.pipe(Effect.provideService(RateLimiter.RateLimiterStore, store))
      const consume = (key: string) =>
        limiter.consume({ algorithm: "fixed-window", onExceeded: "fail", window: "1 minute", limit: 3, key }).pipe(
          Effect.either
        )
      for (let i = 0; i < 3; i++) assert.isTrue((yield* consume("busy"))._tag === "Right")
      assert.isTrue((yield* consume("busy"))._tag === "Left")
      for (let caller = 0; caller < MAX_RATE_LIMIT_KEYS * 3; caller++) {
        yield* consume(`caller-${caller}`)
        if (caller === MAX_RATE_LIMIT_KEYS / 2) assert.isTrue((yield* consume("busy"))._tag === "Left")
      }
      assert.isAtMost(size(), MAX_RATE_LIMIT_KEYS)
      yield* TestClock.adjust("1 minute")
      yield* consume("after")
      assert.isAtMost(size(), MAX_RATE_LIMIT_KEYS)
    }))

  it.effect("failed authentications with a new token each time do not grow the lockout table past MAX_LOCKOUT_ENTRIES", () =>
    Effect.gen(function*() {
      const lockout = makeLockout(AUTH_LOCKOUT)
      for (let index = 0; index < MAX_LOCKOUT_ENTRIES + 2000; index++) yield* lockout.fail(`127.0.0.1|token-${index}`)
      assert.isAtMost(lockout.size(), MAX_LOCKOUT_ENTRIES)
      for (let index = 0; index < AUTH_LOCKOUT.maxFailures; index++) yield* lockout.fail("127.0.0.1|guessed")
      assert.isTrue((yield* lockout.status("127.0.0.1|guessed")).locked)
    }))
})
