import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import type { SearchClient } from "../../search/SearchClient.ts"
import type { DatabaseDriver } from "../../services/drivers/Driver.ts"
import { QueryHistory } from "../../services/QueryHistory.ts"
import { SettingsStore } from "../../services/Settings.ts"
import { searchConsole, searchPage, searchSave, searchStructure, searchTables } from "./SearchViews.ts"
import { sqlConsole, sqlPage, sqlStructure, sqlTables } from "./SqlViews.ts"
import { forUi } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

export const BrowseHandlers = HttpApiBuilder.group(UiApi, "browse", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* UiSessions
    const history = yield* QueryHistory
    const settings = yield* SettingsStore

    /** Runs `sql` or `search` with the connection's own session. */
    const onConnection = <A>(
      id: string,
      views: {
        readonly sql: (driver: DatabaseDriver) => Effect.Effect<A, unknown>
        readonly search: (client: SearchClient) => Effect.Effect<A, unknown>
      }
    ) =>
      forUi(Effect.flatMap(sessions.connection(id), (connection): Effect.Effect<A, unknown> =>
        connection.type === "search"
          ? Effect.flatMap(sessions.search(connection), views.search)
          : Effect.flatMap(sessions.sql(connection), views.sql)))

    return handlers
      .handle("tables", ({ path }) => onConnection(path.id, { sql: sqlTables, search: searchTables }))
      .handle("structure", ({ path }) =>
        onConnection(path.id, { sql: (driver) => sqlStructure(driver, path.table), search: (client) => searchStructure(client, path.table) }))
      .handle("rows", ({ path, payload }) =>
        Effect.flatMap(settings.current, ({ limits }) =>
          onConnection(path.id, {
            sql: (driver) => sqlPage(driver, path.table, payload, limits),
            search: (client) => searchPage(client, path.table, payload, limits)
          })))
      .handle("save", ({ path, payload }) =>
        onConnection(path.id, {
          sql: () => Effect.fail(new UiError({ message: "Editing SQL rows in the grid is not available yet; use an UPDATE in the Console tab." })),
          search: (client) => searchSave(client, path.table, payload)
        }))
      .handle("console", ({ path, payload }) =>
        Effect.gen(function*() {
          const { limits } = yield* settings.current
          const started = Date.now()
          const run = onConnection(path.id, {
            sql: (driver) => sqlConsole(driver, payload.text, payload.confirmed, { maxRows: limits.maxRows, timeoutSeconds: limits.queryTimeoutSeconds, answer: limits }),
            search: (client) => searchConsole(client, payload.text, payload.confirmed, limits)
          })
          // the UI console records its statements in the query history with source "ui" (product-decisions §5)
          const record = (outcome: "success" | "error", rowCount: number | null) =>
            history.record({ connectionId: path.id, text: payload.text, durationMs: Date.now() - started, rowCount, outcome, source: "ui" }).pipe(Effect.ignore)
          return yield* run.pipe(
            Effect.tap((result) =>
              result._tag === "NeedsConfirmation" ? Effect.void : record("success", result._tag === "Grid" ? result.rows.length : null)),
            Effect.tapError(() => record("error", null))
          )
        }))
  }))
