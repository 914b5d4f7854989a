import { Effect, Either, ParseResult, Schema } from "effect"
import { type Connection, ConnectionsFile } from "../domain/Connection.ts"
import { readFileIfExists } from "../services/AtomicFile.ts"
import { type HandshakeFile, isPidAlive, readHandshake } from "../services/Handshake.ts"
import { resolveSupportDirectory, type SupportFiles, supportFiles } from "../services/SupportDirectory.ts"

/**
 * Read-only views of the support directory for the CLI: none of these create a file or directory,
 * so `token create`, `connection list` and `doctor` leave a fresh directory as they found it.
 */
export const filesOf = (home: string | undefined): SupportFiles => supportFiles(home ?? resolveSupportDirectory())

export class UnreadableFile
  extends Schema.TaggedError<UnreadableFile>()("UnreadableFile", { path: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `${this.path} cannot be read: ${this.reason}`
  }
}

/** `connections.json`, or `undefined` before the first start (the server then creates the sample connection). */
export const readConnections = (path: string): Effect.Effect<ReadonlyArray<Connection> | undefined, UnreadableFile> =>
  Effect.gen(function*() {
    const text = yield* readFileIfExists(path).pipe(
      Effect.mapError((error) => new UnreadableFile({ path, reason: String(error.cause) }))
    )
    if (text === undefined) return undefined
    const parsed = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (error) => new UnreadableFile({ path, reason: `not JSON (${String(error)})` })
    })
    const file = yield* Schema.decodeUnknown(ConnectionsFile)(parsed).pipe(
      Effect.mapError((error) => new UnreadableFile({ path, reason: ParseResult.TreeFormatter.formatErrorSync(error) }))
    )
    return file.connections
  })

/** The server that owns this support directory, when its handshake names a live process. */
export const liveServer = (handshakePath: string): Effect.Effect<HandshakeFile | undefined> =>
  readHandshake(handshakePath).pipe(
    Effect.map((handshake) => (handshake !== undefined && isPidAlive(handshake.pid) ? handshake : undefined)),
    Effect.orElseSucceed(() => undefined)
  )

/** A connection named by id or by its exact name (names are what users remember). */
export const findConnection = (all: ReadonlyArray<Connection>, idOrName: string): Connection | undefined =>
  all.find((connection) => connection.id === idOrName) ?? all.find((connection) => connection.name === idOrName)

export const connectionChoices = (all: ReadonlyArray<Connection>): string =>
  all.length === 0
    ? "there are no connections"
    : `the connections are ${all.map((connection) => `${connection.id} (${connection.name})`).join(", ")}`

/** JSON text decoded with a schema; the failure says what is wrong in one line (not JSON, or which field). */
export const decodeJsonFile = <A, I>(schema: Schema.Schema<A, I>, text: string): Either.Either<A, string> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return Either.left(`it is not JSON (${error instanceof Error ? error.message : String(error)})`)
  }
  return Either.mapLeft(
    Schema.decodeUnknownEither(schema)(parsed),
    (error) =>
      ParseResult.ArrayFormatter.formatErrorSync(error).slice(0, 3).map((issue) =>
        `${issue.path.join(".") || "(top level)"}: ${issue.message}`
      ).join("; ")
  )
}
