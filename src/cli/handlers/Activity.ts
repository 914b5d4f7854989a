import { Console, Effect, Option } from "effect"
import { existsSync } from "node:fs"
import type { ChainVerdict } from "../../domain/Activity.ts"
import { verifyChain } from "../../services/activity/ChainVerifier.ts"
import { readActivityLog } from "../../services/activity/ActivityStore.ts"
import { resolveSupportDirectory, supportFiles } from "../../services/SupportDirectory.ts"
import { failCommand } from "./Failure.ts"

/** Checks the hash chain of an activity.db file, read-only. */
export const verifyActivityFile = (path: string): Effect.Effect<ChainVerdict, Error> =>
  Effect.try({
    try: () => {
      const { anchor, head, rows } = readActivityLog(path)
      return verifyChain(rows, anchor, head)
    },
    catch: (cause) => new Error(`Could not read ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

/** `dbdesk activity verify` (product-decisions §6). */
export const verify = (options: { readonly home: Option.Option<string> }) =>
  Effect.gen(function*() {
    const { activity: path } = supportFiles(Option.getOrElse(options.home, () => resolveSupportDirectory()))
    if (!existsSync(path)) return yield* failCommand(`No activity log at ${path}: the server has not run with this support directory`)
    const verdict = yield* verifyActivityFile(path)
    if (verdict.ok) return yield* Console.log(`activity log intact: ${verdict.rows} rows, hash chain verified (${path})`)
    yield* failCommand(`activity log tampered: ${verdict.message} (${path})`)
  }).pipe(Effect.catchAll((error) => failCommand(error.message)))
