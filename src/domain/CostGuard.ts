import { Schema } from "effect"

/**
 * D-95: the cost guard of a PostgreSQL or MySQL/MariaDB connection. Before a read runs, the planner's estimate
 * (`EXPLAIN`, never `ANALYZE`) is compared with the connection's budgets; above them the call asks the user or is
 * refused, as `costGuard` says. Absent means off.
 */
export const CostGuardMode = Schema.Literal("off", "ask", "refuse").annotations({
  description:
    "Before a read runs, compare the planner's estimate with the budgets: off; ask (the user approves a read over budget); refuse (a read over budget is refused with advice)"
})
export type CostGuardMode = typeof CostGuardMode.Type

/** The budgets used when the guard is on and a budget is not set. */
export const DEFAULT_MAX_ROWS = 1_000_000
export const DEFAULT_MAX_COST = 1_000_000

export const costGuardFields = {
  costGuard: Schema.optionalWith(CostGuardMode, { exact: true }),
  costMaxRows: Schema.optionalWith(
    Schema.Int.pipe(Schema.positive()).annotations({
      description: `Estimated rows a read may reach before the cost guard acts (default ${
        DEFAULT_MAX_ROWS.toLocaleString("en-US")
      })`
    }),
    { exact: true }
  ),
  costMaxCost: Schema.optionalWith(
    Schema.Number.pipe(Schema.positive()).annotations({
      description: `Estimated planner cost a read may reach before the cost guard acts, PostgreSQL only (default ${
        DEFAULT_MAX_COST.toLocaleString("en-US")
      })`
    }),
    { exact: true }
  )
}

export interface CostSettings {
  readonly type: string
  readonly costGuard?: CostGuardMode | undefined
  readonly costMaxRows?: number | undefined
  readonly costMaxCost?: number | undefined
}

export interface CostBudget {
  readonly mode: "ask" | "refuse"
  readonly maxRows: number
  /** Absent on MySQL/MariaDB, whose plans carry no cost that holds across versions (D-96). */
  readonly maxCost?: number
}

/** The connection's budget, or undefined when the guard is off (always on SQLite and search connections, D-95). */
export const costBudgetOf = (connection: CostSettings): CostBudget | undefined => {
  if (connection.type !== "postgresql" && connection.type !== "mysql") return undefined
  const mode = connection.costGuard ?? "off"
  if (mode === "off") return undefined
  const maxRows = connection.costMaxRows ?? DEFAULT_MAX_ROWS
  return connection.type === "postgresql"
    ? { mode, maxRows, maxCost: connection.costMaxCost ?? DEFAULT_MAX_COST }
    : { mode, maxRows }
}

/** What the planner said, read from its plan (D-96). */
export interface PlanEstimate {
  readonly rows: number
  /** PostgreSQL's total cost of the top node; absent on MySQL/MariaDB. */
  readonly cost?: number
  /** The plan's top node in a line, e.g. "Seq Scan on orders" or "ALL scan of orders". */
  readonly node: string
}

