import { Schema } from "effect"
import { ApprovalPreview } from "./ApprovalPreview.ts"

/** What the app's own dialog shows (product-decisions §3.2 "The app dialog" and "Connection access dialog"). */
export const ApprovalKind = Schema.Literal("statement", "connection_access")
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
  /** What the statement would change, from a dry run that was rolled back, or why there is none (issue 28 item 1). */
  preview: Schema.optionalWith(ApprovalPreview, { exact: true }),
  requestedAt: Schema.String
})
export type PendingApproval = typeof PendingApproval.Type

export const ApprovalDecision = Schema.Literal("approved", "denied")
export type ApprovalDecision = typeof ApprovalDecision.Type

/** Wire contract §2.6 / C2.6-c: the statement shown in the form is cut at 2,000 characters. */
export const APPROVAL_TEXT_LIMIT = 2000
export const approvalText = (statement: string): string =>
  statement.length <= APPROVAL_TEXT_LIMIT ? statement : statement.slice(0, APPROVAL_TEXT_LIMIT)
