// D-64 on MySQL/MariaDB: the catalog facts for the names a statement uses (information_schema, before the
// statement, in its session), then the answer decided from each field's origin (database, original table and column).
// A derived table or CTE is reported as its own alias, and a view as itself: neither is traced further.
import { type AnswerVerdict, decideAnswer, type OutputSource } from "../../../domain/AnswerGate.ts"
import { type CatalogObject, guardCatalog } from "../../../domain/GuardCatalog.ts"
import { secretCatalogOf } from "../../../domain/TableReference.ts"
import { readingsFor, tokenize } from "../../../domain/SqlLexer.ts"
import type { AnswerGuard } from "../Driver.ts"
import type { Session } from "./MysqlRunner.ts"
import type { FieldOrigin } from "./MysqlSession.ts"

/** Views and routines read views and routines: follow them this deep (then the rest is not looked up). */
const MAX_ROUNDS = 4

/**
 * Four independent reads in one statement: tables, view definitions, columns and routines. Each has equalities on
 * TABLE_NAME and TABLE_SCHEMA (the names, also taken as the schemas they may qualify, and the known databases), so the
 * server reads only those tables' definitions instead of opening every table (a join or a correlated subquery on
 * information_schema defeats that and costs ~90 ms on MariaDB 10.11).
 */
/**
 * An account granted SELECT on every database sees every table in information_schema: nothing a definer reads is
 * hidden from its lookups. (A grant through a role is not counted: the lookup then fails closed.)
 */
const SEES_EVERY_TABLE =
  "EXISTS (SELECT 1 FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = CONCAT('''', REPLACE(CURRENT_USER(), '@', '''@'''), '''') AND PRIVILEGE_TYPE = 'SELECT')"

/**
 * A view or routine that runs with the rights of an account other than this one (SQL SECURITY DEFINER, the default),
 * for an account that cannot see every table: it may read what this account cannot see in information_schema, so the
 * lookup cannot follow it. Its definer, else NULL.
 */
const OTHER_DEFINER =
  `IF(SECURITY_TYPE = 'DEFINER' AND DEFINER <> CURRENT_USER() AND NOT ${SEES_EVERY_TABLE}, DEFINER, NULL)`

const lookupSql = (count: number, schemas: number) => {
  const names = Array.from({ length: count }, () => "?").join(", ")
  const where = `TABLE_NAME IN (${names}) AND TABLE_SCHEMA IN (${
    Array.from({ length: schemas }, () => "?").join(", ")
  })`
  return `SELECT 't' AS part, TABLE_SCHEMA AS db, TABLE_NAME AS name, TABLE_TYPE AS detail, NULL AS body FROM information_schema.TABLES WHERE ${where}
  UNION ALL SELECT 'v', TABLE_SCHEMA, TABLE_NAME, ${OTHER_DEFINER}, VIEW_DEFINITION FROM information_schema.VIEWS WHERE ${where}
  UNION ALL SELECT 'c', TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, NULL FROM information_schema.COLUMNS WHERE ${where}
  UNION ALL SELECT 'f', ROUTINE_SCHEMA, ROUTINE_NAME, ${OTHER_DEFINER}, ROUTINE_DEFINITION FROM information_schema.ROUTINES WHERE LOWER(ROUTINE_NAME) IN (${names})`
}

const namesIn = (text: string): Set<string> => {
  const names = new Set<string>()
  for (const token of tokenize(text, readingsFor("mysql")[0]!)) {
    if (token.kind === "word" || token.kind === "quoted") names.add(token.text)
  }
  return names
}

interface Found {
  readonly key: string
  readonly kind: CatalogObject["kind"]
  readonly schema: string
  readonly name: string
  readonly columns: ReadonlyArray<string>
  readonly uses: ReadonlySet<string>
  /**
   * Why what it reads cannot be told, or undefined: a definition that came back empty (the account lacks SHOW VIEW, or
   * may not read the routine's body), or a definer's rights other than this account's.
   */
  readonly opaque: string | undefined
}

/** Why what a view or routine reads cannot be told, and what the user can change about it; undefined when it can be. */
const opaqueReason = (part: string, what: string, definer: unknown, body: unknown): string | undefined => {
  const open =
    "or open the connection's AI settings (secretCatalogs, masking rules) if AI clients may read everything it can"
  if (part === "v" && String(body ?? "").trim() === "") {
    return `the view ${what} has a definition this account may not read (the user can grant it SHOW VIEW, ${open})`
  }
  if (part === "f" && body === null) {
    return `the routine ${what}() has a body this account may not read (the user can let it read routine bodies, ${open})`
  }
  if (definer !== null && definer !== undefined) {
    return `the ${part === "f" ? "routine" : "view"} ${what} runs with the rights of its definer ${
      String(definer)
    }, which may read what this account cannot see (the user can have it redefined with SQL SECURITY INVOKER, ${open})`
  }
  return undefined
}

