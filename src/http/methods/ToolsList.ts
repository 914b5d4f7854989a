import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { ToolRegistry } from "../../services/tools/ToolRegistry.ts"
import { paginate } from "../Cursor.ts"
import type { McpMethod } from "../McpMethod.ts"

/**
 * Wire contract §4.3/§4.4/§4.5: `tools/list` needs `tools:read`, lists only the tools whose
 * scopes the caller holds (hence `private`), sorted by name, 50 per page.
 */
export const ToolsListMethod = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  return {
    name: "tools/list",
    eras: ["modern", "legacy"],
    scopes: ["tools:read"],
    // The registry is fixed once the server is built, so a first page depends only on the caller's scopes.
    answerKey: (context) => (context.params["cursor"] === undefined ? [...context.principal.scopes].sort().join(" ") : undefined),
    prepare: (context) =>
      Effect.gen(function*() {
        const cursor = context.params["cursor"]
        if (cursor !== undefined && typeof cursor !== "string") return yield* ProtocolError.invalidParams("cursor must be a string from nextCursor")
        const callable = registry.tools.filter((tool) => tool.scopes.every((scope) => context.principal.scopes.includes(scope)))
        const page = yield* paginate("tools/list", callable, cursor)
        return Effect.succeed<JsonObject>({
          tools: page.items.map((tool) => tool.listing),
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
        })
      })
  } satisfies McpMethod
})
