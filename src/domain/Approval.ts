import { Schema } from "effect"
import { ApprovalPreview } from "./ApprovalPreview.ts"

/** What the app's own dialog shows (D-28, D-29). */
/** `host_key`: an SSH host presented a key dbdesk does not know; accepting it trusts that key for good. */
export const ApprovalKind = Schema.Literal("statement", "connection_access", "host_key")
export type ApprovalKind = typeof ApprovalKind.Type

export const PendingApproval = Schema.Struct({
  id: Schema.String,
  kind: ApprovalKind,
  /** The question, e.g. "Allow UPDATE on 'Sample (SQLite)'?" */
  message: Schema.String,
  /** The statement (or search request) verbatim; absent for the connection access dialog. */
  statement: Schema.optionalWith(Schema.String, { exact: true }),
  connectionId: Schema.String,
  connectionName: Schema.String,
  /** Who asks: the token's name, or "anonymous". */
  principal: Schema.String,
  client: Schema.optionalWith(Schema.String, { exact: true }),
  requestedAt: Schema.String,
  /** The asking token's access level ("anonymous" without a token). */
  access: Schema.optionalWith(Schema.Literal("readOnly", "readWrite", "fullAccess", "anonymous"), { exact: true }),
  /** The client's own `clientInfo` (wire contract §2.2), when it sent one. */
  clientName: Schema.optionalWith(Schema.String, { exact: true }),
  clientVersion: Schema.optionalWith(Schema.String, { exact: true }),
  /** The tool whose call waits (statement approvals). */
  tool: Schema.optionalWith(Schema.String, { exact: true }),
  /** The statement destroys data (`confirm_destructive_operation`). */
  destructive: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** What the statement would change, from a dry run that was rolled back, or why there is none (D-69). */
  preview: Schema.optionalWith(ApprovalPreview, { exact: true }),
  /** The access dialog: what the client will run once it may use the connection (the UI shows it; hosts are not sent it). */
  wants: Schema.optionalWith(Schema.String, { exact: true })
})
export type PendingApproval = typeof PendingApproval.Type

/**
 * What an embedding host's own approval dialog is asked (the `approve` callback of `startMcpServer`): wire contract
 * §3.1 "the app shows its own confirmation dialog". A host shows the message, who asks (client and token), where
 * (connection) and what (tool and statement verbatim, line breaks kept), and warns plainly when `destructive`.
 * Fields may be added; none is removed or changes meaning.
 */
export interface ApprovalRequest {
  /** Unique per dialog; the `approval.answered` event names it. */
  readonly id: string
  /** `statement`: a call waits for approval of what it runs; `connection_access`: AI policy askEachTime asks before a client first uses a connection; `host_key`: an SSH host's unknown key (the fingerprint is in the message). */
  readonly kind: ApprovalKind
  /** The question, e.g. "Allow UPDATE on 'Orders'?", with a plain-words warning such as "This deletes every row of orders." */
  readonly message: string
  /** The MCP client as it names itself (`clientInfo`); absent when it sent none. The access dialog knows the name only. */
  readonly clientName?: string
  readonly clientVersion?: string
  /** The token the client authenticated with: its name ("anonymous" when none) and access level. */
  readonly tokenName: string
  readonly access: "readOnly" | "readWrite" | "fullAccess" | "anonymous"
  readonly connectionId: string
  readonly connectionName: string
  /** The tool whose call waits, e.g. "execute_query"; absent for the access dialog. */
  readonly tool?: string
  /** The statement verbatim (SQL, or a search request's method, path and body); absent for the access dialog. */
  readonly statement?: string
  /** True when the statement destroys data and cannot be undone (DROP, TRUNCATE, a search-engine DELETE). */
  readonly destructive: boolean
  /** ISO 8601. */
  readonly requestedAt: string
}

export const toApprovalRequest = (approval: PendingApproval): ApprovalRequest => ({
  id: approval.id,
  kind: approval.kind,
  message: approval.message,
  ...(approval.clientName === undefined ? {} : { clientName: approval.clientName }),
  ...(approval.clientVersion === undefined ? {} : { clientVersion: approval.clientVersion }),
  tokenName: approval.principal,
  access: approval.access ?? "anonymous",
  connectionId: approval.connectionId,
  connectionName: approval.connectionName,
  ...(approval.tool === undefined ? {} : { tool: approval.tool }),
  ...(approval.statement === undefined ? {} : { statement: approval.statement }),
  destructive: approval.destructive ?? false,
  requestedAt: approval.requestedAt
})

export const ApprovalDecision = Schema.Literal("approved", "denied")
export type ApprovalDecision = typeof ApprovalDecision.Type

/** Wire contract §2.6 / C2.6-c: the statement shown in the form is cut at 2,000 characters. */
export const APPROVAL_TEXT_LIMIT = 2000
export const approvalText = (statement: string): string =>
  statement.length <= APPROVAL_TEXT_LIMIT ? statement : statement.slice(0, APPROVAL_TEXT_LIMIT)
