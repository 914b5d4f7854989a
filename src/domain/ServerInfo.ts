import { Schema } from "effect"

/** Wire contract §2.4/§2.5: `_meta.io.modelcontextprotocol/serverInfo`; discover adds title and websiteUrl. */
export const ServerInfo = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optionalWith(Schema.String, { exact: true }),
  websiteUrl: Schema.optionalWith(Schema.String, { exact: true })
})
export type ServerInfo = typeof ServerInfo.Type

export const CacheScope = Schema.Literal("public", "private")
export type CacheScope = typeof CacheScope.Type

/** Wire contract §2.5: the capabilities `server/discover` announces, exactly. */
export const DiscoverCapabilities = Schema.Struct({
  tools: Schema.Struct({ listChanged: Schema.Literal(false) }),
  resources: Schema.Struct({ subscribe: Schema.Boolean, listChanged: Schema.Literal(true) }),
  prompts: Schema.Struct({ listChanged: Schema.Literal(false) }),
  completions: Schema.Struct({}),
  extensions: Schema.Struct({})
})

export const DiscoverResult = Schema.Struct({
  supportedVersions: Schema.Array(Schema.String),
  capabilities: DiscoverCapabilities,
  instructions: Schema.String,
  resultType: Schema.Literal("complete"),
  ttlMs: Schema.Int,
  cacheScope: CacheScope,
  _meta: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type DiscoverResult = typeof DiscoverResult.Type

/** Wire contract §1 / D-10, in our own words. */
export const SERVER_INSTRUCTIONS = [
  "dbdesk gives you the user's database connections, already configured: you never need credentials.",
  "Start with the list_connections tool to see which connections you may use.",
  "Call describe_table before writing SQL or a filter, so you use real table and column names.",
  "Prefer the dedicated tools (browse_table, count_rows, search_documents) over raw queries.",
  "Writes are confirmed by the user before they run.",
  "A refusal is the user's policy, not a transient fault: do not retry it or work around it; tell the user instead."
].join(" ")