/** A plan dbdesk could not read (a shape it does not know): the guard then fails closed. */
export type PlanReading = { readonly ok: true; readonly estimate: PlanEstimate } | {
  readonly ok: false
  readonly reason: string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const finite = (value: unknown): number | undefined => {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value
  return typeof number === "number" && Number.isFinite(number) && number >= 0 ? number : undefined
}

const nodeName = (plan: Record<string, unknown>): string =>
  `${String(plan["Node Type"])}${typeof plan["Relation Name"] === "string" ? ` on ${plan["Relation Name"]}` : ""}`

/** The first node below that reads a relation, depth first ("Seq Scan on orders"): what a Sort or Aggregate reads. */
const firstScan = (plan: Record<string, unknown>): string | undefined => {
  const children = Array.isArray(plan["Plans"]) ? plan["Plans"] : []
  for (const child of children) {
    if (!isObject(child)) continue
    if (typeof child["Relation Name"] === "string") return nodeName(child)
    const below = firstScan(child)
    if (below !== undefined) return below
  }
  return undefined
}

/** PostgreSQL's `EXPLAIN (FORMAT JSON)`: `[{ "Plan": { "Node Type", "Plan Rows", "Total Cost", … } }]`, as text or parsed. */
export const readPostgresPlan = (output: unknown): PlanReading => {
  let value = output
  if (typeof value === "string") {
    try {
      value = JSON.parse(value)
    } catch {
      return { ok: false, reason: "the plan was not JSON" }
    }
  }
  const top = Array.isArray(value) ? value[0] : undefined
  const plan = isObject(top) ? top["Plan"] : undefined
  if (!isObject(plan)) return { ok: false, reason: "the plan had no top node" }
  const rows = finite(plan["Plan Rows"])
  const cost = finite(plan["Total Cost"])
  const type = plan["Node Type"]
  if (rows === undefined || cost === undefined || typeof type !== "string") {
    return { ok: false, reason: "the plan's top node had no row or cost estimate" }
  }
  const scan = plan["Relation Name"] === undefined ? firstScan(plan) : undefined
  return { ok: true, estimate: { rows, cost, node: `${nodeName(plan)}${scan === undefined ? "" : `, over ${scan}`}` } }
}

/**
 * MySQL/MariaDB classic `EXPLAIN` (D-96): the rows each select examines are the product of its tables' `rows` (a
 * nested-loop join reads the inner table once per outer row); a statement's estimate is the sum over its selects
 * (subqueries, derived tables, UNION parts). A row without a table (`No tables used`, a UNION's result) reads nothing.
 */
export const readMysqlPlan = (
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
): PlanReading => {
  const at = (name: string) => columns.findIndex((column) => column.toLowerCase() === name)
  const id = at("id")
  const estimated = at("rows")
  const table = at("table")
  const type = at("type")
  if (id < 0 || estimated < 0 || table < 0) return { ok: false, reason: "the plan had no id, table or rows column" }
  if (rows.length === 0) return { ok: false, reason: "the plan had no rows" }
  const perSelect = new Map<string, number>()
  for (const row of rows) {
    const count = row[estimated]
    if (count === null || count === undefined) continue
    const value = finite(count)
    if (value === undefined) return { ok: false, reason: "a row estimate was not a number" }
    const key = String(row[id] ?? "")
    perSelect.set(key, (perSelect.get(key) ?? 1) * value)
  }
  const total = [...perSelect.values()].reduce((sum, value) => sum + value, 0)
  const first = rows[0]!
  const firstTable = first[table]
  const access = type < 0 ? null : first[type]
  const node = typeof firstTable === "string"
    ? `${typeof access === "string" ? `${access} scan` : "read"} of ${firstTable}`
    : "no table read"
  return { ok: true, estimate: { rows: total, node } }
}

/** Which budgets the estimate exceeds, in words ("2,000,000 rows (budget 1,000,000)"); empty when within. */
export const overBudget = (estimate: PlanEstimate, budget: CostBudget): ReadonlyArray<string> => {
  const over: Array<string> = []
  if (estimate.rows > budget.maxRows) over.push(`${whole(estimate.rows)} rows (budget ${whole(budget.maxRows)})`)
  if (budget.maxCost !== undefined && estimate.cost !== undefined && estimate.cost > budget.maxCost) {
    over.push(`a cost of ${whole(estimate.cost)} (budget ${whole(budget.maxCost)})`)
  }
  return over
}

const whole = (value: number) => Math.round(value).toLocaleString("en-US")

/** The refusal's advice in plain words, naming the estimate and the budget. */
export const COST_ADVICE =
  "add a WHERE that narrows the rows, an index on the columns it filters or joins on, or a LIMIT"

/** How the guard treats a statement (D-95): estimated by the planner, exempt (a catalog read), or not estimable. */
export type PlanKind = "estimate" | "exempt" | "unknown"

const ESTIMATED = new Set(["SELECT", "WITH", "TABLE", "VALUES"])
const CATALOG = new Set(["SHOW", "DESCRIBE", "DESC", "EXPLAIN"])
// Comments are skipped, but an executable comment (MySQL `/*! … */`, `/*M! … */`) is code (D-75).
const LEADING = /^(?:\s|--[^\n]*\n|#[^\n]*\n|\/\*(?!M?!)[\s\S]*?\*\/)*(\(|[A-Za-z]+)/

/**
 * D-95: a query that reads rows (SELECT, WITH, TABLE, VALUES, or one in parentheses) is estimated by prefixing
 * `EXPLAIN`; SHOW, DESCRIBE and EXPLAIN without ANALYZE read the catalog or plan only, and pass; anything else — an
 * EXPLAIN ANALYZE (it runs the statement), a statement behind an executable comment, a verb dbdesk does not plan — has
 * no estimate and is treated as over budget (fail closed), because prefixing EXPLAIN to it could run it.
 */
export const planKind = (sql: string): PlanKind => {
  const match = LEADING.exec(sql)
  const word = match?.[1]?.toUpperCase()
  if (word === undefined) return "unknown"
  if (word === "(" || ESTIMATED.has(word)) return "estimate"
  if (!CATALOG.has(word)) return "unknown"
  // An ANALYZE anywhere after EXPLAIN/DESCRIBE (an option, or a name that reads like one) fails closed.
  return word !== "SHOW" && /\bANALY[SZ]E\b/i.test(sql.slice(match!.index + match![0].length)) ? "unknown" : "exempt"
}
