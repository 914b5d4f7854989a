import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { RESOURCE_TEMPLATES } from "../../services/resources/ResourceUris.ts"
import { paginate } from "../Cursor.ts"
import type { McpMethod } from "../McpMethod.ts"
import { cursorParam } from "./ResourcesList.ts"

/** Wire contract §4.3–4.5: the same templates for every caller (3600000 ms, `public`), 50 per page. */
export const ResourcesTemplatesListMethod = Effect.succeed({
  name: "resources/templates/list",
  eras: ["modern", "legacy"],
  scopes: ["resources:read"],
  prepare: (context) =>
    Effect.gen(function*() {
      const cursor = yield* cursorParam(context.params)
      const page = yield* paginate("resources/templates/list", RESOURCE_TEMPLATES, cursor)
      return Effect.succeed<JsonObject>({
        resourceTemplates: page.items.map((template) => ({ ...template, mimeType: "application/json" })),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
      })
    })
} satisfies McpMethod)
