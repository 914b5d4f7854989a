import { describe, expect, it } from "@effect/vitest"
import { dashboardFrom, keyRecord } from "../../src/search/SearchAdmin.ts"

describe("dashboard and key mapping", () => {
  it("S2.4-a S2.4-b metrics strings and stats numbers fill the panels; what is absent is reported unavailable", () => {
    const dashboard = dashboardFrom(
      {
        system_memory_used_bytes: "100",
        system_memory_total_bytes: "400",
        typesense_memory_resident_bytes: "50",
        typesense_memory_fragmentation_ratio: "0.12",
        system_disk_used_bytes: "7",
        system_disk_total_bytes: "70"
      },
      { total_requests_per_second: 2.5, search_latency_ms: 3, write_latency_ms: 0, pending_write_batches: 0 }
    )
    expect(dashboard).toEqual({
      processMemory: { _tag: "Available", value: 50, unit: "bytes" },
      systemMemory: { _tag: "Available", value: 100, unit: "bytes", total: 400 },
      memoryFragmentation: { _tag: "Available", value: 0.12, unit: "ratio" },
      disk: { _tag: "Available", value: 7, unit: "bytes", total: 70 },
      requestsPerSecond: { _tag: "Available", value: 2.5, unit: "per_second" },
      searchLatency: { _tag: "Available", value: 3, unit: "ms" },
      writeLatency: { _tag: "Available", value: 0, unit: "ms" },
      pendingWriteBatches: { _tag: "Available", value: 0, unit: "count" },
      cacheHitRatio: { _tag: "Unavailable", reason: "this engine version does not report cache_hit_ratio" },
      sessions: { _tag: "Unavailable", reason: "not available for this engine" },
      slowQueries: { _tag: "Unavailable", reason: "not available for this engine" }
    })
  })

  it("S2.4-a a source the key may not read leaves its panels unavailable with the engine's reason", () => {
    const dashboard = dashboardFrom("/metrics.json: Forbidden", { cache_hit_ratio: 0.5 })
    expect(dashboard.disk).toEqual({ _tag: "Unavailable", reason: "/metrics.json: Forbidden" })
    expect(dashboard.cacheHitRatio).toEqual({ _tag: "Available", value: 0.5, unit: "ratio" })
  })

  it("S2.3-a a key shows the collections it reaches and its actions; * reads as server-wide", () => {
    expect(keyRecord({ id: 3, description: "", actions: ["*"], collections: ["*"], value_prefix: "abcd" })).toEqual({
      id: 3,
      name: "Key #3",
      description: "",
      actions: ["*"],
      collections: ["*"],
      serverWide: true,
      valuePrefix: "abcd"
    })
    const scoped = keyRecord({
      id: 4,
      description: "reader",
      actions: ["documents:search"],
      collections: ["books"],
      value_prefix: "wxyz"
    })
    expect([scoped.name, scoped.serverWide]).toEqual(["reader (#4)", false])
  })
})
