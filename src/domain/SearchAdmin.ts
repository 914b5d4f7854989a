import { Schema } from "effect"

/** An API key as Users & Roles shows it (doc 2 §2.3, S2.3-a): never its value, only the first characters. */
export const SearchKeyRecord = Schema.Struct({
  id: Schema.Int,
  /** `"<description> (#<id>)"`, or `"Key #<id>"` without a description. */
  name: Schema.String,
  description: Schema.String,
  actions: Schema.Array(Schema.String),
  collections: Schema.Array(Schema.String),
  /** `*` (or no collection list) reads as server-wide. */
  serverWide: Schema.Boolean,
  valuePrefix: Schema.String,
  expiresAt: Schema.optionalWith(Schema.Number, { exact: true })
})
export type SearchKeyRecord = typeof SearchKeyRecord.Type

/** A key just created: the only time its full value is known (S2.3-b). */
export const CreatedSearchKey = Schema.Struct({ key: SearchKeyRecord, value: Schema.Redacted(Schema.String) })
export type CreatedSearchKey = typeof CreatedSearchKey.Type

export const NewSearchKey = Schema.Struct({
  description: Schema.String.pipe(Schema.nonEmptyString({ message: () => "Give the key a name." })),
  actions: Schema.Array(Schema.String),
  collections: Schema.Array(Schema.String)
})
export type NewSearchKey = typeof NewSearchKey.Type

/** A dashboard panel (doc 2 §2.4): a value, or the reason it is unavailable. */
export const DashboardValue = Schema.Union(
  Schema.TaggedStruct("Available", {
    value: Schema.Number,
    unit: Schema.Literal("bytes", "ratio", "percent", "per_second", "ms", "count"),
    total: Schema.optionalWith(Schema.Number, { exact: true })
  }),
  Schema.TaggedStruct("Unavailable", { reason: Schema.String })
)
export type DashboardValue = typeof DashboardValue.Type

/** The panels of the server dashboard (doc 2 §2.4, S2.4-a/b). */
export const SearchDashboard = Schema.Struct({
  processMemory: DashboardValue,
  systemMemory: DashboardValue,
  memoryFragmentation: DashboardValue,
  disk: DashboardValue,
  requestsPerSecond: DashboardValue,
  searchLatency: DashboardValue,
  writeLatency: DashboardValue,
  pendingWriteBatches: DashboardValue,
  cacheHitRatio: DashboardValue,
  sessions: DashboardValue,
  slowQueries: DashboardValue
})
export type SearchDashboard = typeof SearchDashboard.Type
