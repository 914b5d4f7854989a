import { Either, Schema } from "effect"

export const AccessLevel = Schema.Literal("readOnly", "readWrite", "fullAccess")
export type AccessLevel = typeof AccessLevel.Type

/** D-31: `dbd_` + base64url(32 random bytes), 8-character display prefix. */
export const TOKEN_VALUE_PATTERN = /^dbd_[A-Za-z0-9_-]{43}$/
export const TOKEN_PREFIX_LENGTH = 8

/** D-31: the stored form holds a salted SHA-256, never the value. */
export const TokenRecord = Schema.Struct({
  id: Schema.String.pipe(Schema.nonEmptyString()),
  name: Schema.String.pipe(Schema.nonEmptyString()),
  prefix: Schema.String,
  hash: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/)),
  salt: Schema.String.pipe(Schema.nonEmptyString()),
  access: AccessLevel,
  connections: Schema.Union(Schema.Literal("all"), Schema.Array(Schema.String)),
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  expiresAt: Schema.optionalWith(Schema.String, { exact: true }),
  revokedAt: Schema.optionalWith(Schema.String, { exact: true }),
  bridge: Schema.Boolean,
  /** The toolset: tool names (built-in or curated) or the preset "lean"; absent, every tool. */
  tools: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})
export type TokenRecord = typeof TokenRecord.Type

/** `tokens.json` (0600, hashes only). */
export const TokenFile = Schema.Struct({
  version: Schema.Literal(1),
  tokens: Schema.Array(TokenRecord)
})
export type TokenFile = typeof TokenFile.Type

/** What the CLI and the UI may show of a token: everything but the hash and salt. */
export type TokenSummary = Omit<TokenRecord, "hash" | "salt">

export const summarize = ({ hash: _hash, salt: _salt, ...summary }: TokenRecord): TokenSummary => summary

export type TokenState = "active" | "revoked" | "expired"

export const tokenState = (token: TokenRecord, nowMillis: number): TokenState => {
  if (token.revokedAt !== undefined) return "revoked"
  if (token.expiresAt !== undefined && Date.parse(token.expiresAt) <= nowMillis) return "expired"
  return "active"
}

const DAY_MS = 86_400_000

/**
 * `--expires 30d | 2027-01-31 | <ISO timestamp> | never`. A bare date keeps the token valid through
 * that whole day (UTC); `never` and an absent flag give no expiry.
 */
export const parseExpiry = (text: string | undefined, nowMillis: number): Either.Either<Date | undefined, string> => {
  const trimmed = text?.trim() ?? "never"
  if (trimmed === "" || trimmed === "never") return Either.right(undefined)
  const days = /^(\d{1,5})d$/.exec(trimmed)
  if (days !== null) {
    const count = Number(days[1])
    return count < 1
      ? Either.left("--expires needs at least 1 day")
      : Either.right(new Date(nowMillis + count * DAY_MS))
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) {
    const start = Date.parse(`${trimmed}T00:00:00Z`)
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== trimmed) {
      return Either.left(`${trimmed} is not a calendar date`)
    }
    const end = start + DAY_MS
    return end <= nowMillis ? Either.left(`${trimmed} is in the past`) : Either.right(new Date(end))
  }
  const instant = /^\d{4}-\d{2}-\d{2}T/.test(trimmed) ? Date.parse(trimmed) : Number.NaN
  if (Number.isNaN(instant)) {
    return Either.left(`--expires takes 30d, 2027-01-31 or never, not ${JSON.stringify(trimmed)}`)
  }
  return instant <= nowMillis ? Either.left(`${trimmed} is in the past`) : Either.right(new Date(instant))
}

/** `--connections id,id` or `all`. */
export const parseConnectionList = (text: string | undefined): "all" | ReadonlyArray<string> => {
  if (text === undefined || text.trim() === "" || text.trim() === "all") return "all"
  return [...new Set(text.split(",").map((id) => id.trim()).filter((id) => id !== ""))]
}

/** `--tools name,name` or `lean`; absent, empty or `all`: every tool. Unknown names grant nothing (a curated tool may come later). */
export const parseToolset = (text: string | undefined): ReadonlyArray<string> | undefined => {
  if (text === undefined || text.trim() === "" || text.trim() === "all") return undefined
  return [...new Set(text.split(",").map((name) => name.trim()).filter((name) => name !== ""))]
}
