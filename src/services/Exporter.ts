// D-92: one streaming exporter for the MCP tool, the CLI and the UI. Rows come from the driver's held cursor
// (PostgreSQL: a portal executed page by page in a read-only transaction; SQLite: the child's iterator; MySQL: its
// streaming query where the driver holds cursors) one page at a time into a temporary file beside the target, which
// is renamed to a name no file has yet once the last row is written, and removed when the export fails or is cancelled.
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Data, Effect, Exit } from "effect"
import type { AnswerLimits } from "../domain/AnswerBudget.ts"
import { EXTENSIONS, type ExportDialect, type ExportFormat, rowWriter } from "../domain/ExportFormat.ts"
import type { GridQuery } from "../domain/SqlBrowse.ts"
import type { Cell } from "../domain/SqlCell.ts"
import type {
  AnswerGuard,
  DatabaseDriver,
  GuardedResultSet,
  HeldCursor,
  Namespace,
  ReachFailure,
  StatementTimeout,
  TableNotFound,
  Unsupported
} from "./drivers/Driver.ts"

/** Rows read from the cursor per round trip; the exporter holds at most this many (plus one read ahead). */
export const EXPORT_PAGE_ROWS = 1000

/** No value is cut in a file (the caps are for answers a model reads); a page stops at its rows, never its bytes. */
const EXPORT_LIMITS: AnswerLimits = { maxCellBytes: Number.MAX_SAFE_INTEGER, maxAnswerBytes: 1024 * 1024 * 1024 }

/** Rows kept for the answer's preview. */
export const PREVIEW_ROWS = 5

/** Each page's deadline: an export reads for as long as it takes, a single page may not hang. */
const PAGE_SECONDS = 300

/** The export cannot be written (folder missing, disk full, a read ended early); the message is for a person. */
export class ExportFailed extends Data.TaggedError("ExportFailed")<{ readonly message: string }> {}

export type ExportSource =
  | { readonly kind: "query"; readonly sql: string }
  | { readonly kind: "table"; readonly table: string; readonly query: GridQuery }

export interface ExportProgress {
  readonly rows: number
  readonly bytes: number
  readonly elapsedMs: number
}

export interface ExportRequest {
  readonly driver: DatabaseDriver
  readonly source: ExportSource
  readonly namespace: Namespace | undefined
  /** D-64: an MCP caller's guard (secret catalogs, masking rules); none for the user's own UI and CLI. */
  readonly guard: AnswerGuard | undefined
  readonly format: ExportFormat
  readonly dialect: ExportDialect
  /** The folder the file goes into and its wanted name (`name-1.csv`… when that one exists). */
  readonly directory: string
  readonly fileName: string
  /** The table the SQL format inserts into. */
  readonly insertTable: string
  readonly onProgress?: (progress: ExportProgress) => Effect.Effect<void>
}

export interface ExportOutcome {
  readonly path: string
  readonly rows: number
  readonly bytes: number
  readonly elapsedMs: number
  readonly columns: ReadonlyArray<string>
  readonly preview: ReadonlyArray<ReadonlyArray<Cell>>
}

export const sizeText = (bytes: number) =>
  bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KiB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** The numbers a progress report carries (rows written, bytes, seconds), in words. */
export const progressText = (progress: ExportProgress) =>
  `${progress.rows.toLocaleString("en-US")} rows, ${sizeText(progress.bytes)}, ${
    (progress.elapsedMs / 1000).toFixed(1)
  } s`

/** The platform's Downloads folder when it exists, else the home folder (settings `exports.directory` empty). */
export const defaultExportDirectory = async (): Promise<string> => {
  const downloads = path.join(os.homedir(), "Downloads")
  const found = await fs.stat(downloads).then((stat) => stat.isDirectory(), () => false)
  return found ? downloads : os.homedir()
}

/** The folder exports go into: the setting, or the default; it must exist (nothing is created outside it). */
export const exportDirectory = (setting: string): Effect.Effect<string, ExportFailed> =>
  Effect.tryPromise({
    try: async () => {
      const directory = setting === "" ? await defaultExportDirectory() : path.resolve(setting)
      const stat = await fs.stat(directory)
      if (!stat.isDirectory()) throw new Error("not a folder")
      return directory
    },
    catch: () =>
      new ExportFailed({
        message: `the export folder ${
          setting === "" ? "(Downloads, or the home folder)" : setting
        } does not exist or is not a folder; choose one in Settings`
      })
  })

const failedWith = (what: string) => (error: unknown) =>
  new ExportFailed({
    message: `${what}: ${error instanceof Error ? error.message.replace(/^[A-Z]+: /, "") : String(error)}`
  })

