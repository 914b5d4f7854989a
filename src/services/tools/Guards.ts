import { Effect } from "effect"
import { POLICY_NOTE } from "../../domain/Activity.ts"
import { secretRefusal } from "../../domain/AnswerGate.ts"
import { guardsAnything } from "../../domain/ColumnGuard.ts"
import type { Connection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import { statementGate } from "../../domain/StatementGate.ts"
import { type ResolvedRelation, secretCatalogOf } from "../../domain/TableReference.ts"
import { policyFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import type {
  AnswerGuard,
  DatabaseDriver,
  GuardedResultSet,
  Namespace,
  ReachFailure,
  TableNotFound
} from "../drivers/Driver.ts"
import { toolResultOfJson } from "./Tool.ts"
import { guardPolicyOf } from "../policy/StatementPolicy.ts"
import { dialectOf } from "./StatementGates.ts"

export { dialectOf } from "./StatementGates.ts"

/**
 * D-64: the AI settings of a connection applied to an MCP call, before it runs (the statement's text, a table
 * argument) and where its answer is built (the driver, given the guard). The UI never goes through here.
 */
export { guardPolicyOf } from "../policy/StatementPolicy.ts"

/** The database a MySQL statement's unqualified names are in. */
const currentDatabase = (connection: Connection, namespace: Namespace | undefined) =>
  namespace?.database ?? (connection.type === "mysql" ? connection.database : undefined)

/** The statement gate: refused with the rule and setting, or the guard the driver decides the answer with. */
export const gateStatement = (
  sql: string,
  connection: Connection,
  namespace?: Namespace
): Effect.Effect<AnswerGuard | undefined, ToolFailure> => {
  const policy = guardPolicyOf(connection)
  if (!guardsAnything(policy)) return Effect.succeed(undefined)
  const verdict = statementGate(sql, dialectOf(connection), policy, currentDatabase(connection, namespace))
  return verdict.kind === "refuse"
    ? Effect.fail(policyFailure(verdict.refusal))
    : Effect.succeed({ policy, facts: verdict.facts })
}

/**
 * Where a structured tool's table argument leads: the object the database reads, resolved once by the driver with the
 * readings every table-taking call uses (`tableReadings`), and the arguments that make the call read exactly it.
 */
export interface TableTarget {
  readonly table: string
  readonly namespace: Namespace | undefined
}

/** The arguments that name exactly a resolved object (its stored name, in its schema or database). */
const exactTarget = (
  connection: Connection,
  relation: ResolvedRelation,
  namespace: Namespace | undefined
): TableTarget => {
  if (connection.type === "mysql") {
    return { table: relation.name, namespace: { database: relation.schema, exact: true } }
  }
  if (connection.type === "postgresql") {
    return { table: relation.name, namespace: { database: namespace?.database, schema: relation.schema, exact: true } }
  }
  return { table: relation.name, namespace: { ...namespace, exact: true } }
}

/**
 * The table gate of every path that takes a table (tools, resources, prompts): while a guard applies, the driver
 * resolves the argument to the object it names, a secret catalog is refused whatever spelling reached it, and the call
 * is then made for that object exactly. Without a guard the argument goes to the driver as given.
 */
export const resolveTarget = (
  driver: DatabaseDriver,
  connection: Connection,
  table: string,
  namespace?: Namespace
): Effect.Effect<TableTarget, ToolFailure | ReachFailure | TableNotFound> => {
  if (connection.type === "search" || !guardsAnything(guardPolicyOf(connection))) {
    return Effect.succeed({ table, namespace })
  }
  return Effect.flatMap(driver.resolveTable(table, namespace), (relation) => {
    const catalog = connection.secretCatalogs === "closed"
      ? secretCatalogOf(dialectOf(connection), relation)
      : undefined
    return catalog === undefined
      ? Effect.succeed(exactTarget(connection, relation, namespace))
      : Effect.fail(policyFailure(secretRefusal(catalog)))
  })
}

/**
 * Whether a listing (list_tables, search_schema, resources, completion) may show a table: secret catalogs are left
 * out. A listed name is a stored one: bare inside the schema or database asked for (PostgreSQL's `public` without
 * one), else `schema.name`.
 */
export const listable = (connection: Connection, namespace?: Namespace) => (table: string): boolean => {
  if (connection.type === "search" || connection.secretCatalogs !== "closed") return true
  const dialect = dialectOf(connection)
  const dot = table.indexOf(".")
  const relation = dialect === "mysql"
    ? { schema: currentDatabase(connection, namespace) ?? "", name: table }
    : namespace?.schema !== undefined || dot < 0
    ? { schema: namespace?.schema ?? (dialect === "sqlite" ? "main" : "public"), name: table }
    : { schema: table.slice(0, dot), name: table.slice(dot + 1) }
  return secretCatalogOf(dialect, relation) === undefined
}

/** The guard of browse_table: the one object it reads, resolved by the table gate. */
export const tableGuard = (connection: Connection, target: TableTarget): AnswerGuard | undefined =>
  guardsAnything(guardPolicyOf(connection))
    ? { policy: guardPolicyOf(connection), facts: { names: [target.table], compound: false, local: [] } }
    : undefined

/**
 * The guard of count_rows: secret catalogs only (a count is computed, so masking rules would refuse every count of a
 * table they cover; a count reveals no value of a column). It refuses a count of a view or function that reads a secret
 * catalog, whose filters would otherwise tell the secret's values apart.
 */
export const countGuard = (connection: Connection, target: TableTarget): AnswerGuard | undefined => {
  const policy = guardPolicyOf(connection)
  return policy.secretCatalogs === "closed"
    ? { policy: { rules: [], secretCatalogs: "closed" }, facts: { names: [target.table], compound: false, local: [] } }
    : undefined
}

/** A guarded answer's tool result; the masking rules applied are noted for the activity log, never sent. */
export const guardedResult = (
  guarded: GuardedResultSet | { readonly applied?: GuardedResultSet["applied"] }
): JsonObject => {
  const { applied, ...answer } = guarded
  const json = JSON.stringify(answer)
  const result = toolResultOfJson(json, JSON.parse(json) as JsonObject)
  if (applied === undefined || applied.length === 0) return result
  return Object.assign(result, {
    [POLICY_NOTE]: applied.map((entry) =>
      `${entry.action === "mask" ? "masked" : "hidden"} ${entry.column} (rule ${entry.rule})`
    ).join("; ")
  })
}
