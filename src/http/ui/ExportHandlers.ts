// D-92: the UI's Export. The export runs on the server's exporter in its own fiber; the UI polls its progress (rows,
// bytes) and may cancel it by the id it chose, which interrupts the read (the driver stops the statement) and removes
// the temporary file. The user's own UI passes no AI-settings guard (D-64), but only a statement that reads is run.
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Fiber } from "effect"
import { fileStem } from "../../domain/ExportFormat.ts"
import { UiApi } from "../../domain/UiApi.ts"
import type { UiExportStatus } from "../../domain/UiExport.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import { exportDirectory, exportFileName, exportRows } from "../../services/Exporter.ts"
import { SettingsStore } from "../../services/Settings.ts"
import { classifyForExecution, dialectOf } from "../../services/tools/StatementGates.ts"
import { sqlGridQuery } from "./SqlViews.ts"
import { forUi, toUiError } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

/** Finished exports kept for their status (the newest ones). */
const KEPT = 50

interface Job {
  status: UiExportStatus
  fiber?: Fiber.RuntimeFiber<unknown, unknown>
}

export const ExportHandlers = HttpApiBuilder.group(UiApi, "exports", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* UiSessions
    const settings = yield* SettingsStore
    const jobs = new Map<string, Job>()

    const forget = () => {
      const finished = [...jobs.entries()].filter(([, job]) => job.status.state !== "running")
      for (const [runId] of finished.slice(0, Math.max(0, finished.length - KEPT))) jobs.delete(runId)
    }

    return handlers
      .handle("startExport", ({ path, payload }) =>
        forUi(Effect.gen(function*() {
          if (jobs.has(payload.runId)) {
            return yield* Effect.fail(new UiError({ message: "An export with this id exists already." }))
          }
          if ((payload.query === undefined) === (payload.table === undefined)) {
            return yield* Effect.fail(new UiError({ message: "Export either a statement or a table." }))
          }
          const connection = yield* sessions.connection(path.id)
          if (connection.type === "search") {
            return yield* Effect.fail(new UiError({ message: "Search collections cannot be exported yet." }))
          }
          if (payload.query !== undefined) {
            const classification = yield* classifyForExecution(payload.query, connection)
            if (classification.tier !== "safe") {
              return yield* Effect.fail(
                new UiError({ message: "Export runs only a statement that reads; this one may change data." })
              )
            }
          }
          const { exports } = yield* settings.current
          const directory = yield* exportDirectory(exports.directory)
          const driver = yield* sessions.sql(connection)
          const source = payload.table !== undefined
            ? {
              kind: "table" as const,
              table: payload.table,
              query: payload.grid === undefined
                ? { limit: 1, offset: 0 }
                : { ...(yield* sqlGridQuery(driver, payload.table, payload.grid)), offset: 0 }
            }
            : { kind: "query" as const, sql: payload.query! }
          const job: Job = { status: { runId: payload.runId, state: "running", rows: 0, bytes: 0, elapsedMs: 0 } }
          jobs.set(payload.runId, job)
          forget()
          const run = exportRows({
            driver,
            source,
            namespace: payload.schema === undefined ? undefined : { schema: payload.schema },
            guard: undefined,
            format: payload.format,
            dialect: dialectOf(connection),
            directory,
            fileName: exportFileName(payload.table === undefined ? "query" : fileStem(payload.table), payload.format),
            insertTable: payload.table ?? "exported",
            onProgress: (progress) =>
              Effect.sync(() => {
                job.status = {
                  ...job.status,
                  rows: progress.rows,
                  bytes: progress.bytes,
                  elapsedMs: progress.elapsedMs
                }
              })
          }).pipe(
            Effect.tap((outcome) =>
              Effect.sync(() => {
                job.status = {
                  ...job.status,
                  state: "done",
                  rows: outcome.rows,
                  bytes: outcome.bytes,
                  elapsedMs: outcome.elapsedMs,
                  path: outcome.path
                }
              })
            ),
            Effect.tapError((error) =>
              Effect.sync(() => {
                job.status = { ...job.status, state: "failed", message: toUiError(error).message }
              })
            ),
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                job.status = {
                  ...job.status,
                  state: "cancelled",
                  message: "Cancelled: the read was stopped and no file was kept."
                }
              })
            )
          )
          job.fiber = yield* Effect.forkDaemon(run)
          return job.status
        })))
      .handle("exportStatus", ({ path }) => {
        const job = jobs.get(path.runId)
        return job === undefined
          ? Effect.fail(new UiError({ message: "No export with this id." }))
          : Effect.succeed(job.status)
      })
      .handle("cancelExport", ({ path }) =>
        Effect.gen(function*() {
          const job = jobs.get(path.runId)
          if (job?.fiber === undefined || job.status.state !== "running") return { cancelled: 0 }
          yield* Fiber.interrupt(job.fiber)
          return { cancelled: 1 }
        }))
      .handle("exportFolder", () =>
        Effect.flatMap(
          settings.current,
          ({ exports }) =>
            Effect.map(
              Effect.option(exportDirectory(exports.directory)),
              (resolved) => ({ setting: exports.directory, resolved: resolved._tag === "Some" ? resolved.value : null })
            )
        ))
  }))
