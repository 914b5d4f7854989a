import { Effect } from "effect"
import { isJsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { HostCatalog } from "../../services/resources/HostCatalog.ts"
import { PromptRenderer } from "../../services/resources/PromptRenderer.ts"
import type { McpMethod } from "../McpMethod.ts"

/**
 * Wire contract §4.3 and D-47: `prompts/get` needs `resources:read`; an unknown
 * prompt, undeclared or missing arguments are -32602, a hidden connection -33007. Rendering reads
 * the live schema before the response commits, so those errors keep their HTTP status. A host's
 * prompt answers for itself.
 */
export const PromptsGetMethod = Effect.gen(function*() {
  const renderer = yield* PromptRenderer
  const host = yield* HostCatalog
  return {
    name: "prompts/get",
    eras: ["modern", "legacy"],
    scopes: ["resources:read"],
    prepare: (context) => {
      const name = context.params["name"]
      const args = context.params["arguments"]
      const hosted = typeof name === "string" ? host.prompt(name) : undefined
      if (hosted === undefined) return Effect.map(renderer.get(context.principal, name, args), Effect.succeed)
      if (args !== undefined && !isJsonObject(args)) {
        return Effect.fail(ProtocolError.invalidParams("params.arguments must be an object of strings"))
      }
      return Effect.map(hosted.get(args ?? {}, context), Effect.succeed)
    }
  } satisfies McpMethod
})
