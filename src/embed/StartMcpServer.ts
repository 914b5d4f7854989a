import { Cause, Clock, Context, Effect, Either, Exit, Layer, ParseResult, Schema, Scope, Stream } from "effect"
import { Connection } from "../domain/Connection.ts"
import type { AccessLevel } from "../domain/Principal.ts"
import type { ServerInfo } from "../domain/ServerInfo.ts"
import type { SettingsPatch } from "../domain/Settings.ts"
import { parseExpiry, type TokenSummary } from "../domain/Token.ts"
import { toApprovalRequest } from "../domain/Approval.ts"
import { McpServerAddress } from "../http/NodeMcpServer.ts"
import { makeServerLayer } from "../http/Server.ts"
import { UiAddress } from "../http/ui/UiAddress.ts"
import { ActivityLog } from "../services/ActivityLog.ts"
import { ApprovalPrompt, type ApproveCallback } from "../services/ApprovalPrompt.ts"
import { Approvals } from "../services/Approvals.ts"
import { ConnectedClients } from "../services/ConnectedClients.ts"
import { Connections } from "../services/Connections.ts"
import { SupportPaths } from "../services/SupportPaths.ts"
import { terminalApprovalPrompt } from "../services/TerminalApprovalPrompt.ts"
import { Tokens } from "../services/Tokens.ts"
import { makeServerEvents, type ServerEventName, type ServerEvents } from "./ServerEvents.ts"

/** A connection as a host supplies it: the saved form (`connections.json`'s), with the host's own stable `id`. */
export type ConnectionInput = Schema.Schema.Encoded<typeof Connection>

export interface StartMcpServerOptions {
  /** Support directory (handshake file, settings, tokens, activity); default: DBDESK_HOME, else the platform location. */
  readonly home?: string
  /** MCP port; 0 = a free port; default: settings' `mcp.port` (23750, a free port when busy). */
  readonly port?: number
  /** The web UI on its own loopback port; default false when embedded. */
  readonly ui?: boolean
  /** The host's connections, kept in memory (never written to connections.json); default: connections.json. */
  readonly connections?: ReadonlyArray<ConnectionInput>
  /**
   * The app's own approval dialog (wire contract §3.1); resolve `true` to approve. Anything else, a rejection or a
   * throw denies. Default: the UI when `ui` is on, and a terminal prompt when stdin is a TTY (as `dbdesk serve`).
   */
  readonly approve?: ApproveCallback
  /** Settings applied on top of settings.json without being written back. */
  readonly settings?: SettingsPatch
  /** The host names itself to clients (D-9). */
  readonly serverInfo?: Partial<ServerInfo>
}

export interface NewTokenInput {
  readonly name: string
  readonly access: AccessLevel
  /** "all" (default) or connection ids. */
  readonly connections?: "all" | ReadonlyArray<string>
  /** A Date, or the CLI's forms: "30d", "2027-01-31", an ISO timestamp, "never" (default). */
  readonly expires?: Date | string
}

export interface CreatedToken {
  readonly id: string
  /** The bearer value: shown once, never stored (only its salted hash is). */
  readonly value: string
  readonly token: TokenSummary
}

export interface ServerTokens {
  readonly create: (input: NewTokenInput) => Promise<CreatedToken>
  /** Every token but the bridge's, revoked and expired ones included (see `revokedAt`, `expiresAt`). */
  readonly list: () => Promise<ReadonlyArray<TokenSummary>>
  /** Revokes at once: the token's running requests are cancelled, its subscriptions closed, its grants forgotten. */
  readonly revoke: (id: string) => Promise<TokenSummary>
}

export interface DbdeskServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string
  readonly port: number
  /** The support directory in use. */
  readonly home: string
  /** The UI's launch URL, with its per-launch key (a secret: open it, do not log it); undefined without the UI. */
  readonly uiUrl: string | undefined
  readonly tokens: ServerTokens
  readonly events: ServerEvents
  /** Graceful, as SIGINT for `dbdesk serve`: running requests get up to 10 s, then the port is closed. */
  readonly stop: () => Promise<void>
}

/** The failure itself (a dbdesk error with its own message), not Effect's wrapper around it. */
const run = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

const invalid = (message: string) => Effect.fail(new TypeError(`startMcpServer: ${message}`))

