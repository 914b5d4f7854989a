import { Schema } from "effect"
import { CellValue } from "./ResultSet.ts"
import { PendingApproval, ApprovalDecision } from "./Approval.ts"
import { ApprovalPreview } from "./ApprovalPreview.ts"
import { AiPolicy, ConfirmQueries, ExternalAccess } from "./Connection.ts"
import { CostGuardMode } from "./CostGuard.ts"
import { MaskingAction, SecretCatalogs } from "./MaskingRules.ts"
import { UiSsh, UiSshInput } from "./SshTunnel.ts"
import { AccessLevel } from "./Token.ts"

/** A failure the UI shows as is: written for a person, never holding a secret (D-60). */
export class UiError extends Schema.TaggedError<UiError>()("UiError", { message: Schema.String }) {}
export class UiNotFound extends Schema.TaggedError<UiNotFound>()("UiNotFound", { message: Schema.String }) {}

export const ConnectionKind = Schema.Literal("sqlite", "postgresql", "mysql", "search")
export type ConnectionKind = typeof ConnectionKind.Type

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A masking rule as the form edits it; the connection schema checks the pattern when saved (D-65). */
export const UiMaskingRule = Schema.Struct({ pattern: Schema.String, action: MaskingAction })
export type UiMaskingRule = typeof UiMaskingRule.Type
/** D-59 (search): further nodes and the nearest node as URLs, and the official client's settings. */
const clusterFields = {
  nodes: optional(Schema.String),
  nearestNode: optional(Schema.String),
  healthcheckIntervalSeconds: optional(Schema.Number),
  numRetries: optional(Schema.Number),
  retryIntervalSeconds: optional(Schema.Number),
  connectionTimeoutSeconds: optional(Schema.Number),
  randomizeNodes: optional(Schema.Boolean)
}

/** A PostgreSQL or MySQL/MariaDB connection's TLS files: CA certificate, client certificate and key (paths). */
const uiTlsFiles = {
  sslCa: optional(Schema.String),
  sslCert: optional(Schema.String),
  sslKey: optional(Schema.String)
}

/** D-95: a PostgreSQL or MySQL/MariaDB connection's cost guard and budgets (absent: off, default budgets). */
const uiCostGuard = {
  costGuard: optional(CostGuardMode),
  costMaxRows: optional(Schema.Number),
  costMaxCost: optional(Schema.Number)
}

/** A connection as the UI sees it: whether a password or API key is set, never its value (D-60). */
export const UiConnection = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: ConnectionKind,
  externalAccess: ExternalAccess,
  aiPolicy: AiPolicy,
  confirmQueries: ConfirmQueries,
  secretCatalogs: SecretCatalogs,
  maskingRules: Schema.Array(UiMaskingRule),
  path: optional(Schema.String),
  host: optional(Schema.String),
  port: optional(Schema.Int),
  database: optional(Schema.String),
  user: optional(Schema.String),
  sslMode: optional(Schema.String),
  ...uiTlsFiles,
  ...uiCostGuard,
  skipTlsVerification: optional(Schema.Boolean),
  ...clusterFields,
  ssh: optional(UiSsh),
  hasPassword: Schema.Boolean,
  hasApiKey: Schema.Boolean,
  /** Whether the client key's passphrase is stored (never its value). */
  hasSslKeyPassphrase: optional(Schema.Boolean),
  /** `#rrggbb` when the user chose a colour for the connection; its tabs and its row show it. */
  color: optional(Schema.String),
  /** The user marked it as a production database: its tabs and its row say so. */
  production: optional(Schema.Boolean),
  /** D-103: the connection list's group it sits in. */
  group: optional(Schema.String)
})
export type UiConnection = typeof UiConnection.Type

