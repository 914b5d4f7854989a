import * as path from "node:path"
import { Console, Effect, Layer, Option } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { ExportFormat } from "../../domain/ExportFormat.ts"
import { uiMessage } from "../../http/ui/UiErrors.ts"
import { Connections } from "../../services/Connections.ts"
import { Drivers } from "../../services/Drivers.ts"
import { type ExportProgress, exportRows, progressText, sizeText } from "../../services/Exporter.ts"
import { classifyForExecution, dialectOf } from "../../services/tools/StatementGates.ts"
import { connectionChoices, filesOf, findConnection, readConnections } from "../SupportFiles.ts"
import { failCommand } from "./Failure.ts"

/** On a terminal, one line rewritten in place at most every 200 ms; elsewhere (a pipe, a log) nothing until the end. */
const progressLine = () => {
  let shown = 0
  return (progress: ExportProgress) =>
    Effect.sync(() => {
      if (!process.stderr.isTTY || progress.elapsedMs - shown < 200) return
      shown = progress.elapsedMs
      process.stderr.write(`\r\u001b[2KExporting: ${progressText(progress)}`)
    })
}

const run = (
  connection: Connection,
  options: {
    readonly sql: string | undefined
    readonly table: string | undefined
    readonly format: ExportFormat
    readonly output: string
  }
) =>
  Effect.gen(function*() {
    if (options.sql !== undefined) {
      const classification = yield* classifyForExecution(options.sql, connection)
      if (classification.tier !== "safe") {
        return yield* Effect.fail(
          new Error(
            "export runs only a statement that reads; this one may change data (run it in the console or a client instead)"
          )
        )
      }
    }
    const driver = yield* Effect.flatMap(Drivers, (drivers) => drivers.forConnection(connection))
    const output = path.resolve(options.output)
    const outcome = yield* exportRows({
      driver,
      source: options.sql !== undefined
        ? { kind: "query", sql: options.sql }
        : { kind: "table", table: options.table!, query: { limit: 1, offset: 0 } },
      namespace: undefined,
      // The user's own command reads as the UI does: no AI-settings guard (D-64).
      guard: undefined,
      format: options.format,
      dialect: dialectOf(connection),
      directory: path.dirname(output),
      fileName: path.basename(output),
      insertTable: options.table ?? "exported",
      onProgress: progressLine()
    })
    if (process.stderr.isTTY) process.stderr.write("\r\u001b[2K")
    return outcome
  })

/** `dbdesk export` (D-92): the connection opened in this process, the rows streamed to the file. */
export const exportData = (options: {
  readonly home: Option.Option<string>
  readonly connection: string
  readonly sql: Option.Option<string>
  readonly table: Option.Option<string>
  readonly format: ExportFormat
  readonly output: string
}) =>
  Effect.gen(function*() {
    const sql = Option.getOrUndefined(options.sql)
    const table = Option.getOrUndefined(options.table)
    if ((sql === undefined) === (table === undefined)) {
      return yield* failCommand("give either --sql or --table (one of them)")
    }
    const files = filesOf(Option.getOrUndefined(options.home))
    const connections = yield* readConnections(files.connections)
    if (connections === undefined) {
      return yield* failCommand(
        `there are no connections yet (${files.connections} does not exist); add one with dbdesk connection add`
      )
    }
    const connection = findConnection(connections, options.connection)
    if (connection === undefined) {
      return yield* failCommand(
        `--connection: no connection has the id or name ${JSON.stringify(options.connection)}; ${
          connectionChoices(connections)
        }`
      )
    }
    if (connection.type === "search") {
      return yield* failCommand("export reads SQL connections; a search collection cannot be exported yet")
    }
    const services = Drivers.Default.pipe(
      Layer.provide(Layer.effect(Connections, Connections.make(connections, () => Effect.void)))
    )
    const outcome = yield* run(connection, { sql, table, format: options.format, output: options.output }).pipe(
      Effect.provide(services),
      Effect.scoped,
      Effect.either
    )
    if (outcome._tag === "Left") {
      if (process.stderr.isTTY) process.stderr.write("\r\u001b[2K")
      return yield* failCommand(`export failed: ${uiMessage(outcome.left)}`)
    }
    const done = outcome.right
    yield* Console.log(
      `Wrote ${done.rows} rows (${sizeText(done.bytes)}) to ${done.path} in ${(done.elapsedMs / 1000).toFixed(1)} s`
    )
  }).pipe(Effect.catchTag("UnreadableFile", (error) => failCommand(error.message)))
