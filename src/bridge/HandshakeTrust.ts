import { Clock, Context, Effect, Layer, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { HandshakeFile, isPidAlive } from "../services/Handshake.ts"
import { BridgeRefusal, notRunning, untrusted } from "./BridgeRefusal.ts"

export interface FileFacts {
  readonly uid: number
  readonly mode: number
  readonly isFile: boolean
  readonly isSymbolicLink: boolean
  readonly isDirectory: boolean
}

/**
 * What the trust check asks the operating system (D-53): a port so a test can
 * simulate a file owned by someone else, which a test cannot create without privileges.
 */
export class FileInspector extends Context.Tag("dbdesk/bridge/FileInspector")<FileInspector, {
  /** `lstat` of a path; `undefined` when it does not exist. */
  readonly lstat: (filePath: string) => Promise<FileFacts | undefined>
  readonly read: (filePath: string) => Promise<string>
  /** The user the bridge runs as; `undefined` where POSIX owners do not apply (Windows). */
  readonly currentUid: number | undefined
  readonly pidAlive: (pid: number) => boolean
}>() {
  static readonly node = {
    lstat: async (filePath: string) => {
      const stats = await fs.lstat(filePath).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined
        throw error
      })
      return stats === undefined ? undefined : {
        uid: stats.uid,
        mode: stats.mode,
        isFile: stats.isFile(),
        isSymbolicLink: stats.isSymbolicLink(),
        isDirectory: stats.isDirectory()
      }
    },
    read: (filePath: string) => fs.readFile(filePath, "utf8"),
    currentUid: typeof process.getuid === "function" ? process.getuid() : undefined,
    pidAlive: isPidAlive
  } satisfies FileInspector["Type"]
  static readonly layer = Layer.succeed(FileInspector, FileInspector.node)
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

/**
 * Reads the handshake file and trusts it only if it is a regular file owned by the user with no
 * group or other permission bits, in a directory the user owns that group and others cannot write,
 * naming a live pid, and not past `bridgeTokenExpiresAt` (D-53, reference §6).
 */
export const trustHandshake = (handshakePath: string) =>
  Effect.gen(function*() {
    const inspector = yield* FileInspector
    const ask = <A>(what: string, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (cause) => untrusted(handshakePath, `${what} failed (${String(cause)})`) })

    const file = yield* ask("reading its status", () => inspector.lstat(handshakePath))
    if (file === undefined) return yield* notRunning(`there is no handshake file at ${handshakePath}`)
    if (file.isSymbolicLink) return yield* untrusted(handshakePath, "it is a symbolic link")
    if (!file.isFile) return yield* untrusted(handshakePath, "it is not a regular file")
    const me = inspector.currentUid
    if (me !== undefined) {
      if (file.uid !== me) {
        return yield* untrusted(handshakePath, `it is owned by uid ${file.uid}, not by you (uid ${me})`)
      }
      if ((file.mode & 0o077) !== 0) {
        return yield* untrusted(
          handshakePath,
          `its mode ${octal(file.mode)} gives group or others access; it must be 0600`
        )
      }
      const directory = path.dirname(handshakePath)
      const parent = yield* ask("reading its directory's status", () => inspector.lstat(directory))
      if (parent === undefined || !parent.isDirectory) {
        return yield* untrusted(handshakePath, `${directory} is not a directory`)
      }
      if (parent.uid !== me) {
        return yield* untrusted(handshakePath, `its directory ${directory} is owned by uid ${parent.uid}, not by you`)
      }
      if ((parent.mode & 0o022) !== 0) {
        return yield* untrusted(
          handshakePath,
          `its directory ${directory} (mode ${octal(parent.mode)}) is writable by group or others`
        )
      }
    }

    const text = yield* ask("reading it", () => inspector.read(handshakePath))
    const handshake = yield* Effect.try(() => JSON.parse(text) as unknown).pipe(
      Effect.flatMap(Schema.decodeUnknown(HandshakeFile)),
      Effect.mapError(() => untrusted(handshakePath, "it is not a valid dbdesk handshake file"))
    )
    if (!inspector.pidAlive(handshake.pid)) {
      return yield* notRunning(`the handshake file ${handshakePath} names pid ${handshake.pid}, which is not running`)
    }
    if (handshake.bridgeTokenExpiresAt !== undefined) {
      const now = yield* Clock.currentTimeMillis
      const expiresAt = Date.parse(handshake.bridgeTokenExpiresAt)
      if (Number.isNaN(expiresAt) || expiresAt <= now) {
        return yield* new BridgeRefusal({
          reason: "expired_handshake",
          explanation: `The handshake file ${handshakePath} expired at ${handshake.bridgeTokenExpiresAt}: ` +
            `the server (pid ${handshake.pid}) stopped renewing it. Restart it with \`dbdesk serve\`.`
        })
      }
    }
    return handshake
  })