/** The new/edit form; on edit an absent `password`/`apiKey` keeps the stored one, absent AI settings keep theirs. */
export const UiConnectionInput = Schema.Struct({
  name: Schema.String,
  type: ConnectionKind,
  externalAccess: ExternalAccess,
  aiPolicy: AiPolicy,
  confirmQueries: ConfirmQueries,
  secretCatalogs: optional(SecretCatalogs),
  maskingRules: optional(Schema.Array(UiMaskingRule)),
  path: optional(Schema.String),
  host: optional(Schema.String),
  port: optional(Schema.Int),
  database: optional(Schema.String),
  user: optional(Schema.String),
  password: optional(Schema.String),
  apiKey: optional(Schema.String),
  sslMode: optional(Schema.String),
  /** TLS files; an empty one is removed on save. The passphrase: absent or empty keeps the stored one. */
  ...uiTlsFiles,
  sslKeyPassphrase: optional(Schema.String),
  /** An absent or null (cleared) budget uses the default; "off" or an absent guard turns it off. */
  costGuard: optional(CostGuardMode),
  costMaxRows: optional(Schema.NullOr(Schema.Number)),
  costMaxCost: optional(Schema.NullOr(Schema.Number)),
  skipTlsVerification: optional(Schema.Boolean),
  ...clusterFields,
  ssh: optional(Schema.NullOr(UiSshInput)),
  /** An empty string clears the colour. */
  color: optional(Schema.String),
  production: optional(Schema.Boolean),
  /** An empty string takes the connection out of its group. */
  group: optional(Schema.String)
})
export type UiConnectionInput = typeof UiConnectionInput.Type

/** The form's fields tested before they are saved; `id` names the saved connection being edited (its secrets are kept). */
export const UiConnectionProbe = Schema.Struct({ connection: UiConnectionInput, id: optional(Schema.String) })
export type UiConnectionProbe = typeof UiConnectionProbe.Type

export const UiDriver = Schema.Struct({
  type: ConnectionKind,
  title: Schema.String,
  state: Schema.Literal("builtIn", "available", "enabled")
})
export type UiDriver = typeof UiDriver.Type

export const UiTable = Schema.Struct({
  name: Schema.String,
  kind: Schema.Literal("table", "view", "collection"),
  rowCount: Schema.NullOr(Schema.Number)
})
export type UiTable = typeof UiTable.Type

/** The sidebar; `note` says why it is empty when the engine refused the listing (doc 2 §2.1). */
export const UiTableList = Schema.Struct({ tables: Schema.Array(UiTable), note: Schema.NullOr(Schema.String) })
export type UiTableList = typeof UiTableList.Type

export const UiColumn = Schema.Struct({
  name: Schema.String,
  type: Schema.String,
  isPrimaryKey: Schema.Boolean,
  isReadOnly: Schema.Boolean,
  nullable: Schema.Boolean,
  sortable: Schema.Boolean,
  /** Why a header click does not sort (doc 2 §2.2 sort flag). */
  sortNote: Schema.NullOr(Schema.String)
})
export type UiColumn = typeof UiColumn.Type

/** A column's default (as the engine writes it back) and comment, for the structure view. */
export const UiColumnDetail = Schema.Struct({
  name: Schema.String,
  defaultValue: Schema.NullOr(Schema.String),
  comment: Schema.NullOr(Schema.String)
})
export type UiColumnDetail = typeof UiColumnDetail.Type

/**
 * A foreign key out of the table: `columns[i]` points at `referencedColumns[i]` of `referencedTable` (a name the
 * UI API's table paths accept), so the grid can open the referenced row; `references` is the display text.
 */
export const UiForeignKey = Schema.Struct({
  columns: Schema.Array(Schema.String),
  references: Schema.String,
  referencedTable: Schema.String,
  referencedColumns: Schema.Array(Schema.String),
  onUpdate: Schema.NullOr(Schema.String),
  onDelete: Schema.NullOr(Schema.String)
})
export type UiForeignKey = typeof UiForeignKey.Type

/** A foreign key of another table (or this one) pointing here: `table.columns[i]` → this table's `referencedColumns[i]`. */
export const UiIncomingReference = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  table: Schema.String,
  columns: Schema.Array(Schema.String),
  referencedColumns: Schema.Array(Schema.String)
})
export type UiIncomingReference = typeof UiIncomingReference.Type

export const UiStructure = Schema.Struct({
  columns: Schema.Array(UiColumn),
  indexes: Schema.Array(
    Schema.Struct({ name: Schema.String, columns: Schema.Array(Schema.String), unique: Schema.Boolean })
  ),
  foreignKeys: Schema.Array(UiForeignKey),
  /** The parts below are read for SQL tables by the structure view only (a grid page leaves them out). */
  columnDetails: optional(Schema.Array(UiColumnDetail)),
  referencedBy: optional(Schema.Array(UiIncomingReference)),
  checks: optional(Schema.Array(Schema.Struct({ name: Schema.NullOr(Schema.String), expression: Schema.String }))),
  triggers: optional(
    Schema.Array(
      Schema.Struct({ name: Schema.String, timing: Schema.String, event: Schema.String, definition: Schema.String })
    )
  ),
  /** Why a part is missing (the engine refused to list it). */
  notes: optional(Schema.Array(Schema.String)),
  /** DDL for SQL tables, the collection schema JSON for search collections. */
  definition: Schema.String,
  readOnly: Schema.Boolean
})
export type UiStructure = typeof UiStructure.Type

