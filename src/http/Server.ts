import { Console, Effect, Layer, Stream } from "effect"
import { ActivityLog } from "../services/ActivityLog.ts"
import { ActivitySink } from "../services/ActivitySink.ts"
import {
  ApprovalActivity,
  recordServerLifecycle,
  SettingsActivity,
  TokenActivity
} from "../services/activity/ActivityFeeds.ts"
import { RequestActivity } from "../services/activity/RequestActivity.ts"
import { type BridgeCredential, BridgeTiming, BridgeToken } from "../services/BridgeToken.ts"
import { ConnectedClients } from "../services/ConnectedClients.ts"
import { ConnectionAccess } from "../services/ConnectionAccess.ts"
import { Connections } from "../services/Connections.ts"
import { DriverRegistry } from "../services/DriverRegistry.ts"
import { Drivers } from "../services/Drivers.ts"
import { Continuations } from "../services/Continuations.ts"
import { QueryHistory } from "../services/QueryHistory.ts"
import { Completions } from "../services/resources/Completions.ts"
import {
  HostCatalog,
  type HostPrompt,
  type HostResource,
  type HostResourceTemplate
} from "../services/resources/HostCatalog.ts"
import { LiveSchema } from "../services/resources/LiveSchema.ts"
import { PROMPTS } from "../services/resources/PromptCatalog.ts"
import { PromptRenderer } from "../services/resources/PromptRenderer.ts"
import { ResourceReader } from "../services/resources/ResourceReader.ts"
import { RevocationClosesSubscriptions, Subscriptions, SubscriptionsShutdown } from "../services/Subscriptions.ts"
import { SearchToolRoutes } from "../services/tools/SearchToolRoutes.ts"
import { CuratedToolSet } from "../services/tools/CuratedToolSet.ts"
import { ToolRegistry } from "../services/tools/ToolRegistry.ts"
import type { AnyTool } from "../services/tools/Tool.ts"
import { ApprovalPreflight } from "../services/ApprovalPreflight.ts"
import { ApprovalPrompt } from "../services/ApprovalPrompt.ts"
import { Approvals } from "../services/Approvals.ts"
import { ConnectionGrants } from "../services/ConnectionGrants.ts"
import { RequestStates } from "../services/RequestStates.ts"
import { StatementApproval } from "../services/StatementApproval.ts"
import { StatementRecorder } from "../services/StatementRecorder.ts"
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
import { TokenStore } from "../services/TokenStore.ts"
import { RevocationCancelsRequests, TokenAuthenticatorLive } from "./TokenAuthenticator.ts"
import { BridgeChannelLive } from "./BridgeChannel.ts"
import { McpDispatcher } from "./McpDispatcher.ts"
import { McpMethods } from "./McpMethods.ts"
import { McpServerAddress, NodeMcpServerLive } from "./NodeMcpServer.ts"
import { SupportedVersions } from "./SupportedVersions.ts"
import { UiAppOnDemand } from "./ui/UiAppOnDemand.ts"
import { UiAddress, type UiListenerOptions } from "./ui/UiAddress.ts"
import { UiListener } from "./ui/UiListener.ts"

export interface ServerOptions {
  /** Support directory; defaults to DBDESK_HOME or the platform location (D-6). */
  readonly home?: string
  /** Where the files are, replacing `home` (a host that places them itself). */
  readonly supportPaths?: Layer.Layer<SupportPaths>
  /** Where token records are kept; default: tokens.json (TokenStore.file). */
  readonly tokenStore?: Layer.Layer<TokenStore, never, SupportPaths>
  /** Where activity rows are kept; default: activity.db (ActivitySink.sqlite). */
  readonly activitySink?: Layer.Layer<ActivitySink, never, SupportPaths>
  /** Settings applied on top of settings.json without being written back. */
  readonly settings?: SettingsPatch
  /** Embedded hosts name themselves (D-9). */
  readonly serverInfo?: Partial<ServerInfo>
  /** The host's connections (embedded mode); default: connections.json with the sample database. */
  readonly connections?: Layer.Layer<Connections, never, SupportPaths>
  /** The app's own approval dialog (D-26); default: only the UI answers. */
  readonly approvalPrompt?: Layer.Layer<ApprovalPrompt>
  /** Tools an embedding host offers next to the built-in ones (listed and paged like them). */
  readonly extraTools?: ReadonlyArray<AnyTool>
  /** Prompts, resources and resource templates a host offers next to the built-in ones (no name or `dbdesk://` URI of dbdesk's own). */
  readonly extraPrompts?: ReadonlyArray<HostPrompt>
  readonly extraResources?: ReadonlyArray<HostResource>
  readonly extraResourceTemplates?: ReadonlyArray<HostResourceTemplate>
  /** Bridge token rotation (D-37); default hourly with a 10-minute overlap. */
  readonly bridgeTiming?: Parameters<typeof BridgeTiming.layer>[0]
  /** The UI server on its own loopback port (D-3, D-60); `false` leaves it out (embedded hosts). */
  readonly ui?: UiListenerOptions | false
}

