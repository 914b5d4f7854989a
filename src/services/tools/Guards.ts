import { Effect } from "effect"
import { POLICY_NOTE } from "../../domain/Activity.ts"
import { secretRefusal } from "../../domain/AnswerGate.ts"
import { guardsAnything } from "../../domain/ColumnGuard.ts"
import type { Connection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import { secretCatalogNamed } from "../../domain/SecretCatalogs.ts"
import { statementGate } from "../../domain/StatementGate.ts"
import { policyFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import type { AnswerGuard, GuardedResultSet, Namespace } from "../drivers/Driver.ts"
import { toolResultOfJson } from "./Tool.ts"
import { guardPolicyOf } from "../policy/StatementPolicy.ts"
import { dialectOf } from "./StatementGates.ts"

export { dialectOf } from "./StatementGates.ts"

/**
 * Issue 35: the AI settings of a connection applied to an MCP call, before it runs (the statement's text, a table
 * argument) and where its answer is built (the driver, given the guard). The UI never goes through here.
 */
export { guardPolicyOf } from "../policy/StatementPolicy.ts"

/** The database a MySQL statement's unqualified names are in. */
const currentDatabase = (connection: Connection, namespace: Namespace | undefined) =>
  namespace?.database ?? (connection.type === "mysql" ? connection.database : undefined)

/** The statement gate: refused with the rule and setting, or the guard the driver decides the answer with. */
export const gateStatement = (sql: string, connection: Connection, namespace?: Namespace): Effect.Effect<AnswerGuard | undefined, ToolFailure> => {
  const policy = guardPolicyOf(connection)
  if (!guardsAnything(policy)) return Effect.succeed(undefined)
  const verdict = statementGate(sql, dialectOf(connection), policy, currentDatabase(connection, namespace))
  return verdict.kind === "refuse" ? Effect.fail(policyFailure(verdict.refusal)) : Effect.succeed({ policy, facts: verdict.facts })
}

/** A table argument naming a secret catalog is refused on every path (tools, resources, prompts), whatever the tool. */
export const gateTable = (connection: Connection, table: string, namespace?: Namespace): Effect.Effect<void, ToolFailure> => {
  if (connection.type === "search" || connection.secretCatalogs !== "closed") return Effect.void
  const dialect = dialectOf(connection)
  const catalog = secretCatalogNamed(dialect, table, dialect === "mysql" ? currentDatabase(connection, namespace) : namespace?.schema)
  return catalog === undefined ? Effect.void : Effect.fail(policyFailure(secretRefusal(catalog)))
}

/** Whether a listing (list_tables, search_schema, resources, completion) may show a table: secret catalogs are left out. */
export const listable = (connection: Connection, namespace?: Namespace) => (table: string): boolean =>
  connection.type === "search" || connection.secretCatalogs !== "closed" ||
  secretCatalogNamed(dialectOf(connection), table, connection.type === "mysql" ? currentDatabase(connection, namespace) ?? "" : namespace?.schema ?? "") === undefined

/** The guard of browse_table: the one table it reads, after the table gate. */
export const tableGuard = (connection: Connection, table: string, namespace?: Namespace): Effect.Effect<AnswerGuard | undefined, ToolFailure> =>
  Effect.as(gateTable(connection, table, namespace), guardsAnything(guardPolicyOf(connection))
    ? { policy: guardPolicyOf(connection), facts: { names: [table], compound: false, local: [] } }
    : undefined)

/** A guarded answer's tool result; the masking rules applied are noted for the activity log, never sent. */
export const guardedResult = (guarded: GuardedResultSet | { readonly applied?: GuardedResultSet["applied"] }): JsonObject => {
  const { applied, ...answer } = guarded
  const json = JSON.stringify(answer)
  const result = toolResultOfJson(json, JSON.parse(json) as JsonObject)
  if (applied === undefined || applied.length === 0) return result
  return Object.assign(result, { [POLICY_NOTE]: applied.map((entry) => `${entry.action === "mask" ? "masked" : "hidden"} ${entry.column} (rule ${entry.rule})`).join("; ") })
}
