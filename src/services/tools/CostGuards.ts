import { Effect } from "effect"
import type { ApprovalPreview } from "../../domain/ApprovalPreview.ts"
import type { Connection } from "../../domain/Connection.ts"
import { COST_ADVICE, type CostBudget, overBudget, planKind } from "../../domain/CostGuard.ts"
import type { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { toolFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import type { Namespace } from "../drivers/Driver.ts"
import type { Drivers } from "../Drivers.ts"
import { mapDriverFailure } from "./DriverFailures.ts"

/** A read over the connection's budget: the estimate shown with the question, and the refusal when the setting refuses. */
export interface OverBudget {
  readonly preview: Extract<ApprovalPreview, { readonly _tag: "Estimate" }>
  readonly refusal: ToolFailure
}

const NOTHING_RAN = "Nothing ran"

const overWith = (preview: OverBudget["preview"], why: string): OverBudget => ({
  preview,
  refusal: toolFailure(
    "denied",
    `${why}. ${NOTHING_RAN}: to read less, ${COST_ADVICE}; or ask the user to raise or turn off the cost guard in the connection's settings`
  )
})

/** Fail closed (D-95): a read the planner cannot estimate is treated as over budget. */
const unestimated = (reason: string): OverBudget =>
  overWith(
    { _tag: "Estimate", rows: 0, node: "", over: [`no estimate: ${reason}`] },
    `this connection's cost guard needs the planner's estimate before a read, and there is none: ${reason}`
  )

/**
 * D-95: the planner's estimate of a safe statement (EXPLAIN, never ANALYZE; nothing runs) against the connection's
 * budget; undefined when it is within, or the statement is a catalog read the guard lets pass. A statement the
 * database cannot plan fails with the database's own message, as running it would.
 */
export const checkCost = (
  drivers: Drivers,
  connection: Connection,
  statement: string,
  budget: CostBudget,
  options: { readonly seconds: number } & Namespace
): Effect.Effect<OverBudget | undefined, ToolFailure | ProtocolError> =>
  Effect.gen(function*() {
    const kind = planKind(statement)
    if (kind === "exempt") return undefined
    if (kind === "unknown") {
      return unestimated(
        "the planner estimates SELECT, WITH, TABLE and VALUES queries only, and prefixing EXPLAIN to this statement could run it"
      )
    }
    const driver = yield* mapDriverFailure(drivers.forConnection(connection))
    if (driver.estimate === undefined) return unestimated("this database gives no estimate")
    const reading = yield* mapDriverFailure(driver.estimate(statement, options)).pipe(
      Effect.mapError((error) =>
        error._tag === "ToolFailure" && error.code === "query_failed"
          ? toolFailure("query_failed", `${error.detail} (the planner's check before the read; nothing ran)`)
          : error
      )
    )
    if (!reading.ok) return unestimated(`dbdesk could not read the planner's estimate (${reading.reason})`)
    const over = overBudget(reading.estimate, budget)
    if (over.length === 0) return undefined
    const preview: OverBudget["preview"] = {
      _tag: "Estimate",
      rows: reading.estimate.rows,
      ...(reading.estimate.cost === undefined ? {} : { cost: reading.estimate.cost }),
      node: reading.estimate.node,
      over
    }
    return overWith(
      preview,
      `the planner estimates ${
        over.join(" and ")
      } for this read, over this connection's cost budget; the plan starts with ${reading.estimate.node}`
    )
  })