const decodeConnections = (connections: ReadonlyArray<ConnectionInput>) =>
  Effect.gen(function*() {
    const decoded = Schema.decodeUnknownEither(Schema.Array(Connection))(connections, { errors: "all" })
    if (Either.isLeft(decoded)) {
      return yield* invalid(`connections are not valid: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
    }
    const ids = decoded.right.map((connection) => connection.id)
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index)
    if (repeated !== undefined) {
      return yield* invalid(`two connections have the id ${JSON.stringify(repeated)}; ids must be unique`)
    }
    return connections
  })

const promptFor = (options: StartMcpServerOptions) => {
  if (options.approve !== undefined) return ApprovalPrompt.host(options.approve)
  return process.stdin.isTTY ? terminalApprovalPrompt() : ApprovalPrompt.uiOnly
}

/** Forwards every later item of a subscription to the host's listeners until the server stops. */
const forward = <A>(
  subscribe: Effect.Effect<Stream.Stream<A>, never, Scope.Scope>,
  scope: Scope.Scope,
  emit: (item: A) => void
) =>
  Effect.flatMap(
    Scope.extend(subscribe, scope),
    (stream) => Effect.forkIn(Stream.runForEach(stream, (item) => Effect.sync(() => emit(item))), scope)
  )

/**
 * dbdesk embedded in a host that does not use Effect (D-77): the same server `dbdesk serve` runs, with the
 * host's connections and approval dialog. Resolves once the port is bound and the handshake file written; rejects
 * with dbdesk's own error (another server on this support directory, an invalid settings.json, bad input).
 */
export const startMcpServer = async (options: StartMcpServerOptions = {}): Promise<DbdeskServer> => {
  if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)) {
    throw new TypeError(
      `startMcpServer: port must be a whole number from 0 to 65535 (0 = a free port), not ${options.port}`
    )
  }
  const connections = options.connections === undefined ? undefined : await run(decodeConnections(options.connections))
  const layer = makeServerLayer({
    ...(options.home === undefined ? {} : { home: options.home }),
    settings: {
      ...options.settings,
      mcp: { ...options.settings?.mcp, ...(options.port === undefined ? {} : { port: options.port }) }
    },
    ui: options.ui === true ? {} : false,
    ...(connections === undefined ? {} : { connections: Connections.layerMemory(connections) }),
    approvalPrompt: promptFor(options),
    ...(options.serverInfo === undefined ? {} : { serverInfo: options.serverInfo })
  })
  const scope = Effect.runSync(Scope.make())
  const built = await Effect.runPromiseExit(Layer.buildWithScope(layer, scope))
  if (Exit.isFailure(built)) {
    await Effect.runPromise(Scope.close(scope, built))
    throw Cause.squash(built.cause)
  }
  const context = built.value
  const { emit, events } = makeServerEvents((event: ServerEventName, error: unknown) =>
    Effect.runFork(Effect.logWarning(`dbdesk: a listener of ${event} threw; the other listeners still ran`, error))
  )
  await run(Effect.all([
    forward(
      Context.get(context, Approvals).subscribe,
      scope,
      (event) =>
        event.kind === "pending"
          ? emit("approval.asked", toApprovalRequest(event.approval))
          : emit("approval.answered", { id: event.id, decision: event.decision })
    ),
    forward(
      Context.get(context, ConnectedClients).subscribeArrivals,
      scope,
      (client) => emit("client.connected", client)
    ),
    forward(Context.get(context, ActivityLog).subscribeAppended, scope, (entry) => emit("activity.appended", entry)),
    forward(Context.get(context, Tokens).subscribeUses, scope, (token) => emit("token.used", token))
  ]))

  let stopping: Promise<void> | undefined
  const tokens = Context.get(context, Tokens)
  const whileRunning = <A, E>(effect: Effect.Effect<A, E>) =>
    stopping === undefined ? run(effect) : Promise.reject(new Error("this dbdesk server is stopped"))
  const address = Context.get(context, McpServerAddress)
  const ui = Context.getOption(context, UiAddress)
  return {
    url: address.url,
    port: address.port,
    home: Context.get(context, SupportPaths).directory,
    uiUrl: ui._tag === "Some" ? ui.value.launchUrl : undefined,
    events,
    tokens: {
      create: (input) =>
        whileRunning(Effect.gen(function*() {
          const name = typeof input.name === "string" ? input.name.trim() : ""
          if (name === "") return yield* invalid("a token needs a name")
          if (!["readOnly", "readWrite", "fullAccess"].includes(input.access)) {
            return yield* invalid(
              `access must be readOnly, readWrite or fullAccess, not ${JSON.stringify(input.access)}`
            )
          }
          const expiry = input.expires instanceof Date
            ? Either.right(input.expires)
            : parseExpiry(input.expires, yield* Clock.currentTimeMillis)
          if (Either.isLeft(expiry)) return yield* invalid(`expires: ${expiry.left}`)
          const wanted = input.connections ?? "all"
          if (wanted !== "all") {
            const known = new Set<string>(
              (yield* Context.get(context, Connections).list).map((connection) => connection.id)
            )
            const unknown = wanted.filter((id) => !known.has(id))
            if (unknown.length > 0) {
              return yield* invalid(
                `no connection has the id ${
                  unknown.map((id) => JSON.stringify(id)).join(", ")
                }; a token for it would grant nothing`
              )
            }
          }
          const created = yield* tokens.create({
            name,
            access: input.access,
            connections: wanted,
            expiresAt: expiry.right
          })
          return { id: created.token.id, value: created.value, token: created.token }
        })),
      list: () => whileRunning(Effect.map(tokens.list(), (all) => all.filter((token) => !token.bridge))),
      revoke: (id) => whileRunning(tokens.revoke(id))
    },
    stop: () => (stopping ??= Effect.runPromise(Scope.close(scope, Exit.void)))
  }
}
