import { Effect, Redacted, Schema } from "effect"
import type {
  CreatedSearchKey,
  DashboardValue,
  NewSearchKey,
  SearchDashboard,
  SearchKeyRecord
} from "../domain/SearchAdmin.ts"
import { engineMessage, enginePath } from "./SearchClient.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"

const EngineKey = Schema.Struct({
  id: Schema.Int,
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  actions: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  collections: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  value_prefix: Schema.optionalWith(Schema.String, { default: () => "" }),
  value: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.Number)
})
type EngineKey = typeof EngineKey.Type

/** Users & Roles shape of a key (doc 2 §2.3, typesense-reference §7.9); `*` or no list reads as server-wide. */
export const keyRecord = (key: EngineKey): SearchKeyRecord => ({
  id: key.id,
  name: key.description === "" ? `Key #${key.id}` : `${key.description} (#${key.id})`,
  description: key.description,
  actions: key.actions,
  collections: key.collections,
  serverWide: key.collections.length === 0 || key.collections.includes("*"),
  valuePrefix: key.value_prefix !== "" ? key.value_prefix : (key.value ?? "").slice(0, 4),
  ...(key.expires_at === undefined ? {} : { expiresAt: key.expires_at })
})

/** `GET /keys` (D-59, Users & Roles). */
export const listKeys = Effect.fn("SearchAdmin.listKeys")(function*(client: SearchClient, options?: CallOptions) {
  const json = yield* client.call("GET", "/keys", undefined, options)
  const { keys } = yield* client.decode(Schema.Struct({ keys: Schema.Array(EngineKey) }), json)
  return keys.map(keyRecord)
})

/** `POST /keys`; the value is returned here once and never again (S2.3-b). Keys cannot be edited. */
export const createKey = Effect.fn("SearchAdmin.createKey")(function*(
  client: SearchClient,
  key: NewSearchKey,
  options?: CallOptions
) {
  const body = {
    description: key.description,
    actions: key.actions.length === 0 ? ["documents:search"] : key.actions,
    collections: key.collections.length === 0 ? ["*"] : key.collections
  }
  const json = yield* client.call("POST", "/keys", { _tag: "Json", value: body }, options)
  const created = yield* client.decode(EngineKey, json)
  const result: CreatedSearchKey = { key: keyRecord(created), value: Redacted.make(created.value ?? "") }
  return result
})

/** `DELETE /keys/:id`. */
export const deleteKey = Effect.fn("SearchAdmin.deleteKey")(function*(
  client: SearchClient,
  id: number,
  options?: CallOptions
) {
  yield* client.call("DELETE", enginePath("keys", String(id)), undefined, options)
})

const notForThisEngine: DashboardValue = { _tag: "Unavailable", reason: "not available for this engine" }

const numberOf = (source: Readonly<Record<string, unknown>>, key: string): number | undefined => {
  const raw = source[key]
  const value = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN
  return Number.isFinite(value) ? value : undefined
}

/**
 * The dashboard panels (doc 2 §2.4, typesense-reference §6, §7.10) from `/metrics.json` (every value a string) and
 * `/stats.json`. A value the engine does not send, such as the cache hit ratio before v29, is reported unavailable;
 * sessions and the slow query log do not exist in this engine (S2.4-b).
 */
export const dashboardFrom = (
  metrics: Readonly<Record<string, unknown>> | string,
  stats: Readonly<Record<string, unknown>> | string
): SearchDashboard => {
  const panel = (
    source: Readonly<Record<string, unknown>> | string,
    key: string,
    unit: Extract<DashboardValue, { _tag: "Available" }>["unit"],
    totalKey?: string
  ): DashboardValue => {
    if (typeof source === "string") return { _tag: "Unavailable", reason: source }
    const value = numberOf(source, key)
    if (value === undefined) return { _tag: "Unavailable", reason: `this engine version does not report ${key}` }
    const total = totalKey === undefined ? undefined : numberOf(source, totalKey)
    return total === undefined ? { _tag: "Available", value, unit } : { _tag: "Available", value, unit, total }
  }
  return {
    processMemory: panel(metrics, "typesense_memory_resident_bytes", "bytes"),
    systemMemory: panel(metrics, "system_memory_used_bytes", "bytes", "system_memory_total_bytes"),
    memoryFragmentation: panel(metrics, "typesense_memory_fragmentation_ratio", "ratio"),
    disk: panel(metrics, "system_disk_used_bytes", "bytes", "system_disk_total_bytes"),
    requestsPerSecond: panel(stats, "total_requests_per_second", "per_second"),
    searchLatency: panel(stats, "search_latency_ms", "ms"),
    writeLatency: panel(stats, "write_latency_ms", "ms"),
    pendingWriteBatches: panel(stats, "pending_write_batches", "count"),
    cacheHitRatio: panel(stats, "cache_hit_ratio", "ratio"),
    sessions: notForThisEngine,
    slowQueries: notForThisEngine
  }
}

const JsonObject = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** Reads `GET /metrics.json` and `GET /stats.json` (S4-a); a refused source makes its panels unavailable with the reason. */
export const readDashboard = Effect.fn("SearchAdmin.readDashboard")(
  function*(client: SearchClient, options?: CallOptions) {
    const source = Effect.fn("SearchAdmin.dashboardSource")(function*(path: string) {
      const response = yield* client.send("GET", path, undefined, options)
      if (response.status < 200 || response.status > 299) return `${path}: ${engineMessage(response)}`
      return yield* client.decode(JsonObject, response.body)
    })
    const [metrics, stats] = yield* Effect.all([source("/metrics.json"), source("/stats.json")])
    return dashboardFrom(metrics, stats)
  }
)
