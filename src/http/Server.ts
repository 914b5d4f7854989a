import { Console, Effect, Layer } from "effect"
import { ConnectionAccess } from "../services/ConnectionAccess.ts"
import { Connections } from "../services/Connections.ts"
import { Drivers } from "../services/Drivers.ts"
import { ToolRegistry } from "../services/tools/ToolRegistry.ts"
import { ApprovalPrompt } from "../services/ApprovalPrompt.ts"
import { Approvals } from "../services/Approvals.ts"
import { RequestStates } from "../services/RequestStates.ts"
import { StatementApproval } from "../services/StatementApproval.ts"
import type { ServerInfo } from "../domain/ServerInfo.ts"
import type { SettingsPatch } from "../domain/Settings.ts"
import { refuseSecondStart, removeOwnHandshake, writeHandshake } from "../services/Handshake.ts"
import { LegacySessions } from "../services/LegacySessions.ts"
import { RequestRegistry } from "../services/RequestRegistry.ts"
import { ServerIdentity } from "../services/ServerIdentity.ts"
import { SettingsOverrides, SettingsStore } from "../services/Settings.ts"
import { SupportPaths } from "../services/SupportPaths.ts"
import { AuthLockouts, PairingLockouts } from "../services/AuthLockouts.ts"
import { RateLimits } from "../services/RateLimits.ts"
import { Tokens } from "../services/Tokens.ts"
import { RevocationCancelsRequests, TokenAuthenticatorLive } from "./TokenAuthenticator.ts"
import { McpDispatcher } from "./McpDispatcher.ts"
import { McpMethods } from "./McpMethods.ts"
import { McpServerAddress, NodeMcpServerLive } from "./NodeMcpServer.ts"
import { SupportedVersions } from "./SupportedVersions.ts"

export interface ServerOptions {
  /** Support directory; defaults to DBDESK_HOME or the platform location (product-decisions §1). */
  readonly home?: string
  /** Settings applied on top of settings.json without being written back. */
  readonly settings?: SettingsPatch
  /** Embedded hosts name themselves (product-decisions §1 "Server identity"). */
  readonly serverInfo?: Partial<ServerInfo>
  /** The host's connections (embedded mode); default: connections.json with the sample database. */
  readonly connections?: Layer.Layer<Connections, never, SupportPaths>
  /** The app's own approval dialog (product-decisions §3.2); default: only the UI answers. */
  readonly approvalPrompt?: Layer.Layer<ApprovalPrompt>
}

/** Publishes the handshake file once the port is bound, and removes it at a clean stop. */
const HandshakeLive = Layer.scopedDiscard(Effect.gen(function*() {
  const paths = yield* SupportPaths
  const address = yield* McpServerAddress
  const identity = yield* ServerIdentity
  yield* writeHandshake(paths.handshake, {
    version: 1,
    port: address.port,
    pid: process.pid,
    instanceId: identity.instanceId,
    protocolVersion: "2026-07-28",
    startedAt: identity.startedAt.toISOString(),
    uiUrl: identity.serverInfo.websiteUrl
  })
  yield* Effect.addFinalizer(() => removeOwnHandshake(paths.handshake, identity.instanceId).pipe(Effect.ignore))
}))

/** Refuses to start when the support directory's handshake names a live dbdesk (product-decisions §1). */
const SingleInstanceGuard = Layer.effectDiscard(Effect.flatMap(SupportPaths, (paths) => refuseSecondStart(paths.handshake)))

/** The one file that wires every layer of the standalone and embedded server. */
export const makeServerLayer = (options: ServerOptions = {}) => {
  const paths = SupportPaths.layer(options.home)
  const settings = SettingsStore.Default.pipe(
    Layer.provide(Layer.succeed(SettingsOverrides, options.settings ?? {}))
  )
  const base = Layer.mergeAll(settings, RequestRegistry.Default).pipe(Layer.provideMerge(paths))
  const identity = Layer.unwrapEffect(Effect.map(Effect.flatMap(SettingsStore, (store) => store.current), (current) =>
    ServerIdentity.layer(`http://127.0.0.1:${current.ui.port}`, options.serverInfo)
  ))
  const auth = Layer.mergeAll(TokenAuthenticatorLive, RevocationCancelsRequests).pipe(
    Layer.provideMerge(Layer.mergeAll(Tokens.Default, AuthLockouts.Default, PairingLockouts.Default, RateLimits.Default)),
    Layer.provideMerge(base)
  )
  const core = Layer.mergeAll(identity, SupportedVersions.allEras, LegacySessions.Default, auth).pipe(Layer.provideMerge(base))
  const connections = Layer.mergeAll(ConnectionAccess.Default, Drivers.Default).pipe(Layer.provideMerge(options.connections ?? Connections.layerFile))
  const approvals = StatementApproval.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(Approvals.Default, RequestStates.Default)),
    Layer.provide(options.approvalPrompt ?? ApprovalPrompt.uiOnly)
  )
  const tools = ToolRegistry.layer.pipe(Layer.provideMerge(Layer.mergeAll(connections, approvals)), Layer.provideMerge(core))
  const methods = McpMethods.layer.pipe(Layer.provideMerge(tools))
  const dispatcher = McpDispatcher.Default.pipe(Layer.provideMerge(methods))
  const server = NodeMcpServerLive.pipe(Layer.provideMerge(dispatcher))
  return HandshakeLive.pipe(Layer.provideMerge(server), Layer.provide(SingleInstanceGuard), Layer.provide(paths))
}

export const announce = Effect.gen(function*() {
  const address = yield* McpServerAddress
  const paths = yield* SupportPaths
  yield* Console.log(`dbdesk MCP server listening on ${address.url}`)
  yield* Console.log(`handshake file: ${paths.handshake}`)
})
