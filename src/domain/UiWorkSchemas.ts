import { Schema } from "effect"
import { ActivityEntry } from "./Activity.ts"
import { CellValue } from "./ResultSet.ts"
import { AccessLevel } from "./Token.ts"

/** Schemas of the UI's daily-use flows (D-86): grid edits of SQL rows, console runs, history, clients, pairing. */

const CellMap = Schema.Record({ key: Schema.String, value: CellValue })

/** Pending grid changes to a SQL table; rows are named by their primary key values. */
export const UiSqlEdits = Schema.Struct({
  inserts: Schema.Array(CellMap),
  updates: Schema.Array(Schema.Struct({ key: CellMap, changes: CellMap })),
  deletes: Schema.Array(CellMap)
})
export type UiSqlEdits = typeof UiSqlEdits.Type

export const UiSqlPreview = Schema.Struct({ statements: Schema.Array(Schema.String) })
export type UiSqlPreview = typeof UiSqlPreview.Type

/** Apply: the edits and the statements the dialog showed; the server runs them only if it builds the same ones. */
export const UiSqlApply = Schema.Struct({ edits: UiSqlEdits, statements: Schema.Array(Schema.String) })

export const UiSqlApplyResult = Schema.Struct({
  committed: Schema.Boolean,
  results: Schema.Array(
    Schema.Struct({
      statement: Schema.String,
      rowsAffected: Schema.NullOr(Schema.Number),
      error: Schema.NullOr(Schema.String)
    })
  )
})
export type UiSqlApplyResult = typeof UiSqlApplyResult.Type

export const UiHistoryEntry = Schema.Struct({
  id: Schema.Number,
  text: Schema.String,
  executedAt: Schema.String,
  durationMs: Schema.Number,
  rowCount: Schema.NullOr(Schema.Number),
  outcome: Schema.String,
  source: Schema.String
})
export type UiHistoryEntry = typeof UiHistoryEntry.Type

export const UiSavedQuery = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  text: Schema.String,
  connectionId: Schema.NullOr(Schema.String),
  savedAt: Schema.String
})
export type UiSavedQuery = typeof UiSavedQuery.Type

export const UiNewSavedQuery = Schema.Struct({
  name: Schema.String,
  text: Schema.String,
  connectionId: Schema.NullOr(Schema.String)
})

/** One AI client of the "Connect a client" tab: its config file here and the entry to paste. */
export const UiAiClient = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  configPath: Schema.String,
  note: Schema.NullOr(Schema.String),
  /** The JSON to paste into the config file (stdio bridge, absolute paths of this machine). */
  snippet: Schema.String,
  /** A shell command that adds the same entry (Claude Code's `claude mcp add …`), when the client has one. */
  command: Schema.NullOr(Schema.String)
})

export const UiClientSetup = Schema.Struct({
  platform: Schema.String,
  launch: Schema.Struct({
    command: Schema.String,
    args: Schema.Array(Schema.String),
    env: Schema.Record({ key: Schema.String, value: Schema.String })
  }),
  clients: Schema.Array(UiAiClient),
  /** The MCP endpoint for clients that speak HTTP (they need a token). */
  endpoint: Schema.String
})
export type UiClientSetup = typeof UiClientSetup.Type

export const UiBridgeTest = Schema.Struct({
  ok: Schema.Boolean,
  message: Schema.String,
  /** The bridge's answer to server/discover, as JSON text, when it answered. */
  answer: Schema.NullOr(Schema.String),
  timeMs: Schema.Number
})
export type UiBridgeTest = typeof UiBridgeTest.Type

export const UiChainCheck = Schema.Struct({
  ok: Schema.Boolean,
  rows: Schema.NullOr(Schema.Number),
  message: Schema.String
})

/** A pairing request the user approves in the UI (D-35). */
export const UiPairingApproval = Schema.Struct({
  client: Schema.String,
  challenge: Schema.String,
  redirect: Schema.NullOr(Schema.String),
  state: Schema.NullOr(Schema.String),
  access: AccessLevel,
  connections: Schema.Union(Schema.Literal("all"), Schema.Array(Schema.String)),
  expiresInDays: Schema.NullOr(Schema.Int.pipe(Schema.between(1, 3650)))
})
export type UiPairingApproval = typeof UiPairingApproval.Type

export const UiPairingCode = Schema.Struct({
  code: Schema.String,
  expiresAt: Schema.String,
  redirectTo: Schema.NullOr(Schema.String)
})

export const UiPairingExchange = Schema.Struct({ code: Schema.String, code_verifier: Schema.String })

/** Console text kept for a connection between runs of `serve`: at most this many tabs… */
export const CONSOLE_TABS_MAX = 20
/** …and this many characters of text over all of them (256 KiB of typing; a pasted dump does not belong here). */
export const CONSOLE_TEXT_MAX_CHARS = 262_144

/** One console tab of a connection: its id (chosen by the UI), its name and the editor's text. */
export const UiConsoleTab = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^[\w:-]{1,64}$/)),
  title: Schema.String.pipe(Schema.maxLength(200)),
  text: Schema.String
})
export type UiConsoleTab = typeof UiConsoleTab.Type

export const UiConsoleTabs = Schema.Struct({
  tabs: Schema.Array(UiConsoleTab).pipe(Schema.maxItems(CONSOLE_TABS_MAX)),
  active: Schema.NullOr(Schema.String)
})
export type UiConsoleTabs = typeof UiConsoleTabs.Type

/**
 * An activity row as the MCP panel shows it: the connection by name, and the statement whose digest the row keeps
 * when the query history still has it (MCP statements are kept there while "Keep MCP statements" is on).
 */
export const UiActivityRow = Schema.Struct({
  ...ActivityEntry.fields,
  connectionName: Schema.optionalWith(Schema.String, { exact: true }),
  statement: Schema.optionalWith(Schema.String, { exact: true })
})
export type UiActivityRow = typeof UiActivityRow.Type

/** An open continued read (D-93) as the MCP panel lists it; `caller` is the token's name or "the stdio bridge". */
export const UiContinuation = Schema.Struct({
  id: Schema.String,
  connection: Schema.String,
  caller: Schema.String,
  statement: Schema.String,
  rows: Schema.Number,
  openedAt: Schema.String,
  expiresAt: Schema.String
})
export type UiContinuation = typeof UiContinuation.Type