/**
 * Publishes the handshake file once the port is bound, rewrites it (atomically, 0600) whenever
 * the bridge token rotates, and removes it at a clean stop (D-7, D-37).
 */
const HandshakeLive = Layer.scopedDiscard(Effect.gen(function*() {
  const paths = yield* SupportPaths
  const address = yield* McpServerAddress
  const identity = yield* ServerIdentity
  const bridge = yield* BridgeToken
  const write = (credential: BridgeCredential) =>
    writeHandshake(paths.handshake, {
      version: 1,
      port: address.port,
      pid: process.pid,
      instanceId: identity.instanceId,
      protocolVersion: "2026-07-28",
      startedAt: identity.startedAt.toISOString(),
      uiUrl: identity.serverInfo.websiteUrl,
      bridgeToken: credential.value,
      bridgeTokenExpiresAt: credential.expiresAt
    })
  let written = yield* bridge.current
  // Written and its removal registered in one uninterruptible step: a stop right after the write still removes it.
  yield* Effect.acquireRelease(
    write(written),
    () => removeOwnHandshake(paths.handshake, identity.instanceId).pipe(Effect.ignore)
  )
  // `changes` starts with the credential just written: skip it. A rewrite is uninterruptible, so a stop that
  // interrupts it waits for its rename, and the removal above (run after) cannot be undone by a late rename.
  yield* Effect.forkScoped(Stream.runForEach(bridge.changes, (credential) => {
    if (credential === written) return Effect.void
    written = credential
    return Effect.uninterruptible(Effect.ignore(write(credential)))
  }))
  yield* recordServerLifecycle(address.port)
}))

/** Refuses to start when the support directory's handshake names a live dbdesk (D-2). */
const SingleInstanceGuard = Layer.effectDiscard(
  Effect.flatMap(SupportPaths, (paths) => refuseSecondStart(paths.handshake))
)

/**
 * Built after the HTTP server so it is released first: at SIGTERM/SIGINT running requests get up to
 * 10 s to finish, the rest are cancelled and still answered, before the sockets close.
 */
const RequestsShutdown = Layer.scopedDiscard(
  Effect.flatMap(RequestRegistry, (registry) => Effect.addFinalizer(() => Effect.asVoid(registry.drain("10 seconds"))))
)

