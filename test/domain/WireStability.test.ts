import { it } from "@effect/vitest"
import { Schema } from "effect"
import { describe, expect } from "vitest"
import { JsonRpcFailure, JsonRpcNotification, JsonRpcRequest, JsonRpcSuccess } from "../../src/domain/JsonRpc.ts"
import { DiscoverResult } from "../../src/domain/ServerInfo.ts"
import { Settings } from "../../src/domain/Settings.ts"

/** house-style §4: test JSON wire stability, encode(decode(encode(x))) === encode(x), not value equality. */
const wireStable = <A, I>(schema: Schema.Schema<A, I>) => (value: A) => {
  const once = JSON.stringify(Schema.encodeSync(schema)(value))
  const again = JSON.stringify(Schema.encodeSync(schema)(Schema.decodeUnknownSync(schema)(JSON.parse(once))))
  expect(again).toBe(once)
}

describe("JSON wire stability of the envelope Schemas", () => {
  it.prop(
    "C2.1-a a JSON-RPC request survives the wire unchanged",
    [JsonRpcRequest],
    ([request]) => wireStable(JsonRpcRequest)(request)
  )
  it.prop(
    "C2.1-a a JSON-RPC notification survives the wire unchanged",
    [JsonRpcNotification],
    ([message]) => wireStable(JsonRpcNotification)(message)
  )
  it.prop(
    "C2.4-a a JSON-RPC success survives the wire unchanged",
    [JsonRpcSuccess],
    ([message]) => wireStable(JsonRpcSuccess)(message)
  )
  it.prop(
    "C7.1-a a JSON-RPC error survives the wire unchanged",
    [JsonRpcFailure],
    ([message]) => wireStable(JsonRpcFailure)(message)
  )
  it.prop(
    "C2.5-a a discover result survives the wire unchanged",
    [DiscoverResult.pipe(Schema.omit("_meta"))],
    ([result]) => wireStable(DiscoverResult.pipe(Schema.omit("_meta")))(result)
  )
  it.prop("settings survive settings.json unchanged", [Settings], ([settings]) => wireStable(Settings)(settings))
})
