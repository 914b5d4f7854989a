import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck, TestClock } from "effect"
import { AUTH_LOCKOUT, makeLockout, PAIRING_LOCKOUT, type LockoutPolicy } from "../../src/services/AuthLockouts.ts"

const gaps = (policy: LockoutPolicy, count: number) =>
  FastCheck.array(FastCheck.integer({ min: 0, max: Math.floor((policy.windowMs - 1) / (count - 1)) }), { minLength: count - 1, maxLength: count - 1 })

const failAfter = (lockout: ReturnType<typeof makeLockout>, key: string, waits: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    yield* lockout.fail(key)
    for (const wait of waits) {
      yield* TestClock.adjust(wait)
      yield* lockout.fail(key)
    }
  })

describe("lockouts (product-decisions §4 \"Rate limits\", wire contract §5 point 10)", () => {
  for (const [name, policy] of [["failed authentication", AUTH_LOCKOUT], ["pairing exchange", PAIRING_LOCKOUT]] as const) {
    it.effect.prop(`C5-j ${name}: ${policy.maxFailures} failures inside ${policy.windowMs / 1000} s lock for exactly ${policy.lockoutMs / 1000} s from the last one`, [gaps(policy, policy.maxFailures)], ([waits]) =>
      Effect.gen(function*() {
        const lockout = makeLockout(policy)
        yield* failAfter(lockout, "pair", waits)
        const locked = yield* lockout.status("pair")
        assert.deepStrictEqual(locked, { locked: true, retryAfterSeconds: policy.lockoutMs / 1000 })
        assert.isFalse((yield* lockout.status("other")).locked)
        yield* TestClock.adjust(policy.lockoutMs - 1)
        assert.isTrue((yield* lockout.status("pair")).locked)
        yield* TestClock.adjust(1)
        assert.isFalse((yield* lockout.status("pair")).locked)
      }), { fastCheck: { numRuns: 40 } })

    it.effect.prop(`C5-j ${name}: fewer failures, or failures spread beyond the window, never lock`, [gaps(policy, policy.maxFailures - 1), FastCheck.integer({ min: policy.windowMs, max: policy.windowMs * 3 })], ([waits, spread]) =>
      Effect.gen(function*() {
        const lockout = makeLockout(policy)
        yield* failAfter(lockout, "pair", waits)
        assert.isFalse((yield* lockout.status("pair")).locked)
        const spaced = makeLockout(policy)
        yield* failAfter(spaced, "pair", Array.from({ length: policy.maxFailures - 1 }, () => Math.ceil(spread / (policy.maxFailures - 1)) + 1))
        assert.isFalse((yield* spaced.status("pair")).locked)
      }), { fastCheck: { numRuns: 40 } })
  }

  it.effect("C5-j a success clears the failure count", () =>
    Effect.gen(function*() {
      const lockout = makeLockout(AUTH_LOCKOUT)
      yield* failAfter(lockout, "pair", [1, 1, 1])
      yield* lockout.succeed("pair")
      yield* failAfter(lockout, "pair", [1, 1, 1])
      assert.isFalse((yield* lockout.status("pair")).locked)
      yield* lockout.fail("pair")
      assert.isTrue((yield* lockout.status("pair")).locked)
    }))
})
