import { Schema } from "effect"

/** D-51: the event kinds. */
export const ActivityCategory = Schema.Literal("auth", "token", "server", "tool", "resource", "approval")
export type ActivityCategory = typeof ActivityCategory.Type

/** D-51: the outcome of a tool call. */
export const ToolOutcome = Schema.Literal("success", "error", "denied", "cancelled", "timeout")
export type ToolOutcome = typeof ToolOutcome.Type

const Text = Schema.NullOr(Schema.String)

/**
 * One stored row of `activity.db`. Statement text, token values and secrets never appear: a
 * statement is kept as its SHA-256 `digest` (D-51). `prevHash` is the `hash` of
 * the row before (the chain); `clientName`/`clientVersion`/`clientTitle` are the caller's
 * `clientInfo` (C2.2-d) and the three trace keys are kept as received (C2.2-f).
 */
export const ActivityEntry = Schema.Struct({
  seq: Schema.Int,
  at: Schema.String,
  category: ActivityCategory,
  action: Schema.String,
  outcome: Text,
  tokenId: Text,
  tokenName: Text,
  clientName: Text,
  clientVersion: Text,
  clientTitle: Text,
  address: Text,
  connectionId: Text,
  subject: Text,
  durationMs: Schema.NullOr(Schema.Number),
  digest: Text,
  details: Text,
  traceparent: Text,
  tracestate: Text,
  baggage: Text,
  prevHash: Schema.String,
  hash: Schema.String
})
export type ActivityEntry = typeof ActivityEntry.Type

type Chained = "seq" | "at" | "prevHash" | "hash" | "category" | "action"

/** What a caller records; the log adds the time, the sequence number and the chain. */
export type ActivityEvent =
  & Pick<ActivityEntry, "category" | "action">
  & Partial<Omit<ActivityEntry, Chained>>

/**
 * D-67: a tool result carries, under this key (never serialized), which masking rules changed it; the
 * activity row of the call records it in `details` (the rule and the column, never a value).
 */
export const POLICY_NOTE: unique symbol = Symbol.for("dbdesk/activity/policy-note")

/** The fields in the order they are hashed and exported. */
export const ACTIVITY_FIELDS = [
  "seq",
  "at",
  "category",
  "action",
  "outcome",
  "tokenId",
  "tokenName",
  "clientName",
  "clientVersion",
  "clientTitle",
  "address",
  "connectionId",
  "subject",
  "durationMs",
  "digest",
  "details",
  "traceparent",
  "tracestate",
  "baggage",
  "prevHash",
  "hash"
] as const satisfies ReadonlyArray<keyof ActivityEntry>

/** The chain starts from 64 zeros (as the reference client's audit log does, reference §8). */
export const GENESIS_HASH = "0".repeat(64)

/** D-51: kept 90 days. */
export const ACTIVITY_RETENTION_DAYS = 90

/** The UI's filters (D-51: time, category, token, client). */
export const ActivityQuery = Schema.Struct({
  since: Schema.optionalWith(Schema.String, { exact: true }),
  until: Schema.optionalWith(Schema.String, { exact: true }),
  category: Schema.optionalWith(ActivityCategory, { exact: true }),
  tokenId: Schema.optionalWith(Schema.String, { exact: true }),
  client: Schema.optionalWith(Schema.String, { exact: true }),
  limit: Schema.Int.pipe(Schema.between(1, 10_000))
})
export type ActivityQuery = typeof ActivityQuery.Type

/** The result of checking the chain: the first row found edited, inserted or deleted. */
export type ChainVerdict =
  | { readonly ok: true; readonly rows: number }
  | {
    readonly ok: false
    readonly problem: "edited" | "inserted" | "deleted"
    readonly seq: number
    readonly message: string
  }

/** One connected client (D-52), keyed by clientInfo, token and address. */
export const ConnectedClient = Schema.Struct({
  id: Schema.String,
  clientName: Schema.String,
  clientVersion: Schema.String,
  clientTitle: Schema.NullOr(Schema.String),
  principalKey: Schema.String,
  tokenId: Schema.NullOr(Schema.String),
  tokenName: Schema.NullOr(Schema.String),
  address: Schema.String,
  firstSeenAt: Schema.String,
  lastSeenAt: Schema.String
})
export type ConnectedClient = typeof ConnectedClient.Type
