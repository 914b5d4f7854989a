import { Clock, Console, Effect, Either, Option } from "effect"
import { existsSync } from "node:fs"
import type { ActivityEntry, ActivityQuery, ChainVerdict } from "../../domain/Activity.ts"
import { writeFileAtomic } from "../../services/AtomicFile.ts"
import { verifyChain } from "../../services/activity/ChainVerifier.ts"
import { type ActivityExportFormat, formatActivity } from "../../services/activity/ActivityExport.ts"
import { queryActivityLog, readActivityLog } from "../../services/activity/ActivityStore.ts"
import { filesOf } from "../SupportFiles.ts"
import { failCommand } from "./Failure.ts"
import { printJson, table } from "./Output.ts"

/** Checks the hash chain of an activity.db file, read-only. */
export const verifyActivityFile = (path: string): Effect.Effect<ChainVerdict, Error> =>
  Effect.try({
    try: () => {
      const { anchor, head, rows } = readActivityLog(path)
      return verifyChain(rows, anchor, head)
    },
    catch: (cause) => new Error(`Could not read ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

const noLog = (path: string) => `No activity log at ${path}: the server has not run with this support directory`

/** `dbdesk activity verify` (D-51): names the first row edited, inserted or deleted; exit 1 then. */
export const verify = (options: { readonly home: Option.Option<string>; readonly json: boolean }) =>
  Effect.gen(function*() {
    const { activity: path } = filesOf(Option.getOrUndefined(options.home))
    if (!existsSync(path)) return yield* failCommand(noLog(path))
    const verdict = yield* verifyActivityFile(path)
    if (options.json) {
      yield* printJson({ ...verdict, path })
      if (!verdict.ok) process.exitCode = 1
      return
    }
    if (verdict.ok) {
      return yield* Console.log(`activity log intact: ${verdict.rows} rows, hash chain verified (${path})`)
    }
    yield* failCommand(`activity log tampered: ${verdict.message} (${path})`)
  }).pipe(Effect.catchAll((error) => failCommand(error.message)))

const UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `--since 24h | 7d | 30m | 2026-11-01 | 2026-11-01T12:00:00Z` → an ISO instant. */
export const parseSince = (text: string, nowMillis: number): Either.Either<string, string> => {
  const trimmed = text.trim()
  const relative = /^(\d{1,6})([mhd])$/.exec(trimmed)
  if (relative !== null) {
    return Either.right(new Date(nowMillis - Number(relative[1]) * UNITS_MS[relative[2]!]!).toISOString())
  }
  const instant = /^\d{4}-\d{2}-\d{2}(T.*)?$/.test(trimmed) ? Date.parse(trimmed) : Number.NaN
  return Number.isNaN(instant)
    ? Either.left(`--since takes 30m, 24h, 7d, 2026-11-01 or an ISO time, not ${JSON.stringify(trimmed)}`)
    : Either.right(new Date(instant).toISOString())
}

interface Filter {
  readonly home: Option.Option<string>
  readonly since: Option.Option<string>
  readonly client: Option.Option<string>
}

/** Reads matching rows read-only, newest first; a Left explains why there are none to read. */
const readRows = (
  filter: Filter,
  limit: number
): Effect.Effect<Either.Either<ReadonlyArray<ActivityEntry>, string>, Error> =>
  Effect.gen(function*() {
    const path = filesOf(Option.getOrUndefined(filter.home)).activity
    if (!existsSync(path)) return Either.left(noLog(path))
    let query: ActivityQuery = { limit }
    if (Option.isSome(filter.since)) {
      const parsed = parseSince(filter.since.value, yield* Clock.currentTimeMillis)
      if (Either.isLeft(parsed)) return Either.left(parsed.left)
      query = { ...query, since: parsed.right }
    }
    if (Option.isSome(filter.client)) query = { ...query, client: filter.client.value }
    return yield* Effect.try({
      try: () => Either.right(queryActivityLog(path, query)),
      catch: (cause) => new Error(`Could not read ${path}: ${String(cause)}`)
    })
  })

const cells = (entry: ActivityEntry) => [
  entry.at,
  entry.category,
  entry.action,
  entry.outcome ?? "",
  entry.clientTitle ?? entry.clientName ?? "",
  entry.tokenName ?? "",
  entry.subject ?? "",
  entry.durationMs === null ? "" : `${Math.round(entry.durationMs)} ms`
]

/** `dbdesk activity list`: newest first, as a table or JSON. */
export const list = (options: Filter & { readonly json: boolean; readonly limit: number }) =>
  Effect.gen(function*() {
    if (options.limit < 1 || options.limit > 10_000) return yield* failCommand("--limit takes 1 to 10000")
    const rows = yield* readRows(options, options.limit)
    if (Either.isLeft(rows)) return yield* failCommand(rows.left)
    if (options.json) return yield* printJson(rows.right)
    if (rows.right.length === 0) return yield* Console.log("No matching activity.")
    yield* Console.log(
      table([
        ["AT", "CATEGORY", "ACTION", "OUTCOME", "CLIENT", "TOKEN", "SUBJECT", "DURATION"],
        ...rows.right.map(cells)
      ])
    )
  }).pipe(Effect.catchAll((error) => failCommand(error.message)))

/** Export keeps every matching row up to this many, oldest first. */
export const EXPORT_LIMIT = 1_000_000

/** `dbdesk activity export`: the UI's CSV, or JSON lines, to stdout or atomically to a 0600 file. */
export const exportActivity = (
  options: Filter & { readonly format: ActivityExportFormat; readonly output: Option.Option<string> }
) =>
  Effect.gen(function*() {
    const rows = yield* readRows(options, EXPORT_LIMIT)
    if (Either.isLeft(rows)) return yield* failCommand(rows.left)
    const text = formatActivity([...rows.right].reverse(), options.format)
    if (Option.isNone(options.output)) return yield* Effect.sync(() => process.stdout.write(text))
    yield* writeFileAtomic(options.output.value, text, 0o600)
    yield* Console.error(`Wrote ${rows.right.length} events to ${options.output.value}`)
  }).pipe(Effect.catchAll((error) => failCommand(error.message)))
