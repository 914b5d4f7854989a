import { Effect } from "effect"
import { PromptRenderer } from "../../services/resources/PromptRenderer.ts"
import type { McpMethod } from "../McpMethod.ts"

/**
 * Wire contract §4.3 and product-decisions §5: `prompts/get` needs `resources:read`; an unknown
 * prompt, undeclared or missing arguments are -32602, a hidden connection -33007. Rendering reads
 * the live schema before the response commits, so those errors keep their HTTP status.
 */
export const PromptsGetMethod = Effect.gen(function*() {
  const renderer = yield* PromptRenderer
  return {
    name: "prompts/get",
    eras: ["modern", "legacy"],
    scopes: ["resources:read"],
    prepare: (context) => Effect.map(renderer.get(context.principal, context.params["name"], context.params["arguments"]), Effect.succeed)
  } satisfies McpMethod
})
