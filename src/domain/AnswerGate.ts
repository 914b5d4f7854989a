import {
  type GuardPolicy,
  type MaskingAction,
  type MaskingRuleSpec,
  qualified,
  type RelationRef,
  ruleFor
} from "./ColumnGuard.ts"
import type { ResultSet } from "./ResultSet.ts"
import type { SecretCatalog } from "./SecretCatalogs.ts"

/**
 * D-64: the decisions on one answer, as pure functions (the drivers call them where answers are built; the policy
 * explainer of D-70 can call them to report the same gates). Import-free beyond the domain, for the SQLite child.
 */

/** Where an output column's values come from, as the driver's metadata says. */
export type OutputSource =
  | { readonly kind: "column"; readonly relation: RelationRef; readonly column: string }
  /** An expression, a column of a view or routine built on guarded data, or an origin the driver cannot resolve. */
  | { readonly kind: "untraced" }

/** What the statement reads that a guard covers, directly or through views and routines. */
export interface StatementReads {
  readonly secret: ReadonlyArray<SecretCatalog>
  readonly ruled: ReadonlyArray<{ readonly relation: string; readonly rule: MaskingRuleSpec }>
  /** A set operation (UNION, INTERSECT, EXCEPT): engines report the origins of one branch only, so none is trusted. */
  readonly compound: boolean
  /** Routines called that run SQL text: what they read cannot be checked. */
  readonly runsText?: ReadonlyArray<string> | undefined
}

export const NO_READS: StatementReads = { secret: [], ruled: [], compound: false }

export interface Refusal {
  readonly gate: "secret_catalog" | "untraceable"
  /** The secret catalog, or the masking rule's pattern. */
  readonly rule: string
  /** The connection setting that controls the gate. */
  readonly setting: "secretCatalogs" | "maskingRules"
  readonly message: string
}

export interface AppliedRule {
  readonly action: MaskingAction
  readonly column: string
  readonly rule: string
}

export type AnswerVerdict =
  | {
    readonly kind: "answer"
    readonly actions: ReadonlyArray<"keep" | MaskingAction>
    readonly applied: ReadonlyArray<AppliedRule>
  }
  | { readonly kind: "refuse"; readonly refusal: Refusal }

