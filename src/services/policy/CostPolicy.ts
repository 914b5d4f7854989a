import type { Connection } from "../../domain/Connection.ts"
import { costBudgetOf, planKind } from "../../domain/CostGuard.ts"
import type { StatementTier } from "../../domain/StatementClassifier.ts"
import { toolFailure, type ToolFailure } from "../../domain/ToolErrors.ts"

/** The cost guard's verdict, in the statement policy's shape (a gate of it). */
export type CostVerdict =
  | { readonly kind: "pass" | "ask" | "skip"; readonly detail: string }
  | { readonly kind: "refuse"; readonly detail: string; readonly error: ToolFailure }

const whole = (value: number) => value.toLocaleString("en-US")

/**
 * D-95: the cost guard as far as it is known without the database (the explainer runs nothing): whether the planner
 * is asked, the budget and what happens above it. The estimate itself is taken when the statement runs.
 */
export const costVerdict = (connection: Connection, statement: string, tier: StatementTier): CostVerdict => {
  if (connection.type === "search" || connection.type === "sqlite") {
    return {
      kind: "skip",
      detail: `a ${connection.type === "sqlite" ? "SQLite" : "search"} connection has no planner estimate to compare`
    }
  }
  if (tier !== "safe") return { kind: "skip", detail: "only reads are estimated; a change is asked about as a write" }
  const budget = costBudgetOf(connection)
  if (budget === undefined) return { kind: "skip", detail: "the cost guard is off for this connection" }
  const above = budget.mode === "ask"
    ? "you are asked to approve it, with the estimate shown"
    : "it is refused with advice (a WHERE, an index, a LIMIT)"
  const kind = planKind(statement)
  if (kind === "exempt") {
    return {
      kind: "pass",
      detail: "SHOW, DESCRIBE and EXPLAIN without ANALYZE read the catalog or a plan: not estimated"
    }
  }
  if (kind === "unknown") {
    const why =
      "the planner estimates SELECT, WITH, TABLE and VALUES queries only, so this statement has no estimate and counts as over the budget"
    return budget.mode === "ask"
      ? { kind: "ask", detail: `${why}: ${above}` }
      : {
        kind: "refuse",
        detail: `${why}: ${above}`,
        error: toolFailure(
          "denied",
          `this connection's cost guard needs the planner's estimate before a read, and ${why}`
        )
      }
  }
  const limits = `${whole(budget.maxRows)} estimated rows${
    budget.maxCost === undefined ? "" : ` and an estimated cost of ${whole(budget.maxCost)}`
  }`
  return {
    kind: "pass",
    detail:
      `checked as it runs: the planner's estimate (EXPLAIN, which runs nothing) must stay within ${limits}; above that ${above}`
  }
}