/** `name.csv`, then `name-1.csv`, `name-2.csv`…: the first free one, taken atomically (a hard link never replaces a file). */
const claimName = async (temporary: string, directory: string, fileName: string): Promise<string> => {
  const extension = path.extname(fileName)
  const stem = fileName.slice(0, fileName.length - extension.length)
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const candidate = path.join(directory, attempt === 0 ? fileName : `${stem}-${attempt}${extension}`)
    try {
      await fs.link(temporary, candidate)
      await fs.unlink(temporary)
      return candidate
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
  throw new Error(`10,000 files named like ${fileName} exist already`)
}

/** The file name for a format: the given stem with the format's extension. */
export const exportFileName = (stem: string, format: ExportFormat): string => `${stem}.${EXTENSIONS[format]}`

type OpenFailure = ReachFailure | StatementTimeout | Unsupported | TableNotFound

const openSource = (request: ExportRequest) => {
  const options = {
    ...request.namespace,
    timeoutSeconds: PAGE_SECONDS,
    idleSeconds: PAGE_SECONDS,
    guard: request.guard,
    maxRows: EXPORT_PAGE_ROWS,
    limits: EXPORT_LIMITS
  }
  const { driver, source } = request
  if (source.kind === "query") {
    return driver.openCursor === undefined
      ? Effect.fail(new ExportFailed({ message: "this connection's driver cannot stream a statement's rows yet" }))
      : driver.openCursor(source.sql, options)
  }
  return driver.openBrowseCursor === undefined
    ? Effect.fail(new ExportFailed({ message: "this connection's driver cannot stream a table's rows yet" }))
    : driver.openBrowseCursor(source.table, {
      ...source.query,
      limit: EXPORT_PAGE_ROWS,
      offset: source.query.offset ?? 0
    }, options)
}

/** A page that ended the read early (the driver stopped it) would leave the file short: the export fails instead. */
const checkComplete = (page: { readonly resultSet: GuardedResultSet; readonly more: boolean }) =>
  !page.more && page.resultSet.is_truncated
    ? Effect.fail(
      new ExportFailed({
        message: `the read was ended before the last row (${
          page.resultSet.status_message ?? "no reason given"
        }); nothing was written`
      })
    )
    : Effect.void

/**
 * Streams the rows of `request.source` into a new file: written to a temporary 0600 file in the same folder, renamed
 * to the first free name when complete; removed on failure or interruption. Progress is reported after every page.
 */
export const exportRows = (request: ExportRequest): Effect.Effect<ExportOutcome, ExportFailed | OpenFailure> =>
  Effect.gen(function*() {
    const started = performance.now()
    const temporary = path.join(request.directory, `.${request.fileName}.${randomBytes(6).toString("hex")}.part`)
    const file = yield* Effect.tryPromise({
      try: () => fs.open(temporary, "wx", 0o600),
      catch: failedWith(`the file could not be created in ${request.directory}`)
    })
    let claimed: string | undefined
    const cleanup = Effect.promise(async () => {
      await file.close().catch(() => undefined)
      if (claimed === undefined) await fs.unlink(temporary).catch(() => undefined)
    })
    return yield* Effect.gen(function*() {
      let rows = 0
      let bytes = 0
      const preview: Array<ReadonlyArray<Cell>> = []
      const write = (text: string) =>
        text === "" ?
          Effect.void :
          Effect.tryPromise({ try: () => file.write(text), catch: failedWith("the file could not be written") }).pipe(
            Effect.map(({ bytesWritten }) => {
              bytes += bytesWritten
            })
          )
      const opened = yield* openSource(request)
      const cursor: HeldCursor | undefined = opened.first.more ? opened.cursor : undefined
      const body = Effect.gen(function*() {
        const columns = opened.first.resultSet.columns
        const writer = rowWriter(request.format, columns, { table: request.insertTable, dialect: request.dialect })
        const take = (resultSet: GuardedResultSet) =>
          Effect.gen(function*() {
            let text = ""
            for (const row of resultSet.rows) {
              if (preview.length < PREVIEW_ROWS) preview.push(row)
              text += writer.row(row)
            }
            rows += resultSet.rows.length
            yield* write(text)
            if (request.onProgress !== undefined) {
              yield* request.onProgress({ rows, bytes, elapsedMs: performance.now() - started })
            }
          })
        yield* write(writer.start())
        let page = opened.first
        yield* checkComplete(page)
        yield* take(page.resultSet)
        while (page.more && cursor !== undefined) {
          page = yield* cursor.page(EXPORT_PAGE_ROWS, EXPORT_LIMITS)
          yield* checkComplete(page)
          yield* take(page.resultSet)
        }
        yield* write(writer.end())
        yield* Effect.tryPromise({ try: () => file.sync(), catch: failedWith("the file could not be written") })
        return columns
      })
      const columns = yield* (cursor === undefined ? body : Effect.ensuring(body, cursor.close()))
      yield* Effect.tryPromise({ try: () => file.close(), catch: failedWith("the file could not be written") })
      claimed = yield* Effect.tryPromise({
        try: () => claimName(temporary, request.directory, request.fileName),
        catch: failedWith("the file could not be named")
      })
      return { path: claimed, rows, bytes, elapsedMs: performance.now() - started, columns, preview }
    }).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : cleanup)))
  })
