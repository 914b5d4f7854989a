import type { StatementReads } from "./AnswerGate.ts"
import { type GuardPolicy, type MaskingRuleSpec, qualified, type RelationRef, ruleFor } from "./ColumnGuard.ts"
import type { SecretCatalog } from "./SecretCatalogs.ts"

/**
 * D-64: what a statement reads, from the catalog facts a driver looked up for the names in it: relations (tables,
 * views) and routines, each with what it reads in turn (a view's relations, a routine's). Pure, so every driver and
 * the policy explainer share it.
 */
export interface CatalogEdge {
  readonly key: string
  /** The columns used, when the catalog records them (PostgreSQL's pg_depend); absent: the whole relation. */
  readonly columns?: ReadonlyArray<string> | undefined
}

export interface CatalogObject {
  /** Unique within one lookup (PostgreSQL: kind and OID; MySQL and SQLite: schema.name). */
  readonly key: string
  readonly relation: RelationRef
  readonly kind: "table" | "view" | "routine"
  readonly columns: ReadonlyArray<string>
  /** What a view or routine reads (only objects found in the lookup). */
  readonly reads: ReadonlyArray<CatalogEdge>
  readonly secret?: SecretCatalog | undefined
  /**
   * What it reads cannot be known: a routine that runs SQL text (PL/pgSQL EXECUTE, another procedural language), or a
   * view whose definition the account may not read (MySQL without SHOW VIEW).
   */
  readonly runsText?: boolean | undefined
  /** Why, in the refusal's words, when it is not the usual reason (a definer's rights, a body the account may not read). */
  readonly opaque?: string | undefined
}

export interface Protection {
  readonly secret?: SecretCatalog | undefined
  readonly ruled?: { readonly relation: string; readonly rule: MaskingRuleSpec } | undefined
  readonly runsText?: string | undefined
}

const merge = (a: Protection, b: Protection): Protection => ({
  secret: a.secret ?? b.secret,
  ruled: a.ruled ?? b.ruled,
  runsText: a.runsText ?? b.runsText
})

/** An object's own protection through `columns` of it (all of them when absent): a secret catalog, or a masking rule. */
const ownProtection = (
  object: CatalogObject,
  policy: GuardPolicy,
  kind: "sql" | "search",
  columns?: ReadonlyArray<string>
): Protection => {
  const secret = policy.secretCatalogs === "closed" ? object.secret : undefined
  if (object.kind === "routine") {
    return {
      secret,
      runsText: object.runsText === true ? object.opaque ?? `${qualified(object.relation)}() runs SQL text` : undefined
    }
  }
  if (object.runsText === true) {
    return {
      secret,
      runsText: object.opaque ?? `the view ${qualified(object.relation)} has a definition this account may not read`
    }
  }
  for (const column of columns ?? object.columns) {
    const rule = ruleFor(policy.rules, object.relation, column, kind)
    if (rule !== undefined) return { secret, ruled: { relation: qualified(object.relation), rule } }
  }
  return { secret }
}

export interface CatalogGuard {
  readonly objects: ReadonlyMap<string, CatalogObject>
  /** What an object reaches through what it reads (not counting itself): its columns cannot be traced past it. */
  readonly reached: (key: string) => Protection
  readonly reads: StatementReads
}

/** `roots`: the objects the statement names (and its columns' origins); everything they read is read too. */
export const guardCatalog = (
  objects: ReadonlyArray<CatalogObject>,
  roots: ReadonlyArray<string>,
  policy: GuardPolicy,
  compound: boolean,
  kind: "sql" | "search" = "sql"
): CatalogGuard => {
  const byKey = new Map(objects.map((object) => [object.key, object] as const))
  // Lookups hold a handful of objects, so no memo: a cycle (routines calling each other) is cut by `seen`.
  const reached = (key: string, seen: ReadonlySet<string>): Protection => {
    let result: Protection = {}
    for (const edge of byKey.get(key)?.reads ?? []) {
      const next = byKey.get(edge.key)
      if (next === undefined || seen.has(edge.key)) continue
      result = merge(
        result,
        merge(ownProtection(next, policy, kind, edge.columns), reached(edge.key, new Set([...seen, edge.key])))
      )
    }
    return result
  }
  const secret: Array<SecretCatalog> = []
  const ruled: Array<NonNullable<Protection["ruled"]>> = []
  const runsText: Array<string> = []
  for (const key of new Set(roots)) {
    const object = byKey.get(key)
    if (object === undefined) continue
    const all = merge(ownProtection(object, policy, kind), reached(key, new Set([key])))
    if (all.secret !== undefined) secret.push(all.secret)
    if (all.ruled !== undefined) ruled.push(all.ruled)
    if (all.runsText !== undefined) runsText.push(all.runsText)
  }
  return {
    objects: byKey,
    reached: (key) => reached(key, new Set([key])),
    reads: { secret, ruled, compound, runsText }
  }
}
