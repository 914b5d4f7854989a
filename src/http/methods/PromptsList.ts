import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { promptListing, PROMPTS } from "../../services/resources/PromptCatalog.ts"
import { paginate } from "../Cursor.ts"
import type { McpMethod } from "../McpMethod.ts"
import { cursorParam } from "./ResourcesList.ts"

/** Wire contract §4.3–4.5, product-decisions §5: the same five prompts for every caller (3600000 ms, `public`). */
export const PromptsListMethod = Effect.succeed({
  name: "prompts/list",
  eras: ["modern", "legacy"],
  scopes: ["resources:read"],
  prepare: (context) =>
    Effect.gen(function*() {
      const cursor = yield* cursorParam(context.params)
      const page = yield* paginate("prompts/list", PROMPTS, cursor)
      return Effect.succeed<JsonObject>({
        prompts: page.items.map(promptListing),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
      })
    })
} satisfies McpMethod)
