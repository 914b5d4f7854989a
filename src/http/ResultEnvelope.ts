import type { JsonObject } from "../domain/Json.ts"
import { isJsonObject } from "../domain/Json.ts"
import { META_SERVER_INFO } from "../domain/ProtocolVersions.ts"
import type { Era } from "../domain/RequestEnvelope.ts"
import type { CacheHint } from "./McpMethod.ts"

/**
 * Wire contract §2.4/§4.4: modern results carry `resultType` and `_meta` serverInfo; cache hints
 * appear only on the six cacheable methods and are stripped everywhere else; legacy results
 * carry none of these (C2.4-e).
 */
export const finalizeResult = (
  result: JsonObject,
  era: Era,
  serverInfo: { readonly name: string; readonly version: string },
  cacheHint: CacheHint | undefined
): JsonObject => {
  const { ttlMs: _ttl, cacheScope: _scope, resultType, _meta, ...rest } = result
  const meta: Record<string, unknown> = isJsonObject(_meta) ? { ..._meta } : {}
  if (era === "legacy") {
    delete meta[META_SERVER_INFO]
    return Object.keys(meta).length > 0 ? ({ ...rest, _meta: meta } as JsonObject) : rest
  }
  const type = resultType === "input_required" ? "input_required" : "complete"
  const hinted = type === "complete" && cacheHint !== undefined
    ? { ttlMs: Math.max(0, Math.round(cacheHint.ttlMs)), cacheScope: cacheHint.cacheScope }
    : {}
  const existingInfo = meta[META_SERVER_INFO]
  meta[META_SERVER_INFO] = isJsonObject(existingInfo) ? existingInfo : { name: serverInfo.name, version: serverInfo.version }
  return { ...rest, resultType: type, ...hinted, _meta: meta } as JsonObject
}
