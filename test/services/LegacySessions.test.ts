import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, FastCheck, TestClock } from "effect"
import { LegacySessions, MAX_LEGACY_SESSIONS } from "../../src/services/LegacySessions.ts"

const alice = "token:alice"
const bob = "token:bob"

/** A reference LRU of capacity 16 to check the service against: least recently used first. */
const modelStep = (model: Array<number>, op: { kind: "create" } | { kind: "use"; index: number }, next: number): Array<number> => {
  if (op.kind === "create") return [...model, next].slice(-MAX_LEGACY_SESSIONS)
  const target = model[op.index % Math.max(model.length, 1)]
  return target === undefined ? model : [...model.filter((entry) => entry !== target), target]
}

const operation = FastCheck.oneof(
  FastCheck.constant({ kind: "create" as const }),
  FastCheck.record({ kind: FastCheck.constant("use" as const), index: FastCheck.nat(40) })
)

describe("LegacySessions", () => {
  it.effect("C3.3-e the 17th session evicts the least recently used; the store holds 16", () =>
    Effect.gen(function*() {
      const sessions = yield* LegacySessions
      const created = yield* Effect.forEach(Array.from({ length: 16 }, (_, i) => i), () => sessions.create(alice, "2025-11-25"))
      yield* sessions.use(created[0]!.id, alice)
      const seventeenth = yield* sessions.create(alice, "2025-11-25")
      const ids = yield* sessions.ids
      assert.strictEqual(ids.length, 16)
      assert.isFalse(ids.includes(created[1]!.id))
      assert.isTrue(ids.includes(created[0]!.id))
      assert.strictEqual(ids[ids.length - 1], seventeenth.id)
      const evicted = yield* Effect.flip(sessions.use(created[1]!.id, alice))
      assert.strictEqual(evicted.reason, "unknown")
    }).pipe(Effect.provide(LegacySessions.Default)))

  it.effect.prop(
    "C3.3-e any sequence of creates and uses keeps exactly the 16 most recently used sessions, in recency order",
    [FastCheck.array(operation, { maxLength: 60 })],
    ([ops]) =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const idsByNumber = new Map<number, string>()
        let model: Array<number> = []
        for (const [step, op] of ops.entries()) {
          if (op.kind === "create") {
            idsByNumber.set(step, (yield* sessions.create(alice, "2025-06-18")).id)
          } else {
            const target = model[op.index % Math.max(model.length, 1)]
            if (target !== undefined) yield* sessions.use(idsByNumber.get(target)!, alice)
          }
          model = modelStep(model, op, step)
        }
        expect(yield* sessions.ids).toEqual(model.map((n) => idsByNumber.get(n)))
      }).pipe(Effect.provide(LegacySessions.Default))
  )

  layer(LegacySessions.Default)("one store", (it) => {
    it.effect("C3.3-c C3.3-d a session answers its own principal only; a foreign lookup leaves the store unchanged", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const first = yield* sessions.create(alice, "2025-11-25", { name: "claude", version: "1" })
        const second = yield* sessions.create(alice, "2025-06-18")
        const foreign = yield* Effect.flip(sessions.use(first.id, bob))
        assert.strictEqual(foreign._tag, "SessionNotFound")
        assert.strictEqual(foreign.reason, "other-principal")
        const order = yield* sessions.ids
        assert.isTrue(order.indexOf(first.id) < order.indexOf(second.id))
        const own = yield* sessions.use(first.id, alice)
        expect(own).toMatchObject({ principalKey: alice, protocolVersion: "2025-11-25", clientInfo: { name: "claude", version: "1" } })
      }))

    it.effect("C3.3-f an unknown id is not found", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const error = yield* Effect.flip(sessions.use("no-such-session", alice))
        assert.strictEqual(error.reason, "unknown")
      }))

    it.effect("C3.3-g a session has no idle expiry: a year later it still answers", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const session = yield* sessions.create(alice, "2025-11-25")
        yield* TestClock.adjust(Duration.days(365))
        const again = yield* sessions.use(session.id, alice)
        assert.strictEqual(again.id, session.id)
      }))

    it.effect("C3.3-a session ids are unguessable: 32 random bytes of visible ASCII, never repeated", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const ids = yield* Effect.forEach(Array.from({ length: 16 }, (_, i) => i), () => Effect.map(sessions.create(alice, "2025-11-25"), (s) => s.id))
        assert.strictEqual(new Set(ids).size, ids.length)
        for (const id of ids) {
          assert.match(id, /^[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(Buffer.from(id, "base64url").length, 32)
        }
      }))
  })
})
