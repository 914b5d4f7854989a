import { Schema } from "effect"
import { patternParts } from "./ColumnGuard.ts"

/**
 * D-65: a connection's masking rules, part of its AI settings. `pattern` names columns (`users.password_hash`,
 * `*.ssn`, `*.token*`; `schema.table.column` for SQL, `collection.field` for a search connection); `mask` shows MCP
 * callers a marker with the value's type and length, `hide` leaves the column out. The UI is the user's own client and
 * always shows the real values.
 */
export const MaskingAction = Schema.Literal("mask", "hide")
export type MaskingAction = typeof MaskingAction.Type

const patternFor = (kind: "sql" | "search") =>
  Schema.String.pipe(Schema.filter((pattern) =>
    patternParts(pattern, kind) !== undefined && !/\s/.test(pattern) ||
    (kind === "sql"
      ? `"${pattern}" is not a column pattern: write table.column or schema.table.column, with * for any characters (e.g. *.ssn)`
      : `"${pattern}" is not a field pattern: write collection.field, with * for any characters (e.g. *.api_key)`)
  ))

export const maskingRule = (kind: "sql" | "search") =>
  Schema.Struct({ pattern: patternFor(kind), action: MaskingAction })

export const MaskingRule = maskingRule("sql")
export type MaskingRule = typeof MaskingRule.Type

/** The connection field: absent means no rules. */
export const maskingRulesField = (kind: "sql" | "search") =>
  Schema.optionalWith(Schema.Array(maskingRule(kind)), { default: () => [] })

/** D-64: whether AI clients may read the catalogs that hold credentials; closed unless the user opens them. */
export const SecretCatalogs = Schema.Literal("closed", "open")
export type SecretCatalogs = typeof SecretCatalogs.Type

/** `mask users.password_hash` / `hide *.ssn`, one rule a line (the UI's text box and the CLI's flags). */
export const ruleLine = (rule: { readonly pattern: string; readonly action: MaskingAction }) =>
  `${rule.action} ${rule.pattern}`
