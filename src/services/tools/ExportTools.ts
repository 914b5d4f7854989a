import { pathToFileURL } from "node:url"
import * as path from "node:path"
import { Effect, Schema } from "effect"
import { capResultSet } from "../../domain/AnswerBudget.ts"
import { EXPORT_FORMATS, type ExportFormat, fileStem, MEDIA_TYPES } from "../../domain/ExportFormat.ts"
import type { JsonObject } from "../../domain/Json.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ApprovalPreflight } from "../ApprovalPreflight.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Drivers } from "../Drivers.ts"
import {
  type ExportFailed,
  exportDirectory,
  exportFileName,
  type ExportProgress,
  exportRows,
  type ExportSource,
  progressText,
  sizeText
} from "../Exporter.ts"
import { SettingsStore } from "../Settings.ts"
import { StatementApproval } from "../StatementApproval.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { dialectOf, resolveTarget, tableGuard } from "./Guards.ts"
import { namespaceOf, requireName } from "./SchemaTools.ts"
import { statementVerb } from "./StatementGates.ts"
import { defineTool, fenced, type ToolRun } from "./Tool.ts"
import { connectionId, database, schemaName, text } from "./ToolArguments.ts"

/**
 * Progress must grow and stays below 1 (the total is not known before the last row): rows / (rows + one page's worth
 * of ten), so every page moves it; the message carries the real numbers.
 */
const progressFraction = (rows: number) => rows / (rows + 10_000)

const failedExport = (error: ExportFailed) => toolFailure("query_failed", error.message)

export const ExportTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const settings = yield* SettingsStore
  const approval = yield* StatementApproval
  const preflight = yield* ApprovalPreflight

  const exportData = defineTool({
    name: "export_data",
    description: "Saves a query's or table's rows to a file for the user. Returns its path and first rows.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      query: Schema.optionalWith(Schema.String, { exact: true }),
      table: Schema.optionalWith(Schema.String, { exact: true }),
      format: text(EXPORT_FORMATS.join("|")),
      database,
      schema: schemaName
    }),
    scopes: [],
    readOnly: false,
    prepare: (args, context) =>
      Effect.gen(function*() {
        if ((args.query === undefined) === (args.table === undefined)) {
          return yield* toolFailure("invalid_argument", "pass either query or table, not both")
        }
        if (!(EXPORT_FORMATS as ReadonlyArray<string>).includes(args.format)) {
          return yield* toolFailure("invalid_argument", `format must be one of ${EXPORT_FORMATS.join(", ")}`)
        }
        const format = args.format as ExportFormat
        const namespace = yield* namespaceOf(args)
        const current = yield* settings.current
        const directory = yield* Effect.mapError(exportDirectory(current.exports.directory), failedExport)
        const report = (progress: ExportProgress) =>
          context.progress(progressFraction(progress.rows), progressText(progress))
        const answer = (
          outcome: {
            readonly path: string
            readonly rows: number
            readonly bytes: number
            readonly elapsedMs: number
            readonly columns: ReadonlyArray<string>
            readonly preview: ReadonlyArray<ReadonlyArray<unknown>>
          }
        ): JsonObject => {
          const preview = capResultSet({
            columns: outcome.columns,
            rows: outcome.preview as never,
            row_count: outcome.preview.length,
            rows_affected: 0,
            execution_time_ms: 0,
            is_truncated: false
          }, current.limits)
          const structured = {
            path: outcome.path,
            format,
            rows: outcome.rows,
            bytes: outcome.bytes,
            elapsed_ms: Math.round(outcome.elapsedMs),
            preview: { columns: preview.columns, rows: preview.rows }
          } as unknown as JsonObject
          return {
            content: [
              {
                type: "text",
                text: `Wrote ${outcome.rows} rows (${
                  sizeText(outcome.bytes)
                }) as ${format} to ${outcome.path}. The first rows:\n${fenced(JSON.stringify(structured["preview"]))}`
              },
              {
                type: "resource_link",
                uri: pathToFileURL(outcome.path).href,
                name: path.basename(outcome.path),
                mimeType: MEDIA_TYPES[format],
                size: outcome.bytes
              }
            ],
            structuredContent: structured,
            isError: false
          }
        }

        if (args.table !== undefined) {
          const tableName = args.table
          yield* requireName(tableName, "table")
          const connection = yield* access.resolve(context.principal, args.connection_id, context.clientInfo?.name)
          if (connection.type === "search") {
            return yield* toolFailure(
              "unsupported",
              "export_data reads SQL connections; for a collection, page through it with browse_table"
            )
          }
          const run: ToolRun = mapDriverFailure(Effect.gen(function*() {
            const driver = yield* drivers.forConnection(connection)
            // D-64: the table gate refuses a secret catalog; the guard masks what the rules cover.
            const target = yield* resolveTarget(driver, connection, tableName, namespace)
            const source: ExportSource = { kind: "table", table: target.table, query: { limit: 1, offset: 0 } }
            const outcome = yield* exportRows({
              driver,
              source,
              namespace: target.namespace,
              guard: tableGuard(connection, target),
              format,
              dialect: dialectOf(connection),
              directory,
              fileName: exportFileName(fileStem(tableName), format),
              insertTable: tableName,
              onProgress: report
            }).pipe(Effect.catchTag("ExportFailed", (error) => Effect.fail(failedExport(error))))
            return answer(outcome)
          }))
          return run
        }

        const query = args.query!
        // D-70: the statement policy decides as for execute_query (gates in order, the access dialog asked where it says).
        const { connection, decision } = yield* access.statement(
          context,
          args.connection_id,
          "execute_query",
          query,
          namespace.database
        )
        if (connection.type === "search") {
          return yield* toolFailure(
            "unsupported",
            "export_data reads SQL connections; for a collection, page through it with browse_table"
          )
        }
        // D-92: an export only reads; a statement that could change anything is refused before it runs.
        if (decision.facts.classification?.tier !== "safe") {
          return yield* toolFailure(
            "denied",
            "export_data only runs a statement that reads; this one may change data: run it with execute_query instead"
          )
        }
        const needsApproval = decision.outcome.kind === "runs" && decision.outcome.asks.includes("approval")
        const gate = needsApproval
          ? yield* approval.gate(context, {
            connection,
            what: statementVerb(query),
            statement: query,
            preflight: preflight.sql(connection, query, "readonly", namespace)
          })
          : undefined
        if (gate?.kind === "input_required") {
          return Effect.succeed(gate.result)
        }
        const run: ToolRun = mapDriverFailure(Effect.gen(function*() {
          if (gate !== undefined) yield* gate.askApp
          const driver = yield* drivers.forConnection(connection)
          const outcome = yield* exportRows({
            driver,
            source: { kind: "query", sql: query },
            namespace,
            guard: decision.facts.guard,
            format,
            dialect: dialectOf(connection),
            directory,
            fileName: exportFileName("query", format),
            insertTable: "exported",
            onProgress: report
          }).pipe(Effect.catchTag("ExportFailed", (error) => Effect.fail(failedExport(error))))
          return answer(outcome)
        }))
        return run
      })
  })

  return [exportData] as const
})