/** A grid cell is a result-set cell (D-20). */
export const Cell = CellValue
export type Cell = CellValue

export const UiFilterRow = Schema.Struct({
  column: Schema.String,
  operator: Schema.String,
  value: optional(Schema.String),
  secondValue: optional(Schema.String)
})
export type UiFilterRow = typeof UiFilterRow.Type

/** One grid read: filter bar rows joined by All/Any, the Raw filter, header sorts, a 1,000-row page. */
export const UiBrowseRequest = Schema.Struct({
  filters: Schema.Array(UiFilterRow),
  logic: Schema.Literal("and", "or"),
  /** Search collections: a raw filter_by; SQL tables: a WHERE condition the server checks first (D-85). */
  raw: optional(Schema.String),
  /** The filter bar's search box: SQL tables search every column but binary ones; search collections send it as `q` over their text fields (D-101). */
  search: optional(Schema.String),
  caseSensitive: Schema.Boolean,
  sort: Schema.Array(Schema.Struct({ column: Schema.String, direction: Schema.Literal("asc", "desc") })),
  offset: Schema.Int.pipe(Schema.nonNegative()),
  limit: Schema.Int.pipe(Schema.between(1, 1000)),
  /** false: skip counting the rows (the grid already knows the total, or the table is large and counts on demand). */
  count: optional(Schema.Boolean)
})
export type UiBrowseRequest = typeof UiBrowseRequest.Type

export const UiPage = Schema.Struct({
  columns: Schema.Array(UiColumn),
  rows: Schema.Array(Schema.Array(Cell)),
  total: Schema.NullOr(Schema.Number),
  /** Dropped sorts, the filter_by sent, and similar facts worth showing under the grid. */
  notes: Schema.Array(Schema.String),
  editable: Schema.Boolean,
  /** Why the grid is read-only, when it is (D-85). */
  readOnlyReason: optional(Schema.String),
  /** How the rows are ordered, in plain words ("Ordered by the primary key (id)."). */
  order: optional(Schema.String)
})
export type UiPage = typeof UiPage.Type

export const CellMap = Schema.Record({ key: Schema.String, value: Cell })
export type CellMap = typeof CellMap.Type

/** Pending grid changes saved together; each row is its own request (doc 2 §8: no transactions). */
export const UiEditRequest = Schema.Struct({
  inserts: Schema.Array(CellMap),
  updates: Schema.Array(Schema.Struct({ id: Schema.String, original: CellMap, changes: CellMap })),
  deletes: Schema.Array(Schema.String)
})
export type UiEditRequest = typeof UiEditRequest.Type

export const UiEditResult = Schema.Struct({
  applied: Schema.Int,
  failures: Schema.Array(Schema.Struct({ row: Schema.String, message: Schema.String }))
})
export type UiEditResult = typeof UiEditResult.Type

/** `runId` (chosen by the UI) names the run for Cancel, which interrupts it as an MCP cancel does. */
export const UiConsoleRequest = Schema.Struct({
  text: Schema.String,
  confirmed: Schema.Boolean,
  runId: optional(Schema.String),
  /** The sidebar's schema switcher (D-98): unqualified names resolve in this schema first (PostgreSQL). */
  schema: optional(Schema.String)
})
export type UiConsoleRequest = typeof UiConsoleRequest.Type

/** A console answer (doc 2 §4.3 for search): a grid, one pretty JSON cell, or a question before a write runs. */
export const UiConsoleResult = Schema.Union(
  Schema.TaggedStruct("Grid", {
    columns: Schema.Array(Schema.String),
    /** Each column's type name from the driver's field metadata ("" when it has none); absent when the driver gives none. */
    columnTypes: optional(Schema.Array(Schema.String)),
    rows: Schema.Array(Schema.Array(Cell)),
    rowsAffected: Schema.Number,
    timeMs: Schema.Number,
    message: Schema.NullOr(Schema.String),
    /** The statement created, altered, dropped or renamed something: the sidebar's table list is stale. */
    schemaChanged: optional(Schema.Boolean)
  }),
  Schema.TaggedStruct("Json", { text: Schema.String, timeMs: Schema.Number }),
  /** Asked before a write runs: the database has already checked the statement, and `preview` is its rolled-back dry run. */
  Schema.TaggedStruct("NeedsConfirmation", {
    tier: Schema.Literal("write", "destructive"),
    reason: Schema.String,
    preview: optional(ApprovalPreview)
  })
)
export type UiConsoleResult = typeof UiConsoleResult.Type