/** The one file that wires every layer of the standalone and embedded server. */
export const makeServerLayer = (options: ServerOptions = {}) => {
  const paths = options.supportPaths ?? SupportPaths.layer(options.home)
  const settings = SettingsStore.Default.pipe(
    Layer.provide(Layer.succeed(SettingsOverrides, options.settings ?? {}))
  )
  const activityLog = ActivityLog.DefaultWithoutDependencies.pipe(
    Layer.provide(options.activitySink ?? ActivitySink.sqlite)
  )
  const base = Layer.mergeAll(settings, RequestRegistry.Default, activityLog).pipe(Layer.provideMerge(paths))
  // The UI port is bound first, so websiteUrl (and the handshake's uiUrl) name the origin really bound.
  const uiAddress = options.ui === false ? undefined : UiListener(options.ui ?? {}).pipe(Layer.provide(base))
  const identity = uiAddress === undefined
    ? Layer.unwrapEffect(
      Effect.map(
        Effect.flatMap(SettingsStore, (store) => store.current),
        (current) => ServerIdentity.layer(`http://127.0.0.1:${current.ui.port}`, options.serverInfo)
      )
    )
    : Layer.effect(
      ServerIdentity,
      Effect.map(UiAddress, (address) => ServerIdentity.make(address.origin, options.serverInfo))
    ).pipe(Layer.provide(uiAddress))
  const tokens = Tokens.DefaultWithoutDependencies.pipe(Layer.provide(options.tokenStore ?? TokenStore.file))
  const auth = Layer.mergeAll(TokenAuthenticatorLive, RevocationCancelsRequests, TokenActivity, SettingsActivity).pipe(
    Layer.provideMerge(Layer.mergeAll(tokens, AuthLockouts.Default, PairingLockouts.Default, RateLimits.Default)),
    Layer.provideMerge(base)
  )
  const activity = RequestActivity.Default.pipe(Layer.provideMerge(ConnectedClients.Default), Layer.provideMerge(auth))
  const core = Layer.mergeAll(identity, SupportedVersions.allEras, LegacySessions.Default, activity).pipe(
    Layer.provideMerge(base)
  )
  const approvalDialogs = Approvals.Default.pipe(Layer.provide(options.approvalPrompt ?? ApprovalPrompt.uiOnly))
  const grants = ConnectionGrants.Default.pipe(Layer.provideMerge(approvalDialogs), Layer.provide(core))
  const connections = Layer.mergeAll(
    ConnectionAccess.Default,
    Drivers.Default,
    DriverRegistry.Default,
    Continuations.Default
  ).pipe(
    Layer.provideMerge(grants),
    Layer.provideMerge(options.connections ?? Connections.layerFile)
  )
  const approvals = Layer.merge(StatementApproval.Default, ApprovalPreflight.Default).pipe(
    Layer.provideMerge(Layer.mergeAll(approvalDialogs, RequestStates.Default)),
    Layer.provide(Layer.merge(base, connections))
  )
  const searchRoutes = SearchToolRoutes.Default.pipe(Layer.provideMerge(Layer.merge(approvals, connections)))
  // Query history and subscriptions sit below the tools: execute_query records statements and announces DDL.
  const feeds = StatementRecorder.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(QueryHistory.Default, Subscriptions.Default)),
    Layer.provideMerge(connections),
    Layer.provideMerge(core)
  )
  const builtInTools = ToolRegistry.layerWith(options.extraTools ?? []).pipe(
    Layer.provideMerge(Layer.mergeAll(searchRoutes, ApprovalActivity.pipe(Layer.provide(approvalDialogs)), feeds)),
    Layer.provideMerge(core)
  )
  // The curated tools of tools.json sit beside the built-in ones (a name of one of those is refused).
  const tools = CuratedToolSet.Default.pipe(Layer.provideMerge(builtInTools))
  const hostCatalog = HostCatalog.layer(
    {
      prompts: options.extraPrompts ?? [],
      resources: options.extraResources ?? [],
      templates: options.extraResourceTemplates ?? []
    },
    { prompts: PROMPTS.map((prompt) => prompt.name), uriPrefix: "dbdesk://" }
  )
  const resources = Layer.mergeAll(ResourceReader.Default, PromptRenderer.Default, Completions.Default).pipe(
    Layer.provideMerge(Layer.merge(LiveSchema.Default, hostCatalog)),
    Layer.provideMerge(tools)
  )
  const methods = McpMethods.layer.pipe(
    Layer.provideMerge(Layer.merge(resources, RevocationClosesSubscriptions.pipe(Layer.provide(resources))))
  )
  const dispatcher = McpDispatcher.Default.pipe(Layer.provideMerge(methods))
  // Interop §5.3: at a clean stop every open subscription gets its graceful result before the sockets close.
  const server = Layer.merge(SubscriptionsShutdown, RequestsShutdown).pipe(
    Layer.provideMerge(Layer.merge(NodeMcpServerLive, BridgeChannelLive).pipe(Layer.provideMerge(dispatcher)))
  )
  const bridge = BridgeToken.Default.pipe(Layer.provide(BridgeTiming.layer(options.bridgeTiming)), Layer.provide(core))
  const published = uiAddress === undefined
    ? HandshakeLive
    : Layer.merge(HandshakeLive, UiAppOnDemand).pipe(Layer.provideMerge(uiAddress))
  return published.pipe(
    Layer.provideMerge(Layer.merge(server, bridge)),
    Layer.provide(SingleInstanceGuard),
    Layer.provide(paths)
  )
}

export const announce = Effect.gen(function*() {
  const address = yield* McpServerAddress
  const paths = yield* SupportPaths
  yield* Console.log(`dbdesk MCP server listening on ${address.url}`)
  yield* Console.log(`handshake file: ${paths.handshake}`)
  const ui = yield* Effect.serviceOption(UiAddress)
  if (ui._tag === "Some") yield* Console.log(`dbdesk UI: ${ui.value.launchUrl}`)
})
