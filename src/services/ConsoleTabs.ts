import { Data, Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { mkdir } from "node:fs/promises"
import * as path from "node:path"
import { CONSOLE_TEXT_MAX_CHARS, UiConsoleTabs } from "../domain/UiWorkSchemas.ts"
import { readFileIfExists, removeFile, writeJsonAtomic } from "./AtomicFile.ts"
import { SupportPaths } from "./SupportPaths.ts"

const Stored = Schema.Struct({ version: Schema.Literal(1), connectionId: Schema.String, state: UiConsoleTabs })
const EMPTY: UiConsoleTabs = { tabs: [], active: null }

/** Too much text to keep: the caller says so in plain words. */
export class ConsoleTextTooLarge extends Data.TaggedError("ConsoleTextTooLarge")<{ readonly chars: number }> {}

/**
 * The console's tabs and their text per connection, kept across restarts of `serve`: one file a connection in
 * `console-tabs/` of the support directory (0700; files 0600 like the query history, since they hold the user's own
 * statements), written atomically. The file name is a digest of the connection id, so an id never names a path. An
 * unreadable file reads as no tabs. Removing the connection's tabs leaves no file behind.
 */
export class ConsoleTabs extends Effect.Service<ConsoleTabs>()("dbdesk/services/ConsoleTabs", {
  effect: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const directory = path.join(paths.directory, "console-tabs")
    const lock = yield* Effect.makeSemaphore(1)
    const fileOf = (connectionId: string) =>
      path.join(directory, `${createHash("sha256").update(connectionId).digest("hex").slice(0, 32)}.json`)

    const get = (connectionId: string) =>
      Effect.map(
        Effect.orElseSucceed(readFileIfExists(fileOf(connectionId)), () => undefined),
        (text): UiConsoleTabs =>
          text === undefined
            ? EMPTY
            : Option.match(Schema.decodeUnknownOption(Schema.parseJson(Stored))(text), {
              onNone: () => EMPTY,
              onSome: (stored) => (stored.connectionId === connectionId ? stored.state : EMPTY)
            })
      )

    const put = (connectionId: string, state: UiConsoleTabs) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const chars = state.tabs.reduce((sum, tab) => sum + tab.text.length + tab.title.length, 0)
        if (chars > CONSOLE_TEXT_MAX_CHARS) return yield* new ConsoleTextTooLarge({ chars })
        if (state.tabs.length === 0) return yield* Effect.ignore(removeFile(fileOf(connectionId)))
        yield* Effect.tryPromise(() => mkdir(directory, { recursive: true, mode: 0o700 }))
        yield* writeJsonAtomic(fileOf(connectionId), { version: 1, connectionId, state }, 0o600)
      }))

    return { get, put } as const
  })
}) {}
