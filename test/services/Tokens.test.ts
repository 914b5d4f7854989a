import { assert, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { parseExpiry, TOKEN_VALUE_PATTERN } from "../../src/domain/Token.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { tempHome } from "../support/TestServer.ts"

const tokensAt = (home: string) => Tokens.Default.pipe(Layer.provide(SupportPaths.layer(home)))
const withTokens = <A, E>(home: string, body: (tokens: Tokens) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(tokensAt(home)), (context) => body(context.unsafeMap.get(Tokens.key) as Tokens))
  )
const fileOf = (home: string) => readFileSync(join(home, "tokens.json"), "utf8")
const DAY = 86_400_000

describe("Tokens (D-31 token rows)", () => {
  it.effect("C5-g a created token is dbd_ + base64url(32 bytes), stored 0600 as a salted SHA-256 without its value", () => {
    const home = tempHome()
    return withTokens(home, (tokens) =>
      Effect.gen(function*() {
        const first = yield* tokens.create({ name: "a", access: "readOnly", connections: "all" })
        const second = yield* tokens.create({ name: "b", access: "readWrite", connections: ["c1"] })
        assert.match(first.value, TOKEN_VALUE_PATTERN)
        assert.strictEqual(first.token.prefix, first.value.slice(0, 8))
        const text = fileOf(home)
        assert.notInclude(text, first.value)
        assert.notInclude(text, second.value)
        assert.strictEqual(statSync(join(home, "tokens.json")).mode & 0o777, 0o600)
        const stored = JSON.parse(text).tokens
        expect(Object.keys(stored[0]).sort()).toEqual([
          "access",
          "bridge",
          "connections",
          "createdAt",
          "hash",
          "id",
          "lastUsedAt",
          "name",
          "prefix",
          "salt"
        ])
        assert.notStrictEqual(stored[0].salt, stored[1].salt)
        expect(stored[1].connections).toEqual(["c1"])
        const listed = yield* tokens.list()
        expect(listed.map((token) => Object.keys(token).includes("hash") || Object.keys(token).includes("salt")))
          .toEqual([false, false])
        const verified = yield* tokens.verify(second.value)
        assert.strictEqual(verified.kind, "valid")
        if (verified.kind === "valid") assert.strictEqual(verified.token.id, second.token.id)
      }))
  })

  it.effect("C5-c any other presented value — a one-character change, another prefix, garbage — is unknown", () => {
    const home = tempHome()
    return withTokens(home, (tokens) =>
      Effect.gen(function*() {
        const { value } = yield* tokens.create({ name: "a", access: "readOnly", connections: "all" })
        const samples = FastCheck.sample(
          FastCheck.tuple(
            FastCheck.nat({ max: value.length - 1 }),
            FastCheck.constantFrom(..."ABCxyz019-_"),
            FastCheck.string()
          ),
          60
        )
        for (const [index, replacement, garbage] of samples) {
          const mutated = value.slice(0, index) + replacement + value.slice(index + 1)
          if (mutated !== value) assert.strictEqual((yield* tokens.verify(mutated)).kind, "unknown")
          if (garbage !== value) assert.strictEqual((yield* tokens.verify(garbage)).kind, "unknown")
        }
        assert.strictEqual((yield* tokens.verify(value)).kind, "valid")
      }))
  })

  it.effect("C5-d expiry is read through Effect's Clock: valid until expiresAt, expired from then on", () => {
    const home = tempHome()
    return withTokens(home, (tokens) =>
      Effect.gen(function*() {
        const { value } = yield* tokens.create({
          name: "a",
          access: "readOnly",
          connections: "all",
          expiresAt: new Date(DAY)
        })
        assert.strictEqual((yield* tokens.verify(value)).kind, "valid")
        yield* TestClock.adjust(DAY - 1)
        assert.strictEqual((yield* tokens.verify(value)).kind, "valid")
        yield* TestClock.adjust(1)
        assert.strictEqual((yield* tokens.verify(value)).kind, "expired")
      }))
  })

  it.effect("lastUsedAt is written at most once a minute, in the background", () => {
    const home = tempHome()
    const lastUsed = () => JSON.parse(fileOf(home)).tokens[0].lastUsedAt
    /** The write happens off the request path: wait for it in real time (bounded), whatever TestClock says. */
    const written = (expected: string | null) =>
      Effect.promise(async () => {
        for (let i = 0; i < 400 && lastUsed() !== expected; i++) await new Promise((resolve) => setTimeout(resolve, 5))
        return lastUsed()
      })
    return withTokens(home, (tokens) =>
      Effect.gen(function*() {
        const { value } = yield* tokens.create({ name: "a", access: "readOnly", connections: "all" })
        assert.isNull(lastUsed())
        yield* tokens.verify(value)
        assert.strictEqual(yield* written(new Date(0).toISOString()), new Date(0).toISOString())
        yield* TestClock.adjust(59_999)
        yield* tokens.verify(value)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        assert.strictEqual(lastUsed(), new Date(0).toISOString())
        yield* TestClock.adjust(1)
        yield* tokens.verify(value)
        assert.strictEqual(yield* written(new Date(60_000).toISOString()), new Date(60_000).toISOString())
      }))
  })

  it.effect("C5-i revoke and delete make the value fail and publish the token id", () => {
    const home = tempHome()
    return withTokens(home, (tokens) =>
      Effect.scoped(Effect.gen(function*() {
        const revoked = yield* tokens.subscribeRevocations
        const collected = yield* Effect.fork(Stream.runCollect(Stream.take(revoked, 2)))
        const a = yield* tokens.create({ name: "a", access: "readOnly", connections: "all" })
        const b = yield* tokens.create({ name: "b", access: "readOnly", connections: "all" })
        yield* tokens.revoke(a.token.id)
        assert.strictEqual((yield* tokens.verify(a.value)).kind, "revoked")
        yield* tokens.remove(b.token.id)
        assert.strictEqual((yield* tokens.verify(b.value)).kind, "unknown")
        expect(Chunk.toArray(yield* Fiber.join(collected))).toEqual([a.token.id, b.token.id])
        const missing = yield* Effect.flip(tokens.revoke("no-such-id"))
        assert.strictEqual(missing._tag, "TokenNotFound")
      })))
  })

  it.live("C5-i the server stamping lastUsedAt never writes back a token another process deleted meanwhile", () => {
    const home = tempHome()
    return withTokens(home, (server) =>
      Effect.gen(function*() {
        for (let round = 0; round < 25; round++) {
          const created = yield* server.create({ name: `round ${round}`, access: "readOnly", connections: "all" })
          // The server's stamp and the CLI's delete race; whichever order they land in, the delete must stand.
          yield* Effect.all([
            server.verify(created.value),
            withTokens(home, (cli) => cli.remove(created.token.id))
          ], { concurrency: 2 })
          yield* Effect.sleep("30 millis")
          expect(JSON.parse(fileOf(home)).tokens.map((token: { id: string }) => token.id), `round ${round}`).not
            .toContain(created.token.id)
        }
      }))
  })

  it.effect("C5-i a token created or revoked by another process (the CLI) takes effect in the running store", () => {
    const home = tempHome()
    return withTokens(home, (server) =>
      Effect.scoped(Effect.gen(function*() {
        const revoked = yield* server.subscribeRevocations
        const first = yield* Effect.fork(Stream.runHead(revoked))
        const created = yield* withTokens(home, (cli) =>
          cli.create({ name: "cli", access: "fullAccess", connections: "all" }))
        assert.strictEqual((yield* server.verify(created.value)).kind, "valid")
        yield* withTokens(home, (cli) =>
          cli.revoke(created.token.id))
        yield* TestClock.adjust("2 seconds")
        assert.strictEqual(Option.getOrThrow(yield* Fiber.join(first)), created.token.id)
        assert.strictEqual((yield* server.verify(created.value)).kind, "revoked")
      })))
  })

  it.effect("the first start with no token mints one readWrite \"Default\" token, and never again", () => {
    const home = tempHome()
    return withTokens(home, (tokens) =>
      Effect.gen(function*() {
        const created = yield* tokens.ensureDefault()
        assert.isDefined(created)
        expect(created.token).toMatchObject({
          name: "Default",
          access: "readWrite",
          connections: "all",
          bridge: false
        })
        assert.isUndefined(yield* tokens.ensureDefault())
        yield* tokens.revoke(created.token.id)
        assert.isUndefined(yield* tokens.ensureDefault())
      }))
  })
})