export const UiToken = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  access: AccessLevel,
  connections: Schema.Union(Schema.Literal("all"), Schema.Array(Schema.String)),
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  expiresAt: Schema.NullOr(Schema.String),
  state: Schema.Literal("active", "revoked", "expired"),
  bridge: Schema.Boolean,
  /** The toolset (tool names or "lean"); absent, every tool. */
  tools: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})
export type UiToken = typeof UiToken.Type

export const UiNewToken = Schema.Struct({
  name: Schema.String,
  access: AccessLevel,
  connections: Schema.Union(Schema.Literal("all"), Schema.Array(Schema.String)),
  expiresInDays: Schema.NullOr(Schema.Int.pipe(Schema.between(1, 3650))),
  tools: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})
export type UiNewToken = typeof UiNewToken.Type

/** The only time a token's value leaves the server (D-31). */
export const UiCreatedToken = Schema.Struct({ token: UiToken, value: Schema.String })
export type UiCreatedToken = typeof UiCreatedToken.Type

export const UiStatus = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  endpoint: Schema.String,
  handshakePath: Schema.String,
  uiUrl: Schema.String,
  modernVersions: Schema.Array(Schema.String),
  legacyVersions: Schema.Array(Schema.String),
  mcpEnabled: Schema.Boolean,
  requireAuth: Schema.Boolean
})
export type UiStatus = typeof UiStatus.Type

/** The settings the UI may change (D-11); ports take effect at the next start. */
export const UiSettingsPatch = Schema.Struct({
  mcp: optional(Schema.Struct({
    enabled: optional(Schema.Boolean),
    requireAuth: optional(Schema.Boolean),
    connectionApproval: optional(Schema.Literal("everyTime", "oncePerConnection", "alwaysApprove")),
    logQueries: optional(Schema.Boolean),
    port: optional(Schema.Int.pipe(Schema.between(0, 65535)))
  })),
  limits: optional(Schema.Struct({
    defaultRows: optional(Schema.Int.pipe(Schema.between(1, 10_000))),
    maxRows: optional(Schema.Int.pipe(Schema.between(1, 10_000))),
    queryTimeoutSeconds: optional(Schema.Int.pipe(Schema.between(1, 300))),
    requestsPerMinute: optional(Schema.Int.pipe(Schema.positive())),
    concurrentPerCaller: optional(Schema.Int.pipe(Schema.positive()))
  })),
  ui: optional(Schema.Struct({ port: optional(Schema.Int.pipe(Schema.between(0, 65535))) })),
  /** D-92: the export folder; empty is Downloads (the home folder without one). An absolute path or empty. */
  exports: optional(
    Schema.Struct({
      directory: optional(
        Schema.String.pipe(
          Schema.filter((value) => value === "" || value.startsWith("/") || /^[A-Za-z]:[\\/]/.test(value), {
            message: () => "The export folder must be a full path, or empty for Downloads."
          })
        )
      )
    })
  )
})
export type UiSettingsPatch = typeof UiSettingsPatch.Type

/** What `/api/events` pushes (Server-Sent Events): the pending dialogs at connect, then changes. */
export const UiEvent = Schema.Union(
  Schema.TaggedStruct("Snapshot", { approvals: Schema.Array(PendingApproval) }),
  Schema.TaggedStruct("Pending", { approval: PendingApproval }),
  Schema.TaggedStruct("Settled", { id: Schema.String, decision: Schema.Literal("approved", "denied", "no_response") })
)
export type UiEvent = typeof UiEvent.Type

export const UiAnswer = Schema.Struct({ decision: ApprovalDecision })

/** One node of a search connection (D-59): the client's own view of it and a live `GET /health`. */
export const UiNodeHealth = Schema.Struct({
  label: Schema.String,
  url: Schema.String,
  healthy: Schema.Boolean,
  /** When the client last saw it answer or fail (null: not yet used). */
  checkedAt: Schema.NullOr(Schema.String),
  lastError: Schema.NullOr(Schema.String),
  probe: Schema.Struct({ ok: Schema.Boolean, ms: Schema.Number, message: Schema.String })
})
export type UiNodeHealth = typeof UiNodeHealth.Type
