/**
 * dbdesk as a library (product-decisions, "Embedded library"): a host application builds the same
 * server from layers and provides its own settings, identity and (later) connections and approval prompt.
 */
export { makeServerLayer, type ServerOptions } from "./http/Server.ts"
export { McpServerAddress } from "./http/NodeMcpServer.ts"
export * from "./domain/ProtocolErrors.ts"
export * from "./domain/ProtocolVersions.ts"
export type { Settings, SettingsPatch } from "./domain/Settings.ts"
