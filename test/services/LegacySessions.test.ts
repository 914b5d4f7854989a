import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, FastCheck, TestClock } from "effect"
import { LegacySessions } from "../../src/services/LegacySessions.ts"

/** Wire contract §8: 16 legacy sessions held (pinned here, not read from the source). */
const MAX_LEGACY_SESSIONS = 16

const alice = { key: "token:alice", kind: "token", access: "readWrite" } as const
const bob = { key: "token:bob", kind: "token", access: "readWrite" } as const
const reader = { key: "token:reader", kind: "token", access: "readOnly" } as const
const admin = { key: "token:admin", kind: "token", access: "fullAccess" } as const
const anonymousAt = (
  address: string
) => ({ key: `anonymous:${address}`, kind: "anonymous", access: "anonymous" } as const)

/** A reference LRU of capacity 16 to check the service against: least recently used first. */
const modelStep = (
  model: Array<number>,
  op: { kind: "create" } | { kind: "use"; index: number },
  next: number
): Array<number> => {
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
      const created = yield* Effect.forEach(Array.from({ length: 16 }, (_, i) => i), () =>
        sessions.create(alice, "2025-11-25"))
      yield* sessions.use(created[0]!.id, alice.key)
      const seventeenth = yield* sessions.create(alice, "2025-11-25")
      const ids = yield* sessions.ids
      assert.strictEqual(ids.length, 16)
      assert.isFalse(ids.includes(created[1]!.id))
      assert.isTrue(ids.includes(created[0]!.id))
      assert.strictEqual(ids[ids.length - 1], seventeenth.id)
      const evicted = yield* Effect.flip(sessions.use(created[1]!.id, alice.key))
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
            if (target !== undefined) yield* sessions.use(idsByNumber.get(target)!, alice.key)
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
        const foreign = yield* Effect.flip(sessions.use(first.id, bob.key))
        assert.strictEqual(foreign._tag, "SessionNotFound")
        assert.strictEqual(foreign.reason, "other-principal")
        const order = yield* sessions.ids
        assert.isTrue(order.indexOf(first.id) < order.indexOf(second.id))
        const own = yield* sessions.use(first.id, alice.key)
        expect(own).toMatchObject({
          principalKey: alice.key,
          protocolVersion: "2025-11-25",
          clientInfo: { name: "claude", version: "1" }
        })
      }))

    it.effect("C3.3-f an unknown id is not found", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const error = yield* Effect.flip(sessions.use("no-such-session", alice.key))
        assert.strictEqual(error.reason, "unknown")
      }))

    it.effect("C3.3-g a session has no idle expiry: a year later it still answers", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const session = yield* sessions.create(alice, "2025-11-25")
        yield* TestClock.adjust(Duration.days(365))
        const again = yield* sessions.use(session.id, alice.key)
        assert.strictEqual(again.id, session.id)
      }))

    it.effect("C3.3-a session ids are unguessable: 32 random bytes of visible ASCII, never repeated", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const ids = yield* Effect.forEach(
          Array.from({ length: 16 }, (_, i) => i),
          () => Effect.map(sessions.create(alice, "2025-11-25"), (s) => s.id)
        )
        assert.strictEqual(new Set(ids).size, ids.length)
        for (const id of ids) {
          assert.match(id, /^[A-Za-z0-9_-]{43}$/)
          assert.strictEqual(Buffer.from(id, "base64url").length, 32)
        }
      }))
  })

  describe("sessions counted per principal (D-45): no caller evicts the sessions of one with more access or fewer sessions", () => {
    const fill = (
      principal: { readonly key: string; readonly kind: "token" | "anonymous"; readonly access: any },
      count: number
    ) =>
      Effect.flatMap(
        LegacySessions,
        (sessions) =>
          Effect.forEach(Array.from({ length: count }, (_, i) => i), () => sessions.create(principal, "2025-11-25"))
      )

    it.effect("C3.3-e an anonymous caller, from any loopback address, cannot evict a token's sessions: the 17th initialize is 503 -33000 and nothing is evicted", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const held = yield* fill(alice, 16)
        for (const address of ["127.0.0.1", "127.0.0.2", "::1", "127.9.9.9"]) {
          const refused = yield* Effect.flip(sessions.create(anonymousAt(address), "2025-11-25"))
          assert.strictEqual(refused._tag, "LegacySessionsFull")
        }
        expect(yield* sessions.ids).toEqual(held.map((session) => session.id))
      }).pipe(Effect.provide(LegacySessions.Default)))

    it.effect("C3.3-e anonymous callers from many addresses count as one: once they hold sessions, a new one evicts their own least recently used", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const tokenHeld = yield* fill(alice, 8)
        const anonymous: Array<string> = []
        for (let i = 0; i < 40; i++) {
          anonymous.push((yield* sessions.create(anonymousAt(`127.0.0.${i + 1}`), "2025-11-25")).id)
        }
        const ids = yield* sessions.ids
        assert.strictEqual(ids.length, 16)
        for (const session of tokenHeld) assert.isTrue(ids.includes(session.id))
        expect(ids.filter((id) => !tokenHeld.some((session) => session.id === id))).toEqual(anonymous.slice(-8))
      }).pipe(Effect.provide(LegacySessions.Default)))

    it.effect("C3.3-e a readOnly token cannot evict a readWrite or fullAccess session; a fullAccess token evicts the least recently used below it", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const writers = yield* fill(alice, 8)
        const admins = yield* fill(admin, 8)
        assert.strictEqual((yield* Effect.flip(sessions.create(reader, "2025-11-25")))._tag, "LegacySessionsFull")
        yield* sessions.use(writers[0]!.id, alice.key)
        const next = yield* sessions.create(admin, "2025-11-25")
        const ids = yield* sessions.ids
        assert.isFalse(ids.includes(writers[1]!.id))
        for (const session of [writers[0]!, ...admins, next]) assert.isTrue(ids.includes(session.id))
      }).pipe(Effect.provide(LegacySessions.Default)))

    it.effect("C3.3-e between principals of one access level, one holding more sessions loses its own first, so a hog cannot push out a client with one session", () =>
      Effect.gen(function*() {
        const sessions = yield* LegacySessions
        const bobs = yield* fill(bob, 1)
        const alices = yield* fill(alice, 15)
        const more = yield* fill(alice, 5)
        const ids = yield* sessions.ids
        assert.isTrue(ids.includes(bobs[0]!.id))
        expect(ids.filter((id) => id !== bobs[0]!.id)).toEqual(
          [...alices, ...more].slice(-15).map((session) => session.id)
        )
        // A newcomer takes from the principal holding the most sessions, not from the one with a single session.
        const carol = { key: "token:carol", kind: "token", access: "readWrite" } as const
        const carols = yield* sessions.create(carol, "2025-11-25")
        const after = yield* sessions.ids
        for (const id of [bobs[0]!.id, carols.id]) assert.isTrue(after.includes(id))
        assert.isFalse(after.includes(ids.find((id) => id !== bobs[0]!.id)!))
      }).pipe(Effect.provide(LegacySessions.Default)))

    const creators = [
      anonymousAt("127.0.0.1"),
      anonymousAt("127.0.0.2"),
      reader,
      { key: "token:reader2", kind: "token", access: "readOnly" } as const,
      alice,
      bob,
      admin
    ]
    it.effect.prop(
      "C3.3-e for any sequence of initializes: at most 16 held, and a creator evicts only its own, a lower level's, or a same-level holder's with at least as many",
      [FastCheck.array(FastCheck.record({ who: FastCheck.nat(creators.length - 1), use: FastCheck.nat(40) }), {
        maxLength: 80
      })],
      ([steps]) =>
        Effect.gen(function*() {
          const sessions = yield* LegacySessions
          const holderOf = (
            creator: typeof creators[number]
          ) => (creator.kind === "anonymous" ? "anonymous" : creator.key)
          const rank = { anonymous: 0, readOnly: 1, readWrite: 2, fullAccess: 3 } as const
          const owner = new Map<string, typeof creators[number]>()
          for (const step of steps) {
            const creator = creators[step.who]!
            const before = yield* sessions.ids
            const counts = new Map<string, number>()
            for (const id of before) {
              counts.set(holderOf(owner.get(id)!), (counts.get(holderOf(owner.get(id)!)) ?? 0) + 1)
            }
            const created = yield* Effect.either(sessions.create(creator, "2025-11-25"))
            const after = yield* sessions.ids
            assert.isAtMost(after.length, 16)
            if (created._tag === "Left") {
              expect(after).toEqual(before)
              continue
            }
            owner.set(created.right.id, creator)
            const mine = (counts.get(holderOf(creator)) ?? 0) + 1
            for (const gone of before.filter((id) => !after.includes(id))) {
              const victim = owner.get(gone)!
              const allowed = holderOf(victim) === holderOf(creator) || rank[victim.access] < rank[creator.access] ||
                (rank[victim.access] === rank[creator.access] && counts.get(holderOf(victim))! >= mine)
              assert.isTrue(allowed, `${creator.key} evicted a session of ${victim.key}`)
            }
            const used = after[step.use % after.length]!
            yield* sessions.use(used, owner.get(used)!.key)
          }
        }).pipe(Effect.provide(LegacySessions.Default))
    )
  })
})
