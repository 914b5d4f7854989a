import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck, TestClock } from "effect"
import { AuthLockouts, makeLockout, PairingLockouts } from "../../src/services/AuthLockouts.ts"

/**
 * Product-decisions §4 "Rate limits", pinned here as literals (never read from the source): failed authentication
 * 5 per 60 s → 300 s lockout; pairing exchange 5 failures per 300 s → 900 s lockout.
 */
type Lockout = ReturnType<typeof makeLockout>

/** A new instance of the service the server wires, each time it runs. */
const freshAuth: Effect.Effect<Lockout> = Effect.provide(AuthLockouts, AuthLockouts.Default)
const freshPairing: Effect.Effect<Lockout> = Effect.provide(PairingLockouts, PairingLockouts.Default)

const POLICIES = [
  { name: "failed authentication", fresh: freshAuth, maxFailures: 5, windowMs: 60_000, lockoutMs: 300_000 },
  { name: "pairing exchange", fresh: freshPairing, maxFailures: 5, windowMs: 300_000, lockoutMs: 900_000 }
] as const

const gaps = (windowMs: number, count: number) =>
  FastCheck.array(FastCheck.integer({ min: 0, max: Math.floor((windowMs - 1) / (count - 1)) }), {
    minLength: count - 1,
    maxLength: count - 1
  })

const failAfter = (lockout: Lockout, key: string, waits: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    yield* lockout.fail(key)
    for (const wait of waits) {
      yield* TestClock.adjust(wait)
      yield* lockout.fail(key)
    }
  })

describe("lockouts (D-39, wire contract §5 point 10)", () => {
  for (const { name, fresh, maxFailures, windowMs, lockoutMs } of POLICIES) {
    it.effect.prop(
      `C5-j ${name}: ${maxFailures} failures inside ${windowMs / 1000} s lock for exactly ${
        lockoutMs / 1000
      } s from the last one`,
      [gaps(windowMs, maxFailures)],
      ([waits]) =>
        Effect.gen(function*() {
          const lockout = yield* fresh
          yield* failAfter(lockout, "pair", waits)
          const locked = yield* lockout.status("pair")
          assert.deepStrictEqual(locked, { locked: true, retryAfterSeconds: lockoutMs / 1000 })
          assert.isFalse((yield* lockout.status("other")).locked)
          yield* TestClock.adjust(lockoutMs - 1)
          assert.isTrue((yield* lockout.status("pair")).locked)
          yield* TestClock.adjust(1)
          assert.isFalse((yield* lockout.status("pair")).locked)
        }),
      { fastCheck: { numRuns: 40 } }
    )

    it.effect(`C5-j ${name}: the window is exactly ${windowMs / 1000} s: the first failure still counts ${windowMs - 1} ms later, not ${windowMs} ms later`, () =>
      Effect.gen(function*() {
        const inside = yield* fresh
        yield* failAfter(inside, "pair", [...Array.from({ length: maxFailures - 2 }, () => 0), windowMs - 1])
        assert.isTrue((yield* inside.status("pair")).locked)
        const outside = yield* fresh
        yield* failAfter(outside, "pair", [...Array.from({ length: maxFailures - 2 }, () => 0), windowMs])
        assert.isFalse((yield* outside.status("pair")).locked)
      }))

    it.effect.prop(
      `C5-j ${name}: ${maxFailures - 1} failures, or ${maxFailures} spread beyond the window, never lock`,
      [gaps(windowMs, maxFailures - 1), FastCheck.integer({ min: windowMs, max: windowMs * 3 })],
      ([waits, spread]) =>
        Effect.gen(function*() {
          const lockout = yield* fresh
          yield* failAfter(lockout, "pair", waits)
          assert.isFalse((yield* lockout.status("pair")).locked)
          const spaced = yield* fresh
          yield* failAfter(
            spaced,
            "pair",
            Array.from({ length: maxFailures - 1 }, () => Math.ceil(spread / (maxFailures - 1)) + 1)
          )
          assert.isFalse((yield* spaced.status("pair")).locked)
        }),
      { fastCheck: { numRuns: 40 } }
    )
  }

  it.effect("C5-j a success clears the failure count", () =>
    Effect.gen(function*() {
      const lockout = yield* freshAuth
      yield* failAfter(lockout, "pair", [1, 1, 1])
      yield* lockout.succeed("pair")
      yield* failAfter(lockout, "pair", [1, 1, 1])
      assert.isFalse((yield* lockout.status("pair")).locked)
      yield* lockout.fail("pair")
      assert.isTrue((yield* lockout.status("pair")).locked)
    }))
})
