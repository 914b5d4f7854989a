import { isJsonObject, type Json, type JsonObject } from "../domain/Json.ts"
import {
  isLegacyVersion,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_VERSION
} from "../domain/ProtocolVersions.ts"
import type { DiscoveredServer } from "./UpstreamHandshake.ts"

/** The revision answered to a host whose `initialize` names neither legacy revision. */
export const DEFAULT_LEGACY_VERSION = "2025-11-25"

/** A message that carries the modern envelope is from a modern stdio host and goes upstream as is. */
export const carriesModernEnvelope = (message: JsonObject): boolean => {
  const params = message["params"]
  return isJsonObject(params) && isJsonObject(params["_meta"]) &&
    typeof params["_meta"][META_PROTOCOL_VERSION] === "string"
}

/**
 * The bridge's own answer to a legacy host's `initialize` (D-53, reference §7):
 * the discovered capabilities without `extensions` and with `resources.subscribe: false`
 * (wire contract §9 point 4), the server's identity and instructions.
 */
export const initializeResult = (server: DiscoveredServer, requested: unknown): JsonObject => {
  const { extensions: _extensions, ...capabilities } = server.capabilities
  const resources = isJsonObject(capabilities["resources"])
    ? { ...capabilities["resources"], subscribe: false }
    : undefined
  return {
    protocolVersion: typeof requested === "string" && isLegacyVersion(requested) ? requested : DEFAULT_LEGACY_VERSION,
    capabilities: resources === undefined ? capabilities : { ...capabilities, resources },
    serverInfo: server.serverInfo ?? { name: "dbdesk", version: "unknown" },
    ...(server.instructions === undefined ? {} : { instructions: server.instructions })
  }
}

/**
 * A legacy host's message as a `2026-07-28` one (D-53): `_meta` stamped with the
 * version, `clientCapabilities: {}` and the host's `clientInfo`; its own keys (progressToken,
 * traceparent, tracestate, baggage) are kept.
 */
export const stampModern = (message: JsonObject, clientInfo: JsonObject | undefined): JsonObject => {
  const params = isJsonObject(message["params"]) ? message["params"] : {}
  const meta = isJsonObject(params["_meta"]) ? params["_meta"] : {}
  return {
    ...message,
    params: {
      ...params,
      _meta: {
        ...meta,
        [META_PROTOCOL_VERSION]: MODERN_VERSION,
        [META_CLIENT_CAPABILITIES]: {},
        ...(clientInfo === undefined ? {} : { [META_CLIENT_INFO]: clientInfo })
      }
    }
  }
}

/** C2.4-e: a legacy host gets results without `resultType`, cache hints or `serverInfo`. */
export const stripModernFields = (result: Json): Json => {
  if (!isJsonObject(result)) return result
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result
  if (!isJsonObject(_meta)) return _meta === undefined ? rest : { ...rest, _meta }
  const { [META_SERVER_INFO]: _info, ...meta } = _meta
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta }
}
