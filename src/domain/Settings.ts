import { Schema } from "effect"

/** D-5: the two hosted clients. */
export const DEFAULT_ALLOWED_ORIGINS: ReadonlyArray<string> = ["https://claude.ai", "https://app.cursor.com"]

export const ConnectionApprovalMode = Schema.Literal("everyTime", "oncePerConnection", "alwaysApprove")

const McpSettings = Schema.Struct({
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 65535)), { default: () => 23750 }),
  requireAuth: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  allowedOrigins: Schema.optionalWith(Schema.Array(Schema.String), { default: () => DEFAULT_ALLOWED_ORIGINS }),
  connectionApproval: Schema.optionalWith(ConnectionApprovalMode, { default: () => "oncePerConnection" as const }),
  logQueries: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  idleTimeoutSeconds: Schema.optionalWith(Schema.Finite.pipe(Schema.positive()), { default: () => 30 })
})

const LimitSettings = Schema.Struct({
  defaultRows: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), { default: () => 500 }),
  maxRows: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), { default: () => 10_000 }),
  queryTimeoutSeconds: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 300)), { default: () => 30 }),
  requestsPerMinute: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 240 }),
  concurrentPerCaller: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 8 }),
  /** A longer text or binary cell is cut, with a marker giving its full length (AnswerBudget). */
  maxCellBytes: Schema.optionalWith(Schema.Int.pipe(Schema.between(256, 16 * 1024 * 1024)), { default: () => 32_768 }),
  /** Rows of one answer stop at this many bytes, and the answer says why (AnswerBudget). */
  maxAnswerBytes: Schema.optionalWith(Schema.Int.pipe(Schema.between(65_536, 256 * 1024 * 1024)), {
    default: () => 8 * 1024 * 1024
  }),
  /** A continuation handle unused this long is closed and its database session given back (fetch_more). */
  continuationIdleSeconds: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 3600)), { default: () => 120 }),
  /** A continuation handle is closed this long after it was opened, however it is used. */
  continuationMaxSeconds: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 86_400)), { default: () => 900 })
})

const UiSettings = Schema.Struct({
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 65535)), { default: () => 23751 })
})

/** D-92: where exports are written; empty is the platform's Downloads folder (the home folder without one). */
const ExportSettings = Schema.Struct({
  directory: Schema.optionalWith(Schema.String, { default: () => "" })
})

/** D-11: every setting with its default; a partial `settings.json` is completed by them. */
export const Settings = Schema.Struct({
  mcp: Schema.optionalWith(McpSettings, { default: () => Schema.decodeSync(McpSettings)({}) }),
  limits: Schema.optionalWith(LimitSettings, { default: () => Schema.decodeSync(LimitSettings)({}) }),
  ui: Schema.optionalWith(UiSettings, { default: () => Schema.decodeSync(UiSettings)({}) }),
  exports: Schema.optionalWith(ExportSettings, { default: () => Schema.decodeSync(ExportSettings)({}) })
})
export type Settings = typeof Settings.Type
export type SettingsFile = typeof Settings.Encoded

export const defaultSettings = (): Settings => Schema.decodeSync(Settings)({})

/** Deep partial used for overrides (tests, CLI flags, UI edits). */
export type SettingsPatch = {
  readonly [K in keyof Settings]?: { -readonly [P in keyof Settings[K]]?: Settings[K][P] }
}

export const applySettingsPatch = (settings: Settings, patch: SettingsPatch): Settings => ({
  mcp: { ...settings.mcp, ...patch.mcp },
  limits: { ...settings.limits, ...patch.limits },
  ui: { ...settings.ui, ...patch.ui },
  exports: { ...settings.exports, ...patch.exports }
})
