import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import type { McpMethod } from "../McpMethod.ts"

/** Wire contract §4.3: `ping` is legacy only, needs no scope, and answers an empty result (C4.3-d). */
export const PingMethod = Effect.succeed(
  {
    name: "ping",
    eras: ["legacy"],
    scopes: [],
    prepare: () => Effect.succeed(Effect.succeed<JsonObject>({}))
  } satisfies McpMethod
)
