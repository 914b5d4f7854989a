import { HttpApiBuilder } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import type { SearchClient } from "../../search/SearchClient.ts"
import { createKey, deleteKey, listKeys, readDashboard } from "../../search/SearchAdmin.ts"
import { forUi } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

/** Users & Roles and the Server Dashboard of a search connection (D-59). */
export const SearchAdminHandlers = HttpApiBuilder.group(UiApi, "search", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* UiSessions
    const withClient = <A, E>(id: string, f: (client: SearchClient) => Effect.Effect<A, E>) =>
      forUi(Effect.gen(function*() {
        const connection = yield* sessions.connection(id)
        if (connection.type !== "search") {
          return yield* new UiError({ message: `'${connection.name}' is not a search connection.` })
        }
        return yield* f(yield* sessions.search(connection))
      }))
    return handlers
      .handle("keys", ({ path }) => withClient(path.id, (client) => listKeys(client)))
      .handle("createKey", ({ path, payload }) =>
        withClient(path.id, (client) =>
          Effect.map(
            createKey(client, payload),
            (created) => ({ key: created.key, value: Redacted.value(created.value) })
          )))
      .handle("deleteKey", ({ path }) => withClient(path.id, (client) => deleteKey(client, path.keyId)))
      .handle("dashboard", ({ path }) => withClient(path.id, (client) => readDashboard(client)))
  }))
