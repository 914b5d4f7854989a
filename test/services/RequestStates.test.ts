import { it } from "@effect/vitest"
import { Effect, Either, FastCheck, TestClock } from "effect"
import { describe, expect } from "vitest"
import { anonymousPrincipal, scopesForLevel, type Principal } from "../../src/domain/Principal.ts"
import { canonicalJson, paramsDigest, RequestStates } from "../../src/services/RequestStates.ts"

const alice: Principal = {
  key: "token:alice",
  kind: "token",
  access: "readWrite",
  scopes: scopesForLevel("readWrite"),
  tokenId: "alice",
  connections: "all"
}
const bob: Principal = { ...alice, key: "token:bob", tokenId: "bob" }
const params = { name: "execute_query", arguments: { connection_id: "c1", query: "UPDATE t SET a = 1" } }

describe("requestState (D-27)", () => {
  it.effect("C3.1-h C8-e a state older than 5 minutes is refused -32602 with data.reason expired", () =>
    Effect.gen(function*() {
      const states = yield* RequestStates
      const state = yield* states.issue(alice, "tools/call", params)
      yield* TestClock.adjust("301 seconds")
      const error = yield* Effect.flip(states.redeem(alice, "tools/call", params, state))
      expect(error.code).toBe(-32602)
      expect(error.data).toStrictEqual({ reason: "expired" })
    }).pipe(Effect.provide(RequestStates.Default)))

  it.effect("C3.1-h a state used within 5 minutes is accepted once", () =>
    Effect.gen(function*() {
      const states = yield* RequestStates
      const state = yield* states.issue(alice, "tools/call", params)
      yield* TestClock.adjust("299 seconds")
      yield* states.redeem(alice, "tools/call", params, state)
      const replay = yield* Effect.either(states.redeem(alice, "tools/call", params, state))
      expect(Either.isLeft(replay) && replay.left.code).toBe(-32602)
    }).pipe(Effect.provide(RequestStates.Default)))

  it.effect("C3.1-i a state is bound to the principal, the method and the params digest", () =>
    Effect.gen(function*() {
      const states = yield* RequestStates
      const redeem = (principal: Principal, method: string, body: typeof params) =>
        Effect.flatMap(states.issue(alice, "tools/call", params), (state) =>
          Effect.either(states.redeem(principal, method, body, state)))
      for (
        const outcome of [
          yield* redeem(bob, "tools/call", params),
          yield* redeem(anonymousPrincipal("127.0.0.1"), "tools/call", params),
          yield* redeem(alice, "prompts/get", params),
          yield* redeem(alice, "tools/call", {
            ...params,
            arguments: { ...params.arguments, query: "UPDATE t SET a = 2" }
          })
        ]
      ) {
        expect(Either.isLeft(outcome) && outcome.left.code).toBe(-32602)
      }
    }).pipe(Effect.provide(RequestStates.Default)))

  it.effect.prop(
    "C3.1-g any single-character change to a state is refused",
    [FastCheck.nat(), FastCheck.char()],
    ([position, replacement]) =>
      Effect.gen(function*() {
        const states = yield* RequestStates
        const state = yield* states.issue(alice, "tools/call", params)
        const index = position % state.length
        if (state[index] === replacement) return
        const tampered = state.slice(0, index) + replacement + state.slice(index + 1)
        const outcome = yield* Effect.either(states.redeem(alice, "tools/call", params, tampered))
        expect(Either.isLeft(outcome) && outcome.left.code).toBe(-32602)
      }).pipe(Effect.provide(RequestStates.Default))
  )

  it.effect("C3.1-g a state whose signature's unused base64url bits are flipped is refused (it decodes to the same bytes)", () =>
    Effect.gen(function*() {
      const states = yield* RequestStates
      const state = yield* states.issue(alice, "tools/call", params)
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      const last = alphabet.indexOf(state.at(-1)!)
      const flipped = state.slice(0, -1) + alphabet[last ^ 1]
      expect(Buffer.from(flipped.split(".")[2]!, "base64url")).toStrictEqual(
        Buffer.from(state.split(".")[2]!, "base64url")
      )
      const outcome = yield* Effect.either(states.redeem(alice, "tools/call", params, flipped))
      expect(Either.isLeft(outcome) && outcome.left.code).toBe(-32602)
    }).pipe(Effect.provide(RequestStates.Default)))

  it.prop("C3.1-i the params digest ignores _meta, inputResponses, requestState and key order", [
    FastCheck.dictionary(FastCheck.string(), FastCheck.jsonValue()),
    FastCheck.jsonValue(),
    FastCheck.string()
  ], ([body, meta, state]) => {
    const reversed = Object.fromEntries(Object.entries(body).reverse())
    const plain = paramsDigest(body as any)
    expect(paramsDigest({ ...(reversed as any), _meta: meta as any, requestState: state, inputResponses: {} })).toBe(
      plain
    )
    expect(canonicalJson(reversed as any)).toBe(canonicalJson(body as any))
  })
})
