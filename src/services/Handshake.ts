import { Data, Effect, Schema } from "effect"
import { MODERN_VERSION } from "../domain/ProtocolVersions.ts"
import { readFileIfExists, removeFile, writeJsonAtomic } from "./AtomicFile.ts"

/** D-8: written after the port is bound. */
export const HandshakeFile = Schema.Struct({
  version: Schema.Literal(1),
  port: Schema.Int,
  pid: Schema.Int,
  instanceId: Schema.String,
  protocolVersion: Schema.String,
  startedAt: Schema.String,
  uiUrl: Schema.String,
  bridgeToken: Schema.optionalWith(Schema.String, { exact: true }),
  bridgeTokenExpiresAt: Schema.optionalWith(Schema.String, { exact: true })
})
export type HandshakeFile = typeof HandshakeFile.Type

export class ServerAlreadyRunning extends Data.TaggedError("ServerAlreadyRunning")<{
  readonly handshakePath: string
  readonly port: number
  readonly pid: number
}> {
  override get message(): string {
    return `dbdesk is already running (pid ${this.pid}) at http://127.0.0.1:${this.port}/mcp ` +
      `for this support directory (${this.handshakePath}). Stop it first, or set DBDESK_HOME to use another directory.`
  }
}

export const isPidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

export const readHandshake = (filePath: string) =>
  Effect.gen(function*() {
    const text = yield* readFileIfExists(filePath)
    if (text === undefined) return undefined
    return yield* Effect.try(() => JSON.parse(text) as unknown).pipe(
      Effect.flatMap(Schema.decodeUnknown(HandshakeFile)),
      Effect.option,
      Effect.map((option) => (option._tag === "Some" ? option.value : undefined))
    )
  })

/**
 * Asks the server a handshake names for its instance id through `server/discover`;
 * a live pid that answers with the same instance is a running dbdesk (D-2).
 */
const answersAsInstance = (handshake: HandshakeFile) =>
  Effect.tryPromise(async () => {
    const response = await fetch(`http://127.0.0.1:${handshake.port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": MODERN_VERSION,
        "mcp-method": "server/discover"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "dbdesk-second-start",
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      }),
      signal: AbortSignal.timeout(2000)
    })
    const body = (await response.json()) as { result?: { _meta?: Record<string, unknown> } }
    return body.result?._meta?.["dev.dbdesk/instanceId"] === handshake.instanceId
  }).pipe(Effect.orElseSucceed(() => false))

/**
 * Fails when the handshake names a live dbdesk, in another process or (embedded) in this one; a stale file (dead pid,
 * or a server that no longer answers as that instance) is left to be replaced.
 */
export const refuseSecondStart = (filePath: string) =>
  Effect.gen(function*() {
    const existing = yield* readHandshake(filePath)
    if (existing === undefined || !isPidAlive(existing.pid)) return
    if (yield* answersAsInstance(existing)) {
      return yield* new ServerAlreadyRunning({ handshakePath: filePath, port: existing.port, pid: existing.pid })
    }
  })

export const writeHandshake = (filePath: string, handshake: HandshakeFile) =>
  writeJsonAtomic(filePath, handshake, 0o600)

/** Removes the file at a clean stop only if it still names this process and instance. */
export const removeOwnHandshake = (filePath: string, instanceId: string) =>
  Effect.gen(function*() {
    const existing = yield* readHandshake(filePath)
    if (existing !== undefined && existing.pid === process.pid && existing.instanceId === instanceId) {
      yield* removeFile(filePath)
    }
  })