export interface MysqlGuardDecision {
  readonly decide: (fields: ReadonlyArray<FieldOrigin>) => AnswerVerdict
  readonly readsGuarded: boolean
}

/** Looks up the statement's names (and, round by round, those of the views and routines found), then decides. */
export const mysqlGuard = async (
  session: Session,
  guard: AnswerGuard,
  database: string | undefined
): Promise<MysqlGuardDecision> => {
  const found = new Map<string, Found>()
  const asked = new Set<string>()
  /** The current database and those of the views and routines found: their bodies' unqualified names live there. */
  const known = new Set<string>(database === undefined ? [] : [database])
  const usesName = (uses: ReadonlySet<string>, name: string) =>
    uses.has(name) || [...uses].some((used) => used.toLowerCase() === name.toLowerCase())
  // Exact names for TABLES (MariaDB reads only the tables an equality names; LOWER() would open every table).
  let pending = [...new Set(guard.facts.names)]
  for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
    pending.forEach((name) => asked.add(name))
    const schemas = [...new Set([...pending, ...known])]
    const where = [...pending, ...schemas]
    const { rows } = await session.query(lookupSql(pending.length, schemas.length), [
      ...where,
      ...where,
      ...where,
      ...pending.map((name) => name.toLowerCase())
    ])
    const next = new Set<string>()
    const parts = rows as ReadonlyArray<readonly [string, unknown, unknown, unknown, unknown]>
    const keyOf = (part: string, db: unknown, name: unknown) =>
      `${part === "f" ? "f:" : ""}${String(db)}.${String(name)}`
    const views = new Map(
      parts.filter(([part]) => part === "v").map(([, db, name, definer, body]) =>
        [keyOf("t", db, name), { definer, body }] as const
      )
    )
    for (const [part, db, name, detail, body] of parts) {
      if (part !== "t" && part !== "f") continue
      const key = keyOf(part, db, name)
      if (found.has(key)) continue
      const view = views.get(key)
      const text = part === "f" ? String(body ?? "") : String(view?.body ?? "")
      const uses = namesIn(text)
      const kind = part === "f" ? "routine" : detail === "VIEW" || detail === "SYSTEM VIEW" ? "view" : "table"
      const what = `${String(db)}.${String(name)}`
      found.set(key, {
        key,
        kind,
        opaque: part === "f"
          ? opaqueReason("f", what, detail, body)
          : detail === "VIEW"
          ? opaqueReason("v", what, view?.definer, view?.body)
          : undefined,
        schema: String(db),
        name: String(name),
        columns: parts.filter(([other, otherDb, otherName]) => other === "c" && otherDb === db && otherName === name)
          .map(([, , , column]) => String(column)),
        uses
      })
      known.add(String(db))
      for (const used of uses) if (!asked.has(used)) next.add(used)
    }
    pending = [...next]
  }
  const entries = [...found.values()]
  const objects = entries.map((entry): CatalogObject => ({
    key: entry.key,
    relation: { schema: entry.schema, name: entry.name },
    kind: entry.kind,
    columns: entry.columns,
    reads: entries.filter((other) => other.key !== entry.key && usesName(entry.uses, other.name)).map((other) => ({
      key: other.key
    })),
    secret: secretCatalogOf("mysql", entry),
    runsText: entry.opaque !== undefined,
    opaque: entry.opaque
  }))
  const named = new Set(guard.facts.names.map((name) => name.toLowerCase()))
  const catalog = guardCatalog(
    objects,
    entries.filter((entry) => named.has(entry.name.toLowerCase())).map((entry) => entry.key),
    guard.policy,
    guard.facts.compound
  )
  const local = new Set(guard.facts.local)

  const sourceOf = (field: FieldOrigin): OutputSource => {
    if (field.orgTable === "" || field.orgName === "" || local.has(field.orgTable.toLowerCase())) {
      return { kind: "untraced" }
    }
    const schema = field.db === "" ? database : field.db
    const candidates = entries.filter((entry) =>
      entry.kind !== "routine" && entry.name === field.orgTable && (schema === undefined || entry.schema === schema)
    )
    const entry = candidates.length === 1 ? candidates[0]! : undefined
    if (entry === undefined) return { kind: "untraced" }
    const reached = catalog.reached(entry.key)
    if (reached.secret !== undefined || reached.ruled !== undefined) return { kind: "untraced" }
    return { kind: "column", relation: { schema: entry.schema, name: entry.name }, column: field.orgName }
  }

  const reads = catalog.reads
  return {
    decide: (fields) =>
      decideAnswer(fields.map((field) => ({ name: field.name, source: sourceOf(field) })), reads, guard.policy),
    readsGuarded: reads.ruled.length > 0 || (guard.policy.secretCatalogs === "closed" && reads.secret.length > 0)
  }
}
