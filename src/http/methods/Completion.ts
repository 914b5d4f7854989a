import { Effect } from "effect"
import { Completions } from "../../services/resources/Completions.ts"
import type { McpMethod } from "../McpMethod.ts"

/** Wire contract §4.3 and D-49: `completion/complete` needs `resources:read`. */
export const CompletionMethod = Effect.gen(function*() {
  const completions = yield* Completions
  return {
    name: "completion/complete",
    eras: ["modern", "legacy"],
    scopes: ["resources:read"],
    prepare: (context) =>
      Effect.map(
        completions.complete(context.principal, context.params),
        (completion) =>
          Effect.succeed({
            completion: { values: [...completion.values], total: completion.total, hasMore: completion.hasMore }
          })
      )
  } satisfies McpMethod
})
