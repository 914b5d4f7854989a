/** Wire contract §9: the modern revision and the two legacy revisions still answered. */
export const MODERN_VERSION = "2026-07-28" as const
export const MODERN_VERSIONS: ReadonlyArray<string> = [MODERN_VERSION]
export const LEGACY_VERSIONS: ReadonlyArray<string> = ["2025-11-25", "2025-06-18"]

export const isModernVersion = (version: string): boolean => MODERN_VERSIONS.includes(version)
export const isLegacyVersion = (version: string): boolean => LEGACY_VERSIONS.includes(version)

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
export const META_INSTANCE_ID = "dev.dbdesk/instanceId"
export const MCP_META_PREFIX = "io.modelcontextprotocol/"
