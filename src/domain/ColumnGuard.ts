import { toCellValue, utf8Length } from "./SqlCell.ts"

/**
 * D-64, D-65: what an AI client may read of a connection's columns. Pure and free of imports beyond
 * SqlCell, so the SQLite child process uses it too, and the policy explainer (D-70) can call the same decisions
 * the drivers make: `ruleFor` (which masking rule covers a column) and `decideAnswer` (what happens to an answer
 * whose columns come from the given origins, for a statement that reads the given relations).
 */
export type MaskingAction = "mask" | "hide"
export interface MaskingRuleSpec {
  readonly pattern: string
  readonly action: MaskingAction
}
export type SecretCatalogsSetting = "closed" | "open"

/** The AI settings of a connection that guard its answers (D-12, D-64). */
export interface GuardPolicy {
  readonly rules: ReadonlyArray<MaskingRuleSpec>
  readonly secretCatalogs: SecretCatalogsSetting
}

export const guardsAnything = (policy: GuardPolicy): boolean =>
  policy.rules.length > 0 || policy.secretCatalogs === "closed"

/** A relation as a rule names it: SQL `schema.table` (SQLite's schema is main, MySQL's the database), or a collection. */
export interface RelationRef {
  readonly schema?: string | undefined
  readonly name: string
}

export const qualified = (
  relation: RelationRef
): string => (relation.schema === undefined ? relation.name : `${relation.schema}.${relation.name}`)

const globCache = new Map<string, RegExp>()
const glob = (text: string): RegExp => {
  let compiled = globCache.get(text)
  if (compiled === undefined) {
    compiled = new RegExp(
      `^${text.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`,
      "is"
    )
    globCache.set(text, compiled)
  }
  return compiled
}

/**
 * The parts of a pattern: SQL `table.column` or `schema.table.column`; search `collection.field`, where the field may
 * itself be dotted (`users.address.zip`). `*` matches any run of characters, names compare case-insensitively.
 */
export const patternParts = (
  pattern: string,
  kind: "sql" | "search"
): { schema?: string; table: string; column: string } | undefined => {
  const parts = pattern.split(".")
  if (parts.some((part) => part === "") || parts.length < 2) return undefined
  if (kind === "search") return { table: parts[0]!, column: parts.slice(1).join(".") }
  if (parts.length === 2) return { table: parts[0]!, column: parts[1]! }
  return parts.length === 3 ? { schema: parts[0]!, table: parts[1]!, column: parts[2]! } : undefined
}

/** The rule covering a column: a `hide` rule wins over a `mask` rule; undefined when none matches. */
export const ruleFor = (
  rules: ReadonlyArray<MaskingRuleSpec>,
  relation: RelationRef,
  column: string,
  kind: "sql" | "search" = "sql"
): MaskingRuleSpec | undefined => {
  let found: MaskingRuleSpec | undefined
  for (const rule of rules) {
    const parts = patternParts(rule.pattern, kind)
    if (parts === undefined || !glob(parts.table).test(relation.name) || !glob(parts.column).test(column)) continue
    if (parts.schema !== undefined && (relation.schema === undefined || !glob(parts.schema).test(relation.schema))) {
      continue
    }
    if (rule.action === "hide") return rule
    found ??= rule
  }
  return found
}

/** The marker a masked value shows instead of itself: its type and length, never a character of it (D-65). */
export const maskedCell = (value: unknown): string | null => {
  const cell = toCellValue(value)
  if (cell === null) return null
  if (cell instanceof Uint8Array) return `[masked: binary, ${cell.length} bytes]`
  if (typeof cell === "boolean") return "[masked: boolean]"
  if (typeof cell === "number") return `[masked: number, ${String(cell).length} digits]`
  return `[masked: text, ${utf8Length(cell)} bytes]`
}
