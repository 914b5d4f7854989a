import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { anonymousPrincipal, type Principal, scopesForLevel } from "../../src/domain/Principal.ts"
import { Connections } from "../../src/services/Connections.ts"
import { SettingsOverrides, SettingsStore } from "../../src/services/Settings.ts"
import { type SubscriptionFrame, Subscriptions } from "../../src/services/Subscriptions.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { tempHome } from "../support/TestServer.ts"

const SAMPLE = "11111111-1111-1111-1111-111111111111"
const makeLayer = (requireAuth = false) =>
  Subscriptions.Default.pipe(
    Layer.provideMerge(
      Connections.layerMemory([{
        id: SAMPLE,
        name: "Sample",
        type: "sqlite",
        path: "/tmp/x.db",
        aiPolicy: "alwaysAllow"
      }])
    ),
    Layer.provide(SettingsStore.Default),
    Layer.provide(Layer.succeed(SettingsOverrides, { mcp: { requireAuth } })),
    Layer.provide(SupportPaths.layer(tempHome()))
  )

const alice: Principal = {
  key: "token:alice",
  kind: "token",
  access: "readOnly",
  scopes: scopesForLevel("readOnly"),
  tokenId: "alice",
  connections: "all"
}
const everything = { resourcesListChanged: true, resourceSubscriptions: [`dbdesk://connections/${SAMPLE}/schema`] }
const kinds = (frames: Chunk.Chunk<SubscriptionFrame>) =>
  Chunk.toArray(frames).map((
    frame
  ) => (frame.kind === "keepalive" ? "keepalive" : String(frame.message["method"] ?? "result")))

describe("Subscriptions (D-50)", () => {
  it.scoped("C3.2-e a keep-alive comment every 15 s of TestClock time, and no deadline ends the stream", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      const stream = yield* subscriptions.subscribe(alice, "k", everything)
      const fiber = yield* Effect.fork(Stream.runCollect(Stream.take(stream, 4)))
      yield* TestClock.adjust("14 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("15 seconds")
      yield* TestClock.adjust("15 seconds")
      const frames = yield* Fiber.join(fiber)
      assert.deepStrictEqual(kinds(frames), [
        "notifications/subscriptions/acknowledged",
        "keepalive",
        "keepalive",
        "keepalive"
      ])
      const long = yield* Effect.fork(Stream.runCollect(yield* subscriptions.subscribe(alice, "long", everything)))
      yield* TestClock.adjust("400 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(long)))
      assert.strictEqual(yield* subscriptions.countFor("token:alice"), 1)
    }).pipe(Effect.provide(makeLayer())))

  it.scoped("C6-e resources/updated only for subscribed schema URIs, list_changed only when the visible set changes", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      const connections = yield* Connections
      const stream = yield* subscriptions.subscribe(alice, "s", everything)
      const fiber = yield* Effect.fork(
        Stream.runCollect(Stream.take(Stream.filter(stream, (frame) => frame.kind === "message"), 3))
      )
      for (let turn = 0; turn < 10; turn++) yield* Effect.yieldNow()
      yield* subscriptions.schemaChanged("another-connection")
      yield* subscriptions.schemaChanged(SAMPLE)
      yield* connections.update(SAMPLE, { confirmQueries: "all" })
      yield* connections.add({ name: "New", type: "sqlite", path: "/tmp/y.db" })
      const frames = Chunk.toArray(yield* Fiber.join(fiber))
      assert.deepStrictEqual(kinds(Chunk.fromIterable(frames)), [
        "notifications/subscriptions/acknowledged",
        "notifications/resources/updated",
        "notifications/resources/list_changed"
      ])
      const updated = frames[1]!
      assert.strictEqual(
        updated.kind === "message" && (updated.message["params"] as any).uri,
        `dbdesk://connections/${SAMPLE}/schema`
      )
    }).pipe(Effect.provide(makeLayer())))

  it.scoped("C5-a with auth on, an anonymous caller is honoured nothing and gets the graceful result at once", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      const frames = yield* Stream.runCollect(
        yield* subscriptions.subscribe(anonymousPrincipal("127.0.0.1"), 7, everything)
      )
      const [ack, result] = Chunk.toArray(frames)
      assert.deepStrictEqual(ack?.kind === "message" && ack.message["params"], {
        notifications: {},
        _meta: { "io.modelcontextprotocol/subscriptionId": 7 }
      })
      assert.deepStrictEqual(result?.kind === "message" && result.message, {
        jsonrpc: "2.0",
        id: 7,
        result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 7 } }
      })
      assert.strictEqual(yield* subscriptions.count, 0)
    }).pipe(Effect.provide(makeLayer(true))))

  it.scoped("C8-f the count is per caller: 8 open for one caller refuse the 9th with -33010, another caller still opens", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      for (let index = 0; index < 8; index++) yield* subscriptions.subscribe(alice, index, everything)
      const refused = yield* Effect.flip(subscriptions.subscribe(alice, 8, everything))
      assert.strictEqual(refused.code, -33010)
      assert.strictEqual(refused.status, 429)
      assert.isDefined(refused.headers?.["retry-after"])
      yield* subscriptions.subscribe({ ...alice, key: "token:bob" }, 0, everything)
      assert.strictEqual(yield* subscriptions.countFor("token:alice"), 8)
      assert.strictEqual(yield* subscriptions.count, 9)
    }).pipe(Effect.provide(makeLayer())))
})
