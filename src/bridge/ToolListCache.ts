import { isJsonObject, type JsonObject } from "../domain/Json.ts"
import type { RequestId } from "../domain/JsonRpc.ts"
import { stripModernFields } from "./LegacyShim.ts"

/** Longest a cached list is kept whatever the server's hint says (the 2.4.0 client caps at 24 h; a rotation is hourly). */
export const MAX_TOOL_LIST_TTL_MS = 300_000

/** Only a first page is cached: its answer depends on nothing the request carries but the cursor. */
export const isCacheableToolList = (message: JsonObject): boolean => {
  if (message["method"] !== "tools/list") return false
  const params = message["params"]
  return params === undefined || (isJsonObject(params) && params["cursor"] === undefined)
}

interface Entry {
  /** The upstream (server instance and bridge token) the list was read from: another one never reuses it. */
  readonly source: unknown
  readonly expiresAt: number
  /** The result's JSON as a modern host gets it, and as a legacy host gets it (C2.4-e fields stripped). */
  readonly modern: string
  readonly legacy: string
}

/**
 * Wire contract §4.4 and interop §6: a `tools/list` result is fresh for its `ttlMs` (300 s, `private`: per token),
 * and a client may answer from it without a request, as the official 2.4.0 client does. The bridge is that client for
 * its stdio host: one entry, tied to the upstream it came from (a re-read handshake, a new instance or a rotated token
 * start afresh), dropped on any authentication failure. The built-in tools are fixed for a server's lifetime and scope
 * set; a changed curated set (D-91) reaches the host when the entry expires, as it reaches any client within the hint.
 */
export class ToolListCache {
  private entry: Entry | undefined

  constructor(private readonly now: () => number = Date.now) {}

  /** The whole response line for `hostId`, when a fresh list from `source` is held. */
  answer(source: unknown, hostId: RequestId, legacy: boolean): string | undefined {
    const entry = this.entry
    if (entry === undefined || entry.source !== source) return undefined
    if (this.now() >= entry.expiresAt) {
      this.entry = undefined
      return undefined
    }
    return `{"jsonrpc":"2.0","id":${JSON.stringify(hostId)},"result":${legacy ? entry.legacy : entry.modern}}\n`
  }

  /** Keeps a complete result that carries a positive `ttlMs`. */
  remember(source: unknown, response: unknown): void {
    const result = isJsonObject(response) ? response["result"] : undefined
    if (!isJsonObject(result) || result["resultType"] !== "complete") return
    const ttl = result["ttlMs"]
    if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl <= 0) return
    this.entry = {
      source,
      expiresAt: this.now() + Math.min(ttl, MAX_TOOL_LIST_TTL_MS),
      modern: JSON.stringify(result),
      legacy: JSON.stringify(stripModernFields(result))
    }
  }

  forget(): void {
    this.entry = undefined
  }
}
