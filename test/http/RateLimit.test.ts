import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { McpDispatcher } from "../../src/http/McpDispatcher.ts"
import { Connections } from "../../src/services/Connections.ts"
import { RateLimits } from "../../src/services/RateLimits.ts"
import { SettingsStore } from "../../src/services/Settings.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { authPipeline, cancelNotification, outcome, pipelineRequest } from "../support/AuthPipeline.ts"
import { tempHome } from "../support/TestServer.ts"

const ANONYMOUS = "anonymous:127.0.0.1"

type Services = McpDispatcher | RateLimits | SettingsStore | Tokens | Connections

/** The app's approval dialog waits for the latch, so a write call is held open until the test opens it. */
const withPipeline = <A, E>(body: (latch: Effect.Latch) => Effect.Effect<A, E, Services>, home = tempHome()) =>
  Effect.gen(function*() {
    const latch = yield* Effect.makeLatch(false)
    return yield* body(latch).pipe(Effect.provide(authPipeline(home, { latch })))
  })

/** A write through execute_query: it waits in the app's approval dialog (D-26). */
const heldWrite = (token: string, id: string | number) =>
  Effect.flatMap(
    Effect.flatMap(Connections, (connections) => connections.list),
    (all) =>
      send(pipelineRequest("tools/call", {
        token,
        id,
        params: {
          name: "execute_query",
          arguments: { connection_id: all[0]!.id, query: "INSERT INTO products (name) VALUES ('held')" }
        }
      }))
  )

/** confirm_destructive_operation needs tools:write and admin. */
const adminCall = (token?: string) =>
  send(
    pipelineRequest("tools/call", {
      ...(token === undefined ? {} : { token }),
      params: { name: "confirm_destructive_operation", arguments: { connection_id: "x", query: "DROP TABLE x" } }
    })
  )

const send = (request: Parameters<McpDispatcher["handle"]>[0]) =>
  Effect.flatMap(McpDispatcher, (dispatcher) => dispatcher.handle(request)).pipe(Effect.map(outcome))

const waitUntilRunning = (key: string, count: number) =>
  Effect.flatMap(
    RateLimits,
    (limits) =>
      Effect.repeat(Effect.zipRight(Effect.yieldNow(), limits.running(key)), { until: (running) => running >= count })
  )

describe("per-caller request rate (D-39)", () => {
  it.effect("C8-f the 241st request in a minute gets 429 -33010 with a Retry-After that counts down to the window's end", () =>
    withPipeline(() =>
      Effect.gen(function*() {
        for (let i = 0; i < 240; i++) {
          assert.strictEqual((yield* send(pipelineRequest("server/discover", { id: i }))).status, 200)
        }
        const limited = yield* send(pipelineRequest("server/discover"))
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.code, -33010)
        assert.strictEqual(limited.headers["retry-after"], "60")
        for (const [advanceMs, expected] of [[10_000, "50"], [35_000, "15"], [14_500, "1"]] as const) {
          yield* TestClock.adjust(advanceMs)
          assert.strictEqual((yield* send(pipelineRequest("server/discover"))).headers["retry-after"], expected)
        }
        yield* TestClock.adjust(500)
        assert.strictEqual((yield* send(pipelineRequest("server/discover"))).status, 200)
      })
    ))

  it.effect("C8-f limits.requestsPerMinute is read per request: raising or lowering it applies without restart", () =>
    withPipeline(() =>
      Effect.gen(function*() {
        const settings = yield* SettingsStore
        yield* settings.update({ limits: { requestsPerMinute: 3 } })
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* send(pipelineRequest("server/discover"))).status, 200)
        assert.strictEqual((yield* send(pipelineRequest("server/discover"))).status, 429)
        yield* settings.update({ limits: { requestsPerMinute: 5 } })
        assert.strictEqual((yield* send(pipelineRequest("server/discover"))).status, 200)
      })
    ))

  it.effect("C8-f each caller has its own budget: a token is not limited by the anonymous caller of the same address", () =>
    withPipeline(() =>
      Effect.gen(function*() {
        const { value } = yield* Effect.flatMap(Tokens, (tokens) =>
          tokens.create({ name: "t", access: "readOnly", connections: "all" }))
        yield* Effect.flatMap(SettingsStore, (settings) =>
          settings.update({ limits: { requestsPerMinute: 2 } }))
        for (let i = 0; i < 2; i++) yield* send(pipelineRequest("server/discover"))
        assert.strictEqual((yield* send(pipelineRequest("server/discover"))).status, 429)
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: value }))).status, 200)
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { address: "::1" }))).status, 200)
      })
    ))

  it.effect("C8-f gate order: authentication before the rate limit, the rate limit before the scope check", () =>
    withPipeline(() =>
      Effect.gen(function*() {
        const { value } = yield* Effect.flatMap(Tokens, (tokens) =>
          tokens.create({ name: "t", access: "readOnly", connections: "all" }))
        yield* Effect.flatMap(SettingsStore, (settings) =>
          settings.update({ limits: { requestsPerMinute: 1 } }))
        assert.strictEqual((yield* adminCall(value)).code, -33007)
        assert.strictEqual((yield* adminCall(value)).code, -33010)
        assert.strictEqual((yield* adminCall("dbd_unknown")).code, -33009)
      })
    ))
})

