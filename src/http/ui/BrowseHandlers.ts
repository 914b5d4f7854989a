import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import type { SearchClient } from "../../search/SearchClient.ts"
import { ApprovalPreflight } from "../../services/ApprovalPreflight.ts"
import type { DatabaseDriver, Namespace } from "../../services/drivers/Driver.ts"
import { HISTORY_LIMIT, type HistoryOutcome, QueryHistory } from "../../services/QueryHistory.ts"
import { RequestRegistry } from "../../services/RequestRegistry.ts"
import { SettingsStore } from "../../services/Settings.ts"
import { searchConsole, searchPage, searchSave, searchStructure, searchTables } from "./SearchViews.ts"
import { sqlApply, sqlPreview } from "./SqlEditViews.ts"
import { databaseOf, sqlConsole, sqlPage, sqlStructureView, sqlTables } from "./SqlViews.ts"
import { forUi } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

/** The principal key console runs are registered under; MCP keys are `token:…` or `anonymous:…`, never this. */
const UI_CONSOLE = "ui:console"
/**
 * Rows a console result may hold: a person scrolls a virtualized grid (D-85), so more than a model's
 * limits.maxRows; the answer still stops at limits.maxAnswerBytes.
 */
const UI_CONSOLE_ROWS = 100_000
const CANCELLED = "Cancelled: the statement was stopped on the database."
const noDatabases = new UiError({ message: "A search connection has no other databases to open." })
const notSql = new UiError({ message: "Search documents are saved with Save in the grid, one request per document." })

export const BrowseHandlers = HttpApiBuilder.group(UiApi, "browse", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* UiSessions
    const history = yield* QueryHistory
    const settings = yield* SettingsStore
    const registry = yield* RequestRegistry
    const preflight = yield* ApprovalPreflight

    /** Runs `sql` or `search` with the connection's own session; a search connection has no `database` to choose. */
    const onConnection = <A>(
      id: string,
      views: {
        readonly sql: (driver: DatabaseDriver) => Effect.Effect<A, unknown>
        readonly search: (client: SearchClient) => Effect.Effect<A, unknown>
      },
      namespace?: Namespace
    ) =>
      forUi(Effect.flatMap(sessions.connection(id), (connection): Effect.Effect<A, unknown> =>
        connection.type === "search"
          ? namespace === undefined
            ? Effect.flatMap(sessions.search(connection), views.search)
            : Effect.fail(noDatabases)
          : Effect.flatMap(sessions.sql(connection), views.sql)))

    return handlers
      .handle("tables", ({ path, urlParams }) =>
        onConnection(path.id, {
          sql: (driver) =>
            sqlTables(driver, databaseOf(urlParams)),
          search: searchTables
        }, databaseOf(urlParams)))
      .handle("structure", ({ path, urlParams }) =>
        onConnection(path.id, {
          sql: (driver) => sqlStructureView(driver, path.table, databaseOf(urlParams)),
          search: (client) => searchStructure(client, path.table)
        }, databaseOf(urlParams)))
      .handle("rows", ({ path, payload, urlParams }) =>
        Effect.flatMap(settings.current, ({ limits }) =>
          onConnection(path.id, {
            sql: (driver) =>
              sqlPage(driver, path.table, payload, limits, databaseOf(urlParams)),
            search: (client) =>
              searchPage(client, path.table, payload, limits)
          }, databaseOf(urlParams))))
      .handle("save", ({ path, payload }) =>
        onConnection(path.id, {
          sql: () =>
            Effect.fail(
              new UiError({
                message: "SQL rows are saved through the statements dialog (sql-edits/preview, then sql-edits/apply)."
              })
            ),
          search: (client) =>
            searchSave(client, path.table, payload)
        }))
      .handle("console", ({ path, payload, urlParams }) =>
        Effect.gen(function*() {
          const { limits } = yield* settings.current
          const started = Date.now()
          const namespace = {
            ...databaseOf(urlParams),
            ...(payload.schema === undefined ? {} : { schema: payload.schema })
          }
          // the user's own writes get the database's check and the rolled-back dry run an MCP write gets
          const checks = Effect.map(
            Effect.orElseSucceed(sessions.connection(path.id), () => undefined),
            (connection) =>
              connection === undefined || connection.type === "search"
                ? undefined
                : preflight.sql(connection, payload.text, "readwrite", namespace)
          )
          const run = onConnection(path.id, {
            sql: (driver) =>
              Effect.flatMap(checks, (checked) =>
                sqlConsole(driver, payload.text, payload.confirmed, {
                  maxRows: Math.max(limits.maxRows, UI_CONSOLE_ROWS),
                  timeoutSeconds: limits.queryTimeoutSeconds,
                  answer: limits,
                  namespace
                }, checked)),
            search: (client) => searchConsole(client, payload.text, payload.confirmed, limits)
          }, databaseOf(urlParams))
          // the UI console records its statements in the query history with source "ui" (D-48)
          const record = (outcome: HistoryOutcome, rowCount: number | null) =>
            history.record({
              connectionId: path.id,
              text: payload.text,
              durationMs: Date.now() - started,
              rowCount,
              outcome,
              source: "ui"
            }).pipe(Effect.ignore)
          // Cancel interrupts the run through the registry MCP cancels use, so the driver stops the statement
          const tracked = payload.runId === undefined ? run : registry.track(UI_CONSOLE, payload.runId, run).pipe(
            Effect.catchTag("ProtocolError", () => Effect.fail(new UiError({ message: CANCELLED })))
          )
          return yield* tracked.pipe(
            Effect.tap((result) =>
              result._tag === "NeedsConfirmation"
                ? Effect.void
                : record("success", result._tag === "Grid" ? result.rows.length : null)
            ),
            Effect.tapError((error) => record(error.message === CANCELLED ? "cancelled" : "error", null))
          )
        }))
      .handle("cancelConsole", ({ path }) =>
        Effect.map(registry.cancel(UI_CONSOLE, path.runId), (cancelled) => ({ cancelled })))
      .handle("sqlPreview", ({ path, payload, urlParams }) =>
        onConnection(path.id, {
          sql: (driver) =>
            sqlPreview(driver, path.table, payload, databaseOf(urlParams)),
          search: () =>
            Effect.fail(notSql)
        }))
      .handle("sqlApply", ({ path, payload, urlParams }) =>
        Effect.flatMap(settings.current, ({ limits }) =>
          onConnection(path.id, {
            sql: (driver) =>
              sqlApply(
                driver,
                path.table,
                payload.edits,
                payload.statements,
                limits.queryTimeoutSeconds,
                databaseOf(urlParams)
              ),
            search: () =>
              Effect.fail(notSql)
          })))
      .handle("history", ({ path, urlParams }) =>
        forUi(Effect.map(history.recent(path.id, HISTORY_LIMIT.max), (entries) => {
          const term = urlParams.search?.trim().toLowerCase() ?? ""
          return entries
            .filter((entry) =>
              term === "" || entry.text.toLowerCase().includes(term)
            )
            .slice(0, Math.max(1, Math.min(HISTORY_LIMIT.max, urlParams.limit ?? HISTORY_LIMIT.max)))
            .map(({ connectionId: _, ...entry }) =>
              entry
            )
        })))
  }))
