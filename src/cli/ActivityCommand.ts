import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { existsSync } from "node:fs"
import type { ChainVerdict } from "../domain/Activity.ts"
import { verifyChain } from "../services/activity/ActivityChain.ts"
import { readActivityLog } from "../services/activity/ActivityStore.ts"
import { resolveSupportDirectory, supportFiles } from "../services/SupportDirectory.ts"

const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

/** Checks the hash chain of an activity.db file, read-only. */
export const verifyActivityFile = (path: string): Effect.Effect<ChainVerdict, Error> =>
  Effect.try({
    try: () => {
      const { anchor, head, rows } = readActivityLog(path)
      return verifyChain(rows, anchor, head)
    },
    catch: (cause) => new Error(`Could not read ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

const fail = (message: string) =>
  Console.error(message).pipe(Effect.zipRight(Effect.sync(() => {
    process.exitCode = 1
  })))

/**
 * `dbdesk activity verify` (product-decisions §6): walks the chain and names the first row that
 * was edited, inserted or deleted; exits 1 when it finds one or cannot read the log.
 */
const verify = Command.make("verify", { home }, (options) =>
  Effect.gen(function*() {
    const { activity: path } = supportFiles(Option.getOrElse(options.home, () => resolveSupportDirectory()))
    if (!existsSync(path)) return yield* fail(`No activity log at ${path}: the server has not run with this support directory`)
    const verdict = yield* verifyActivityFile(path)
    if (verdict.ok) return yield* Console.log(`activity log intact: ${verdict.rows} rows, hash chain verified (${path})`)
    yield* fail(`activity log tampered: ${verdict.message} (${path})`)
  }).pipe(Effect.catchAll((error) => fail(error.message)))).pipe(
    Command.withDescription("Check the activity log's hash chain; names the first edited, inserted or deleted row")
  )

/** `dbdesk activity …` */
export const activityCommand = Command.make("activity").pipe(
  Command.withDescription("The MCP activity log (activity.db)"),
  Command.withSubcommands([verify])
)