describe("concurrent requests per caller", () => {
  it.effect("C8-f the 9th concurrent request gets 429 -33010 while 8 are held open; a finished one frees its slot", () =>
    withPipeline((latch) =>
      Effect.gen(function*() {
        const { token, value } = yield* Effect.flatMap(Tokens, (tokens) =>
          tokens.create({ name: "w", access: "readWrite", connections: "all" }))
        const caller = `token:${token.id}`
        const held = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) =>
            i),
          (i) => Effect.fork(heldWrite(value, i))
        )
        yield* waitUntilRunning(caller, 8)
        const ninth = yield* send(pipelineRequest("server/discover", { token: value, id: 8 }))
        assert.strictEqual(ninth.status, 429)
        assert.strictEqual(ninth.code, -33010)
        assert.strictEqual(ninth.headers["retry-after"], "1")
        yield* latch.open
        for (const fiber of held) {
          assert.strictEqual((yield* Fiber.join(fiber)).status, 200)
        }
        assert.strictEqual(yield* Effect.flatMap(RateLimits, (limits) => limits.running(caller)), 0)
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: value, id: 9 }))).status, 200)
      })
    ))

  it.effect("C8-f a request refused before it runs (scope failure) gives its slot back", () =>
    withPipeline(() =>
      Effect.gen(function*() {
        yield* Effect.flatMap(SettingsStore, (settings) =>
          settings.update({ mcp: { requireAuth: false }, limits: { concurrentPerCaller: 1 } }))
        for (let i = 0; i < 3; i++) {
          assert.strictEqual((yield* adminCall()).code, -33007)
        }
        assert.strictEqual(
          yield* Effect.flatMap(RateLimits, (limits) =>
            limits.running(ANONYMOUS)),
          0
        )
      })
    ))
})

