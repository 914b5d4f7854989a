import type { JsonObject } from "../domain/Json.ts"
import { isJsonObject } from "../domain/Json.ts"
import { META_SERVER_INFO } from "../domain/ProtocolVersions.ts"
import type { Era } from "../domain/RequestEnvelope.ts"
import type { CacheHint } from "./McpMethod.ts"

/** Wire contract §4.4: the fixed hints of five methods. */
export const FIXED_CACHE_HINTS: Readonly<Record<string, CacheHint>> = {
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
  "prompts/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "tools/list": { ttlMs: 300_000, cacheScope: "private" },
  "resources/list": { ttlMs: 30_000, cacheScope: "private" }
}

/** Wire contract §4.4: `resources/read` is cached between 5000 and 300000 ms depending on the URI, always private. */
export const RESOURCE_READ_TTL = { min: 5_000, max: 300_000 } as const

export interface FinalizeRequest {
  readonly era: Era
  readonly method: string
  readonly params: JsonObject
}

/** Wire contract §3.1 (C3.1-j): a call carrying `inputResponses` or `requestState` is never cached. */
const isApprovalRetry = (params: JsonObject): boolean => "inputResponses" in params || "requestState" in params

/**
 * The hint a result of `method` carries, or undefined for every method outside the §4.4 table
 * (C4.4-a/b). `proposed` is the method's own hint, consulted only for `resources/read`.
 */
export const cacheHintFor = (
  method: string,
  params: JsonObject,
  proposed: CacheHint | undefined
): CacheHint | undefined => {
  if (method === "resources/read") {
    if (isApprovalRetry(params)) return { ttlMs: 0, cacheScope: "private" }
    const ttl = Math.round(proposed?.ttlMs ?? RESOURCE_READ_TTL.min)
    return { ttlMs: Math.min(RESOURCE_READ_TTL.max, Math.max(RESOURCE_READ_TTL.min, ttl)), cacheScope: "private" }
  }
  return FIXED_CACHE_HINTS[method]
}

/**
 * Wire contract §2.4/§4.4: modern results carry `resultType` and `_meta` serverInfo; cache hints
 * appear only on the six cacheable methods and are stripped everywhere else; legacy results
 * carry none of these (C2.4-e). `nextCursor` is a string or absent, never null (interop §7).
 */
export const finalizeResult = (
  result: JsonObject,
  request: FinalizeRequest,
  serverInfo: { readonly name: string; readonly version: string },
  proposedHint: CacheHint | undefined
): JsonObject => {
  const { ttlMs: _ttl, cacheScope: _scope, resultType, _meta, nextCursor, ...rest } = result
  const cursor = typeof nextCursor === "string" ? { nextCursor } : {}
  const meta: Record<string, unknown> = isJsonObject(_meta) ? { ..._meta } : {}
  if (request.era === "legacy") {
    delete meta[META_SERVER_INFO]
    return { ...rest, ...cursor, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) } as JsonObject
  }
  const type = resultType === "input_required" ? "input_required" : "complete"
  const hint = type === "complete" ? cacheHintFor(request.method, request.params, proposedHint) : undefined
  const existingInfo = meta[META_SERVER_INFO]
  meta[META_SERVER_INFO] = isJsonObject(existingInfo)
    ? existingInfo
    : { name: serverInfo.name, version: serverInfo.version }
  return {
    ...rest,
    ...cursor,
    resultType: type,
    ...(hint === undefined ? {} : { ttlMs: hint.ttlMs, cacheScope: hint.cacheScope }),
    _meta: meta
  } as JsonObject
}
