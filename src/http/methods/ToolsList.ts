import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import type { McpMethod } from "../McpMethod.ts"

/** Wire contract §4.3/§4.4: `tools/list` needs `tools:read`; 300000 ms, private (filtered by scopes). */
export const ToolsListMethod = Effect.succeed({
  name: "tools/list",
  eras: ["modern", "legacy"],
  scopes: ["tools:read"],
  cacheHint: () => ({ ttlMs: 300_000, cacheScope: "private" }),
  prepare: () => Effect.succeed(Effect.succeed<JsonObject>({ tools: [] }))
} satisfies McpMethod)
