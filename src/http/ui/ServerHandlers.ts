import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../../domain/ProtocolVersions.ts"
import { UiApi } from "../../domain/UiApi.ts"
import { ServerIdentity } from "../../services/ServerIdentity.ts"
import { SettingsStore } from "../../services/Settings.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { McpServerAddress } from "../NodeMcpServer.ts"
import { forUi } from "./UiErrors.ts"

/** Server status and settings for the MCP panel (D-60, D-11). */
export const ServerHandlers = HttpApiBuilder.group(UiApi, "server", (handlers) =>
  Effect.gen(function*() {
    const address = yield* McpServerAddress
    const paths = yield* SupportPaths
    const identity = yield* ServerIdentity
    const settings = yield* SettingsStore
    return handlers
      .handle("status", () =>
        Effect.map(settings.current, (current) => ({
          name: identity.serverInfo.title,
          version: identity.serverInfo.version,
          endpoint: address.url,
          handshakePath: paths.handshake,
          uiUrl: identity.serverInfo.websiteUrl,
          modernVersions: MODERN_VERSIONS,
          legacyVersions: LEGACY_VERSIONS,
          mcpEnabled: current.mcp.enabled,
          requireAuth: current.mcp.requireAuth
        })))
      .handle("settings", () => settings.current)
      .handle("updateSettings", ({ payload }) => forUi(Effect.zipRight(settings.update(payload), settings.current)))
  }))
