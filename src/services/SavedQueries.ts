import { Clock, Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { UiSavedQuery } from "../domain/UiWorkSchemas.ts"
import { readFileIfExists, writeJsonAtomic } from "./AtomicFile.ts"
import { SupportPaths } from "./SupportPaths.ts"

const SavedQueriesFile = Schema.Struct({ version: Schema.Literal(1), queries: Schema.Array(UiSavedQuery) })

/** At most this many are kept; the oldest go first. */
export const SAVED_QUERIES_KEPT = 500

/**
 * The console's saved queries: `saved-queries.json` in the support directory, 0600 like the query history
 * (they are the user's own statements), written atomically. An unreadable file reads as empty and is replaced at the
 * next save rather than stopping the server.
 */
export class SavedQueries extends Effect.Service<SavedQueries>()("dbdesk/services/SavedQueries", {
  effect: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const file = path.join(paths.directory, "saved-queries.json")
    const lock = yield* Effect.makeSemaphore(1)

    const read = Effect.map(Effect.orElseSucceed(readFileIfExists(file), () => undefined), (text) =>
      text === undefined
        ? []
        : Option.match(Schema.decodeUnknownOption(Schema.parseJson(SavedQueriesFile))(text), {
          onNone: () => [],
          onSome: (stored) => stored.queries
        }))

    const list = read

    const save = Effect.fn("SavedQueries.save")(
      function*(entry: { readonly name: string; readonly text: string; readonly connectionId: string | null }) {
        return yield* lock.withPermits(1)(Effect.gen(function*() {
          const savedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
          const created: UiSavedQuery = {
            id: randomUUID(),
            name: entry.name,
            text: entry.text,
            connectionId: entry.connectionId,
            savedAt
          }
          const queries = [created, ...(yield* read)].slice(0, SAVED_QUERIES_KEPT)
          yield* writeJsonAtomic(file, { version: 1, queries }, 0o600)
          return created
        }))
      }
    )

    const remove = Effect.fn("SavedQueries.remove")(function*(id: string) {
      yield* lock.withPermits(1)(
        Effect.flatMap(read, (queries) =>
          writeJsonAtomic(file, {
            version: 1,
            queries: queries.filter((query) => query.id !== id)
          }, 0o600))
      )
    })

    return { list, save, remove } as const
  })
}) {}