describe("failed-authentication lockout (wire contract §5 point 10)", () => {
  it.effect("C5-j five failures within 60 s (13 s apart) lock the (address, token) pair out for 300 s, even once the token is valid; other tokens and addresses are not locked; a cancel still gets 202", () => {
    const home = tempHome()
    const file = join(home, "tokens.json")
    return withPipeline((latch) =>
      Effect.gen(function*() {
        const tokens = yield* Tokens
        const held = yield* tokens.create({ name: "held", access: "readWrite", connections: "all" })
        const other = yield* tokens.create({ name: "other", access: "readOnly", connections: "all" })
        const target = yield* tokens.create({ name: "target", access: "readOnly", connections: "all" })
        const withTarget = readFileSync(file, "utf8")
        yield* tokens.remove(target.token.id)
        const running = yield* Effect.fork(heldWrite(held.value, "long"))
        yield* waitUntilRunning(`token:${held.token.id}`, 1)
        for (let i = 0; i < 5; i++) {
          yield* TestClock.adjust(13_000)
          const failed = yield* send(pipelineRequest("server/discover", { token: target.value }))
          assert.strictEqual(failed.code, -33009, `failure ${i + 1}`)
        }
        writeFileSync(`${file}.restore`, withTarget, { mode: 0o600 })
        renameSync(`${file}.restore`, file)
        const locked = yield* send(pipelineRequest("server/discover", { token: target.value }))
        assert.strictEqual(locked.status, 429)
        assert.strictEqual(locked.code, -33010)
        assert.strictEqual(locked.headers["retry-after"], "300")
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: other.value }))).status, 200)
        assert.strictEqual(
          (yield* send(pipelineRequest("server/discover", { token: target.value, address: "::1" }))).status,
          200
        )
        const cancel = outcome(
          yield* Effect.flatMap(
            McpDispatcher,
            (dispatcher) => dispatcher.handle(cancelNotification("long", { token: target.value }))
          )
        )
        assert.strictEqual(cancel.status, 202)
        const cancelHeld = outcome(
          yield* Effect.flatMap(McpDispatcher, (dispatcher) =>
            dispatcher.handle(cancelNotification("long", { token: held.value })))
        )
        assert.strictEqual(cancelHeld.status, 202)
        assert.strictEqual((yield* Fiber.join(running)).code, -33002)
        yield* TestClock.adjust(299_000)
        assert.strictEqual(
          (yield* send(pipelineRequest("server/discover", { token: target.value }))).headers["retry-after"],
          "1"
        )
        yield* TestClock.adjust(1_000)
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: target.value }))).status, 200)
        yield* latch.open
      }), home)
  })

  it.effect("C5-j four failures do not lock, and a success clears the count", () => {
    const home = tempHome()
    const file = join(home, "tokens.json")
    return withPipeline(() =>
      Effect.gen(function*() {
        const tokens = yield* Tokens
        const target = yield* tokens.create({ name: "target", access: "readOnly", connections: "all" })
        const withTarget = readFileSync(file, "utf8")
        const failFour = Effect.gen(function*() {
          yield* tokens.remove(target.token.id)
          for (let i = 0; i < 4; i++) {
            assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: target.value }))).code, -33009)
          }
          writeFileSync(`${file}.restore`, withTarget, { mode: 0o600 })
          renameSync(`${file}.restore`, file)
        })
        yield* failFour
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: target.value }))).status, 200)
        yield* failFour
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: target.value }))).status, 200)
      }), home)
  })

  it.effect("C5-j failed attempts do not use up the request rate, and an exhausted request rate does not count as failures", () =>
    withPipeline(() =>
      Effect.gen(function*() {
        const { value } = yield* Effect.flatMap(Tokens, (tokens) =>
          tokens.create({ name: "t", access: "readOnly", connections: "all" }))
        yield* Effect.flatMap(SettingsStore, (settings) =>
          settings.update({ limits: { requestsPerMinute: 3 } }))
        for (let i = 0; i < 4; i++) {
          assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: `${value}x` }))).code, -33009)
        }
        for (let i = 0; i < 3; i++) {
          assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: value }))).status, 200)
        }
        for (let i = 0; i < 5; i++) {
          assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: value }))).code, -33010)
        }
        assert.strictEqual((yield* send(pipelineRequest("server/discover", { token: `${value}x` }))).code, -33009)
        assert.strictEqual(
          (yield* send(pipelineRequest("server/discover", { token: `${value}x` }))).headers["retry-after"],
          "300"
        )
      })
    ))
})