/** `named`: the credential column or statement the text names, when it is not the catalog itself. */
export const secretRefusal = (catalog: SecretCatalog, named?: string): Refusal => ({
  gate: "secret_catalog",
  rule: `${catalog.schema}.${catalog.name}`,
  setting: "secretCatalogs",
  message: `this ${named === undefined ? "reads" : `names ${named} (of`} ${catalog.schema}.${catalog.name}${
    named === undefined ? "" : ")"
  }, a secret catalog (${catalog.holds}) closed to AI clients by the connection's AI setting secretCatalogs ("closed"); it is the user's policy: do not work around it, ask the user instead`
})

export const untraceableRefusal = (what: string, relation: string, rule: MaskingRuleSpec): Refusal => ({
  gate: "untraceable",
  rule: rule.pattern,
  setting: "maskingRules",
  message:
    `${what}, so dbdesk cannot tell whether it carries values of ${relation}, which the masking rule "${rule.pattern}" (${rule.action}) in the connection's AI settings protects; select the table's columns directly (protected values show ${
      rule.action === "mask" ? "as markers" : "as absent"
    }) or use count_rows, or ask the user to change the rule`
})

/**
 * What reads what dbdesk cannot check while a guard applies: a function that runs SQL text (a built-in such as
 * query_to_xml, a routine with dynamic SQL), or a view whose definition the account may not read. `subject` says which.
 */
export const textRefusal = (subject: string, policy: GuardPolicy): Refusal => ({
  gate: policy.secretCatalogs === "closed" ? "secret_catalog" : "untraceable",
  rule: subject.split(" ")[0]!,
  setting: policy.secretCatalogs === "closed" ? "secretCatalogs" : "maskingRules",
  message: `${subject}, so dbdesk cannot check what it reads before it runs, and the connection's AI settings (${
    policy.secretCatalogs === "closed" ? "secretCatalogs \"closed\"" : "masking rules"
  }) require every read to be checked; write the query itself instead`
})

/**
 * The verdict on an answer (D-64, D-65): any secret catalog read → refused; a column that cannot be traced
 * to its origin while the statement reads a relation with masking rules → refused, with the reason; otherwise each
 * traced column is kept, masked or hidden by the first matching rule (a `hide` rule wins).
 */
export const decideAnswer = (
  columns: ReadonlyArray<{ readonly name: string; readonly source: OutputSource }>,
  reads: StatementReads,
  policy: GuardPolicy,
  kind: "sql" | "search" = "sql"
): AnswerVerdict => {
  const secret = policy.secretCatalogs === "closed" ? reads.secret[0] : undefined
  if (secret !== undefined) return { kind: "refuse", refusal: secretRefusal(secret) }
  const routine = reads.runsText?.[0]
  if (routine !== undefined && (policy.secretCatalogs === "closed" || policy.rules.length > 0)) {
    return { kind: "refuse", refusal: textRefusal(routine, policy) }
  }
  const guarded = reads.ruled[0]
  if (guarded !== undefined) {
    const untraced = columns.findIndex((column) => reads.compound || column.source.kind === "untraced")
    if (untraced >= 0) {
      const what = reads.compound
        ? "this statement combines rows with a set operation (UNION, INTERSECT or EXCEPT)"
        : `output column ${untraced + 1} (${
          JSON.stringify(columns[untraced]!.name)
        }) is computed or comes from a view or function`
      return { kind: "refuse", refusal: untraceableRefusal(what, guarded.relation, guarded.rule) }
    }
  }
  const applied: Array<AppliedRule> = []
  const actions = columns.map(({ source }) => {
    if (source.kind !== "column") return "keep" as const
    const rule = ruleFor(policy.rules, source.relation, source.column, kind)
    if (rule === undefined) return "keep" as const
    applied.push({ action: rule.action, column: `${qualified(source.relation)}.${source.column}`, rule: rule.pattern })
    return rule.action
  })
  return { kind: "answer", actions, applied }
}

/** Applies the verdict's actions to one row: hidden columns dropped, masked values replaced by their marker. */
export const projectRow = (
  row: ReadonlyArray<unknown>,
  actions: ReadonlyArray<"keep" | MaskingAction>,
  mask: (value: unknown) => unknown
): Array<unknown> => {
  const out: Array<unknown> = []
  for (let i = 0; i < row.length; i++) {
    const action = actions[i] ?? "keep"
    if (action === "keep") out.push(row[i])
    else if (action === "mask") out.push(mask(row[i]))
  }
  return out
}

export const keptNames = (
  names: ReadonlyArray<string>,
  actions: ReadonlyArray<"keep" | MaskingAction>
): Array<string> => names.filter((_, i) => actions[i] !== "hide")

/** A write whose returned rows are refused: the change happened (it was approved), so its effect is reported. */
export const withheldRows = (resultSet: ResultSet, refusal: Refusal): ResultSet => ({
  ...resultSet,
  columns: [],
  rows: [],
  row_count: 0,
  status_message: `${
    resultSet.status_message ?? `${resultSet.rows_affected} rows affected`
  }; the rows it returned are withheld: ${refusal.message}`
})

/**
 * The text of an error the database raised while reading the rows of a statement that reads guarded data: its own
 * message may quote a value (`invalid input syntax for type integer: "…"`), so only its code is shown.
 */
export const withheldError = (code: string | undefined): string =>
  `the database stopped this statement while reading its rows${
    code === undefined ? "" : ` (error code ${code})`
  }; its message is withheld because it may quote values the connection's AI settings protect (a secret catalog or a masking rule); check the statement against describe_table and try a simpler form`
