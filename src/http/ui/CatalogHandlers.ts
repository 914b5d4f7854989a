import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import { catalogObjects, catalogOverview, searchObjects, searchOverview } from "./CatalogViews.ts"
import { databaseOf } from "./SqlViews.ts"
import { forUi } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

/** The sidebar tree (D-98), read as the connection's own user like the rest of the UI API. */
export const CatalogHandlers = HttpApiBuilder.group(UiApi, "catalog", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* UiSessions
    return handlers
      .handle("overview", ({ path, urlParams }) =>
        forUi(Effect.flatMap(sessions.connection(path.id), (connection) =>
          connection.type === "search"
            ? Effect.succeed(searchOverview)
            : Effect.flatMap(sessions.sql(connection), (driver) =>
              catalogOverview(connection, driver, databaseOf(urlParams))))))
      .handle("objects", ({ path, urlParams }) =>
        forUi(Effect.flatMap(sessions.connection(path.id), (connection) =>
          connection.type === "search"
            ? Effect.flatMap(sessions.search(connection), searchObjects)
            : Effect.flatMap(sessions.sql(connection), (driver) =>
              catalogObjects(driver, urlParams.schema, databaseOf(urlParams))))))
  }))
