import { Effect, Stream } from "effect"
import { isJsonObject, type JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { type SubscriptionFrame, Subscriptions } from "../../services/Subscriptions.ts"
import { type McpMethod, StreamingExecution } from "../McpMethod.ts"
import { sseFrame } from "../ResponseEncoding.ts"

/** Interop §5.2 item 4: keep-alive is an SSE comment line; never an `id:` field (interop fact 8). */
export const KEEPALIVE_FRAME = ": keepalive\n\n"

const encode = (frame: SubscriptionFrame) => (frame.kind === "keepalive" ? KEEPALIVE_FRAME : sseFrame(frame.message))

const flag = (filter: JsonObject, name: string) => {
  const value = filter[name]
  return value === undefined || typeof value === "boolean"
    ? Effect.succeed(value === true)
    : Effect.fail(ProtocolError.invalidParams(`notifications.${name} must be a boolean`))
}

/**
 * Wire contract §4.3/§6 and D-50: `subscriptions/listen` is modern only (C6-d),
 * needs no scope, takes no request slot and has no deadline (C3.2-e); `params.notifications` is
 * required (interop §5.1). The response is the subscription's own SSE stream.
 */
export const SubscriptionsListenMethod = Effect.gen(function*() {
  const subscriptions = yield* Subscriptions
  return {
    name: "subscriptions/listen",
    eras: ["modern"],
    scopes: [],
    prepare: (context) =>
      Effect.gen(function*() {
        const filter = context.params["notifications"]
        if (!isJsonObject(filter)) {
          return yield* ProtocolError.invalidParams(
            "subscriptions/listen needs params.notifications, an object such as {\"resourcesListChanged\": true}"
          )
        }
        yield* flag(filter, "toolsListChanged")
        yield* flag(filter, "promptsListChanged")
        const resourcesListChanged = yield* flag(filter, "resourcesListChanged")
        const uris = filter["resourceSubscriptions"] ?? []
        if (!Array.isArray(uris) || !uris.every((uri): uri is string => typeof uri === "string" && uri !== "")) {
          return yield* ProtocolError.invalidParams(
            "notifications.resourceSubscriptions must be an array of resource URIs"
          )
        }
        const frames = yield* subscriptions.subscribe(context.principal, context.id, {
          resourcesListChanged,
          resourceSubscriptions: uris
        })
        return new StreamingExecution(Stream.map(frames, encode))
      })
  } satisfies McpMethod
})
