/**
 * `dbdesk`, the library (D-77; docs/embedding.md): the same server as
 * `dbdesk serve`, started by a host application that supplies its own connections, approval dialog and storage —
 * through the Promise facade `startMcpServer`, or as an Effect layer whose ports are Context tags. Anything not
 * exported here (or from `dbdesk/domain`, `dbdesk/search`) is private and may change in any release.
 */

// The Promise facade.
export type { ApprovalKind, ApprovalRequest } from "./domain/Approval.ts"
export type { ServerEventListener, ServerEventMap, ServerEventName, ServerEvents } from "./embed/ServerEvents.ts"
export {
  type ConnectionInput,
  type CreatedToken,
  type DbdeskServer,
  type NewTokenInput,
  type ServerTokens,
  startMcpServer,
  type StartMcpServerOptions
} from "./embed/StartMcpServer.ts"
export type { ApproveCallback } from "./services/ApprovalPrompt.ts"

// The Effect API: the server as a layer, and what it is built from.
export { McpServerAddress } from "./http/NodeMcpServer.ts"
export { makeServerLayer, type ServerOptions } from "./http/Server.ts"
export { UiAddress, type UiAddressShape, type UiListenerOptions } from "./http/ui/UiAddress.ts"

// Ports: a host takes the default implementations or provides its own.
export { chainBatch, type ChainAnchor, type ChainHead, hashEntry } from "./services/activity/ActivityChain.ts"
export {
  type ActivityChainState,
  ActivitySink,
  type ActivitySinkShape,
  ActivityWriteFailed,
  type UnchainedActivity
} from "./services/ActivitySink.ts"
export { ApprovalPrompt } from "./services/ApprovalPrompt.ts"
export { FileStoreError } from "./services/AtomicFile.ts"
export {
  Connections,
  type ConnectionsChange,
  ConnectionsInvalid,
  type ConnectionsShape,
  type NewConnection
} from "./services/Connections.ts"
export { type SupportFiles, supportFiles } from "./services/SupportDirectory.ts"
export { SupportPaths } from "./services/SupportPaths.ts"
export { terminalApprovalPrompt } from "./services/TerminalApprovalPrompt.ts"
export { TokenStore, TokensFileInvalid, type TokenStoreShape } from "./services/TokenStore.ts"

// Services a host reads from the built layer.
export { ActivityLog } from "./services/ActivityLog.ts"
export { type ApprovalEvent, Approvals } from "./services/Approvals.ts"
export { type BridgeCredential, BridgeTiming, BridgeToken } from "./services/BridgeToken.ts"
export { ConnectedClients } from "./services/ConnectedClients.ts"
export { ServerAlreadyRunning } from "./services/Handshake.ts"
export { SettingsInvalid, SettingsStore } from "./services/Settings.ts"
export { type NewToken, type TokenChange, TokenNotFound, Tokens, type Verification } from "./services/Tokens.ts"

// Extension points: tools, prompts and resources a host offers next to dbdesk's own.
export { type ToolErrorCode, toolFailure, ToolFailure } from "./domain/ToolErrors.ts"
export type { MethodContext } from "./services/MethodContext.ts"
export type { HostPrompt, HostResource, HostResourceTemplate } from "./services/resources/HostCatalog.ts"
export {
  type AnyTool,
  defineTool,
  described,
  type Tool,
  toolErrorResult,
  toolResult,
  type ToolRun
} from "./services/tools/Tool.ts"

// Kept from before the library's entry points (also in `dbdesk/domain`).
export * from "./domain/ProtocolErrors.ts"
export * from "./domain/ProtocolVersions.ts"
export type { Settings, SettingsPatch } from "./domain/Settings.ts"
