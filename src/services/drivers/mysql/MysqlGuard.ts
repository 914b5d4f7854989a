// Issue 35 on MySQL/MariaDB: the catalog facts for the names a statement uses (information_schema, before the
// statement, in its session), then the answer decided from each field's origin (database, original table and column).
// A derived table or CTE is reported as its own alias, and a view as itself: neither is traced further.
import { type AnswerVerdict, decideAnswer, type OutputSource } from "../../../domain/AnswerGate.ts"
import { type CatalogObject, guardCatalog } from "../../../domain/GuardCatalog.ts"
import { SECRET_CATALOGS } from "../../../domain/SecretCatalogs.ts"
import { readingsFor, tokenize } from "../../../domain/SqlLexer.ts"
import type { AnswerGuard } from "../Driver.ts"
import type { Session } from "./MysqlRunner.ts"
import type { FieldOrigin } from "./MysqlSession.ts"

/** Views and routines read views and routines: follow them this deep (then the rest is not looked up). */
const MAX_ROUNDS = 4

const lookupSql = (count: number) => {
  const list = Array.from({ length: count }, () => "?").join(", ")
  return `SELECT 'r' AS kind, t.TABLE_SCHEMA AS db, t.TABLE_NAME AS name, t.TABLE_TYPE AS type, v.VIEW_DEFINITION AS body,
      (SELECT JSON_ARRAYAGG(c.COLUMN_NAME) FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME) AS columns
    FROM information_schema.TABLES t LEFT JOIN information_schema.VIEWS v ON v.TABLE_SCHEMA = t.TABLE_SCHEMA AND v.TABLE_NAME = t.TABLE_NAME
    WHERE LOWER(t.TABLE_NAME) IN (${list})
  UNION ALL
  SELECT 'f', ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE, ROUTINE_DEFINITION, NULL FROM information_schema.ROUTINES WHERE LOWER(ROUTINE_NAME) IN (${list})`
}

const namesIn = (text: string): Set<string> => {
  const names = new Set<string>()
  for (const token of tokenize(text, readingsFor("mysql")[0]!)) {
    if (token.kind === "word" || token.kind === "quoted") names.add(token.text.toLowerCase())
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
}

export interface MysqlGuardDecision {
  readonly decide: (fields: ReadonlyArray<FieldOrigin>) => AnswerVerdict
  readonly readsGuarded: boolean
}

/** Looks up the statement's names (and, round by round, those of the views and routines found), then decides. */
export const mysqlGuard = async (session: Session, guard: AnswerGuard, database: string | undefined): Promise<MysqlGuardDecision> => {
  const found = new Map<string, Found>()
  const asked = new Set<string>()
  let pending = [...new Set(guard.facts.names.map((name) => name.toLowerCase()))]
  for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
    pending.forEach((name) => asked.add(name))
    const { rows } = await session.query(lookupSql(pending.length), [...pending, ...pending])
    const next = new Set<string>()
    for (const [kind, db, name, type, body, columns] of rows as ReadonlyArray<ReadonlyArray<unknown>>) {
      const uses = typeof body === "string" ? namesIn(body) : new Set<string>()
      const entry: Found = {
        key: `${kind === "f" ? "f:" : ""}${String(db)}.${String(name)}`,
        kind: kind === "f" ? "routine" : type === "VIEW" || type === "SYSTEM VIEW" ? "view" : "table",
        schema: String(db),
        name: String(name),
        columns: typeof columns === "string" ? JSON.parse(columns) as Array<string> : Array.isArray(columns) ? columns as Array<string> : [],
        uses
      }
      found.set(entry.key, entry)
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
    reads: entries.filter((other) => other.key !== entry.key && entry.uses.has(other.name.toLowerCase())).map((other) => ({ key: other.key })),
    secret: SECRET_CATALOGS.mysql.find((catalog) => catalog.schema === entry.schema.toLowerCase() && catalog.name === entry.name.toLowerCase())
  }))
  const named = new Set(guard.facts.names.map((name) => name.toLowerCase()))
  const catalog = guardCatalog(objects, entries.filter((entry) => named.has(entry.name.toLowerCase())).map((entry) => entry.key), guard.policy, guard.facts.compound)
  const local = new Set(guard.facts.local)

  const sourceOf = (field: FieldOrigin): OutputSource => {
    if (field.orgTable === "" || field.orgName === "" || local.has(field.orgTable.toLowerCase())) return { kind: "untraced" }
    const schema = field.db === "" ? database : field.db
    const candidates = entries.filter((entry) => entry.kind !== "routine" && entry.name === field.orgTable && (schema === undefined || entry.schema === schema))
    const entry = candidates.length === 1 ? candidates[0]! : undefined
    if (entry === undefined) return { kind: "untraced" }
    const reached = catalog.reached(entry.key)
    if (reached.secret !== undefined || reached.ruled !== undefined) return { kind: "untraced" }
    return { kind: "column", relation: { schema: entry.schema, name: entry.name }, column: field.orgName }
  }

  const reads = catalog.reads
  return {
    decide: (fields) => decideAnswer(fields.map((field) => ({ name: field.name, source: sourceOf(field) })), reads, guard.policy),
    readsGuarded: reads.ruled.length > 0 || (guard.policy.secretCatalogs === "closed" && reads.secret.length > 0)
  }
}
