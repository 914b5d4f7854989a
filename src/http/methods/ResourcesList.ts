import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { HostCatalog } from "../../services/resources/HostCatalog.ts"
import { ResourceReader } from "../../services/resources/ResourceReader.ts"
import { paginate } from "../Cursor.ts"
import type { McpMethod } from "../McpMethod.ts"

export const cursorParam = (params: JsonObject) => {
  const cursor = params["cursor"]
  return cursor === undefined || typeof cursor === "string"
    ? Effect.succeed(cursor)
    : Effect.fail(ProtocolError.invalidParams("cursor must be a string from nextCursor"))
}

/**
 * Wire contract §4.3–4.5 and D-47: `resources/list` needs `resources:read` and lists
 * `dbdesk://connections` plus schema, tables and history of each visible connection (hence
 * `private`, 30000 ms from the §4.4 table), 50 per page; then the resources an embedding host adds.
 */
export const ResourcesListMethod = Effect.gen(function*() {
  const reader = yield* ResourceReader
  const host = yield* HostCatalog
  return {
    name: "resources/list",
    eras: ["modern", "legacy"],
    scopes: ["resources:read"],
    prepare: (context) =>
      Effect.gen(function*() {
        const cursor = yield* cursorParam(context.params)
        const listings: ReadonlyArray<JsonObject> = [
          ...(yield* reader.list(context.principal)).map((item) => ({ ...item })),
          ...host.resources.map((resource) => resource.listing)
        ]
        const page = yield* paginate("resources/list", listings, cursor)
        return Effect.succeed<JsonObject>({
          resources: [...page.items],
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
        })
      })
  } satisfies McpMethod
})
