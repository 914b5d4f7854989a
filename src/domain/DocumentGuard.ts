import type { AppliedRule } from "./AnswerGate.ts"
import { maskedCell, type MaskingAction, type MaskingRuleSpec, ruleFor } from "./ColumnGuard.ts"

/**
 * D-65 on search connections: the same masking rules on document fields, `collection.field` with dotted
 * paths for nested fields (`users.address.zip`). A rule on an object field covers everything under it; arrays of
 * objects are walked with the same path (Typesense's flattening). Returns a new document; the input is untouched.
 */
export const guardDocument = (
  document: Record<string, unknown>,
  collection: string,
  rules: ReadonlyArray<MaskingRuleSpec>,
  applied: Array<AppliedRule> = []
): Record<string, unknown> => {
  const note = (action: MaskingAction, path: string, rule: MaskingRuleSpec) => {
    if (!applied.some((entry) => entry.column === `${collection}.${path}` && entry.action === action)) {
      applied.push({ action, column: `${collection}.${path}`, rule: rule.pattern })
    }
  }
  const walk = (value: unknown, path: string): { readonly keep: boolean; readonly value: unknown } => {
    const rule = path === "" ? undefined : ruleFor(rules, { name: collection }, path, "search")
    if (rule !== undefined) {
      note(rule.action, path, rule)
      return rule.action === "hide" ? { keep: false, value: undefined } : { keep: true, value: maskedCell(value) }
    }
    if (Array.isArray(value)) return { keep: true, value: value.map((element) => walk(element, path).value ?? null) }
    if (typeof value !== "object" || value === null) return { keep: true, value }
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) {
      const guarded = walk(child, path === "" ? key : `${path}.${key}`)
      if (guarded.keep) {
        Object.defineProperty(out, key, { value: guarded.value, enumerable: true, writable: true, configurable: true })
      }
    }
    return { keep: true, value: out }
  }
  return walk(document, "").value as Record<string, unknown>
}

/** The actions on a grid's (flattened, dotted) columns of one collection. */
export const columnActions = (
  columns: ReadonlyArray<string>,
  collection: string,
  rules: ReadonlyArray<MaskingRuleSpec>,
  applied: Array<AppliedRule> = []
) =>
  columns.map((column) => {
    const rule = ruleFor(rules, { name: collection }, column, "search")
    if (rule === undefined) return "keep" as const
    applied.push({ action: rule.action, column: `${collection}.${column}`, rule: rule.pattern })
    return rule.action
  })
