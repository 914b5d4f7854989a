import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { McpDispatcher } from "../../src/http/McpDispatcher.ts"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { BridgeToken } from "../../src/services/BridgeToken.ts"
import { Connections } from "../../src/services/Connections.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { authPipeline, pipelineRequest } from "../support/AuthPipeline.ts"
import { tempHome } from "../support/TestServer.ts"

const call = (token: string, id: string | number, params: Record<string, unknown>) =>
  Effect.flatMap(McpDispatcher, (dispatcher) => dispatcher.handle(pipelineRequest("tools/call", { token, id, params })))
    .pipe(
      Effect.map((response) => {
        if (response.kind !== "json") throw new Error(`unexpected ${response.kind} response`)
        const body = response.body as { result?: { isError?: boolean }; error?: { code: number } }
        return { status: response.status, code: body.error?.code, isError: body.result?.isError }
      })
    )

const read = (token: string, id: string | number) => call(token, id, { name: "list_connections", arguments: {} })

/**
 * A write waits in the app's approval dialog until the latch opens (D-26); the
 * dialog then declines, so the call ends with the tool error `denied` — a cancelled call would
 * instead be the protocol error -33002.
 */
const heldWrite = (token: string, id: string) =>
  Effect.gen(function*() {
    const [sample] = yield* Effect.flatMap(Connections, (connections) => connections.list)
    return yield* call(token, id, {
      name: "execute_query",
      arguments: { connection_id: sample!.id, query: "INSERT INTO products (name) VALUES ('bridge')" }
    })
  })

const handshake = (home: string) =>
  JSON.parse(readFileSync(join(home, "mcp-handshake.json"), "utf8")) as {
    bridgeToken: string
    bridgeTokenExpiresAt: string
  }

/**
 * TestClock.adjust wakes the rotation (or removal) fiber, whose token-store write is real file I/O
 * that completes after adjust returns: retry (real time, bounded) until `done` holds.
 */
const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (value: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      const value = yield* effect
      if (done(value)) return value
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return yield* effect
  })

/** The rewrite is real file I/O on another fiber: wait (real time, bounded) until the file shows `expected`. */
const handshakeToken = (home: string, expected: string) =>
  Effect.promise(async () => {
    for (let i = 0; i < 100 && handshake(home).bridgeToken !== expected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return handshake(home).bridgeToken
  })

describe("bridge token (D-37)", () => {
  it.scoped("PD4-bridge rotation keeps the old value working through the overlap, -33009 after it; no in-flight call is cancelled", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const latch = yield* Effect.makeLatch(false)
      yield* Effect.gen(function*() {
        const bridge = yield* BridgeToken
        const first = yield* bridge.current
        assert.strictEqual(handshake(home).bridgeToken, first.value)
        assert.strictEqual(statSync(join(home, "mcp-handshake.json")).mode & 0o777, 0o600)
        const summary = (yield* Effect.flatMap(Tokens, (tokens) => tokens.list())).find((token) =>
          token.id === first.tokenId
        )!
        expect(summary).toMatchObject({ bridge: true, access: "readWrite", connections: "all" })
        assert.strictEqual((yield* read(first.value, 1)).status, 200)

        // A write started just before the rotation is still waiting for the user when the token rotates.
        yield* TestClock.adjust("59 minutes")
        const before = yield* Effect.fork(heldWrite(first.value, "held-1"))
        yield* TestClock.adjust("1 minute")
        const second = yield* eventually(bridge.current, (credential) => credential.tokenId !== first.tokenId)
        assert.notStrictEqual(second.tokenId, first.tokenId)
        assert.strictEqual(yield* handshakeToken(home, second.value), second.value)
        assert.isNull(before.unsafePoll())
        yield* latch.open
        expect(yield* Fiber.join(before)).toEqual({ status: 200, code: undefined, isError: true })
        yield* latch.close

        // Through the overlap both values work; a call on the old value is in flight when it ends.
        yield* TestClock.adjust("9 minutes")
        expect(yield* read(first.value, 2)).toMatchObject({ status: 200 })
        expect(yield* read(second.value, 3)).toMatchObject({ status: 200 })
        const during = yield* Effect.fork(heldWrite(first.value, "held-2"))
        yield* TestClock.adjust("1 minute")
        expect(yield* eventually(read(first.value, 4), (answer) => answer.status !== 200)).toMatchObject({
          status: 401,
          code: -33009
        })
        expect(yield* read(second.value, 5)).toMatchObject({ status: 200 })
        assert.isNull(during.unsafePoll())
        yield* latch.open
        expect(yield* Fiber.join(during)).toEqual({ status: 200, code: undefined, isError: true })

        const log = yield* ActivityLog
        yield* log.flush
        const actions = (yield* log.list({ category: "token", limit: 50 })).map((row) => row.action)
        expect(actions).toContain("token.rotated")
        expect(actions).toContain("token.created")
      }).pipe(Effect.provide(authPipeline(home, { latch })))
      // D-8/§4: the bridge records and the handshake file are gone after a clean stop.
      const left = JSON.parse(readFileSync(join(home, "tokens.json"), "utf8")) as { tokens: Array<{ bridge: boolean }> }
      assert.isFalse(left.tokens.some((token) => token.bridge))
    })
  })
})
