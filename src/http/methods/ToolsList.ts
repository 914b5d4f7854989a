import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { CuratedToolSet } from "../../services/tools/CuratedToolSet.ts"
import { offeredTools } from "../../services/tools/Toolsets.ts"
import { ToolRegistry } from "../../services/tools/ToolRegistry.ts"
import { paginate } from "../Cursor.ts"
import type { McpMethod } from "../McpMethod.ts"

/**
 * Wire contract §4.3/§4.4/§4.5: `tools/list` needs `tools:read`, lists only the tools whose
 * scopes the caller holds (hence `private`), sorted by name, 50 per page.
 */
export const ToolsListMethod = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const curated = yield* Effect.serviceOption(CuratedToolSet)
  const curatedNow = () => (curated._tag === "Some" ? curated.value.now() : undefined)
  return {
    name: "tools/list",
    eras: ["modern", "legacy"],
    scopes: ["tools:read"],
    // The built-in tools are fixed once the server is built: a first page depends on the caller's scopes and toolset
    // and on the version of the curated set in force.
    answerKey: (context) =>
      context.params["cursor"] === undefined
        ? `${[...context.principal.scopes].sort().join(" ")}|${
          context.principal.tools === undefined ? "*" : JSON.stringify(context.principal.tools)
        }|${curatedNow()?.version ?? 0}`
        : undefined,
    prepare: (context) =>
      Effect.gen(function*() {
        const cursor = context.params["cursor"]
        if (cursor !== undefined && typeof cursor !== "string") {
          return yield* ProtocolError.invalidParams("cursor must be a string from nextCursor")
        }
        const offered = offeredTools(registry.tools, curatedNow()?.tools ?? [], context.principal)
        const callable = offered.filter((tool) =>
          tool.scopes.every((scope) => context.principal.scopes.includes(scope))
        )
        const page = yield* paginate("tools/list", callable, cursor)
        return Effect.succeed<JsonObject>({
          tools: page.items.map((tool) => tool.listing),
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
        })
      })
  } satisfies McpMethod
})