describe("--expires parsing", () => {
  it.prop("Nd is exactly N days from now", [
    FastCheck.integer({ min: 1, max: 3650 }),
    FastCheck.integer({ min: 0, max: 4_000_000_000_000 })
  ], ([days, now]) => {
    const parsed = parseExpiry(`${days}d`, now)
    assert.isTrue(Either.isRight(parsed))
    assert.strictEqual(Either.getOrThrow(parsed)!.getTime(), now + days * DAY)
  })

  it.prop("a future calendar date stays valid through that whole UTC day", [
    FastCheck.date({ min: new Date("2030-01-01"), max: new Date("2090-12-31"), noInvalidDate: true })
  ], ([date]) => {
    const day = date.toISOString().slice(0, 10)
    const expires = Either.getOrThrow(parseExpiry(day, Date.parse("2029-06-01T00:00:00Z")))!
    assert.strictEqual(expires.toISOString(), new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString())
  })

  it("never and an absent flag give no expiry; past dates, impossible dates and other words are refused", () => {
    const now = Date.parse("2026-06-01T00:00:00Z")
    expect(parseExpiry("never", now)).toEqual(Either.right(undefined))
    expect(parseExpiry(undefined, now)).toEqual(Either.right(undefined))
    for (const bad of ["2020-01-01", "2027-02-30", "0d", "tomorrow", "30 days"]) {
      assert.isTrue(Either.isLeft(parseExpiry(bad, now)), bad)
    }
  })
})
