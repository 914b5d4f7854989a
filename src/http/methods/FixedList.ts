import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { paginate } from "../Cursor.ts"
import type { McpMethod } from "../McpMethod.ts"
import { cursorParam } from "./ResourcesList.ts"

/** A list method whose items are the same for every caller (wire contract §4.3–4.5): `resources:read`, 50 per page. */
export const fixedListMethod = (name: string, resultKey: string, listings: ReadonlyArray<JsonObject>) => ({
  name,
  eras: ["modern", "legacy"],
  scopes: ["resources:read"],
  prepare: (context) =>
    Effect.gen(function*() {
      const cursor = yield* cursorParam(context.params)
      const page = yield* paginate(name, listings, cursor)
      return Effect.succeed<JsonObject>({
        [resultKey]: [...page.items],
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
      })
    })
} satisfies McpMethod)
