import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { costBudgetOf, overBudget, planKind, readMysqlPlan, readPostgresPlan } from "../../src/domain/CostGuard.ts"

// D-95, D-96: the plan shapes the estimate is read from, and the statements the guard estimates.

const pgPlan = (plan: Record<string, unknown>) => [{ Plan: plan }]
const seq = {
  "Node Type": "Seq Scan",
  "Relation Name": "big",
  "Startup Cost": 0,
  "Total Cost": 3667,
  "Plan Rows": 200000
}

describe("reading PostgreSQL's EXPLAIN (FORMAT JSON)", () => {
  it.each([
    ["a scan, parsed", pgPlan(seq), { rows: 200000, cost: 3667, node: "Seq Scan on big" }],
    ["a scan, as the json column's text", JSON.stringify(pgPlan(seq)), {
      rows: 200000,
      cost: 3667,
      node: "Seq Scan on big"
    }],
    [
      "an aggregate over a scan names what it reads",
      pgPlan({ "Node Type": "Aggregate", "Total Cost": 4167.01, "Plan Rows": 1, Plans: [seq] }),
      { rows: 1, cost: 4167.01, node: "Aggregate, over Seq Scan on big" }
    ],
    [
      "a join two levels down",
      pgPlan({
        "Node Type": "Hash Join",
        "Total Cost": 18836,
        "Plan Rows": 200000,
        Plans: [{ "Node Type": "Hash", Plans: [seq] }]
      }),
      { rows: 200000, cost: 18836, node: "Hash Join, over Seq Scan on big" }
    ],
    ["no relation at all", pgPlan({ "Node Type": "Result", "Total Cost": 0.01, "Plan Rows": 1 }), {
      rows: 1,
      cost: 0.01,
      node: "Result"
    }]
  ])("D-96: %s", (_, output, estimate) => {
    expect(readPostgresPlan(output)).toEqual({ ok: true, estimate })
  })

  it.each([
    ["not JSON", "QUERY PLAN"],
    ["no top node", []],
    ["a top node without rows", pgPlan({ "Node Type": "Seq Scan", "Total Cost": 1 })],
    ["a negative estimate", pgPlan({ ...seq, "Plan Rows": -1 })],
    ["nothing", undefined]
  ])("D-96: %s is a plan dbdesk cannot read (the guard then fails closed)", (_, output) => {
    expect(readPostgresPlan(output).ok).toBe(false)
  })
})

const COLUMNS = ["id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref", "rows", "Extra"]
const row = (
  id: number | null,
  table: string | null,
  type: string | null,
  rows: number | string | null
) => [id, "SIMPLE", table, type, null, null, null, null, rows, ""]

describe("reading MySQL/MariaDB's classic EXPLAIN", () => {
  it.each([
    ["one table", [row(1, "big", "ALL", 99964)], 99964, "ALL scan of big"],
    ["a join multiplies", [row(1, "b1", "ALL", 1000), row(1, "b2", "ref", 5)], 5000, "ALL scan of b1"],
    [
      "a derived table adds its own select",
      [row(1, "<derived2>", "ALL", 100), row(2, "big", "ALL", 100)],
      200,
      "ALL scan of <derived2>"
    ],
    [
      "a UNION's result row reads nothing",
      [row(1, "a", "ALL", 10), row(2, "b", "ALL", 20), row(null, "<union1,2>", "ALL", null)],
      30,
      "ALL scan of a"
    ],
    ["no tables used", [row(1, null, null, null)], 0, "no table read"],
    ["rows as text (MySQL 8 sends strings)", [row(1, "t", "range", "42")], 42, "range scan of t"]
  ])("D-96: %s", (_, rows, estimated, node) => {
    expect(readMysqlPlan(COLUMNS, rows)).toEqual({ ok: true, estimate: { rows: estimated, node } })
  })

  it("D-96: a plan without a rows column, without rows, or with a rows value that is no number cannot be read", () => {
    expect(readMysqlPlan(["id", "table"], [[1, "t"]]).ok).toBe(false)
    expect(readMysqlPlan(COLUMNS, []).ok).toBe(false)
    expect(readMysqlPlan(COLUMNS, [row(1, "t", "ALL", "many")]).ok).toBe(false)
  })

  it.prop(
    "D-96: the estimate is the sum over selects of the product of their tables' rows, whatever the row order",
    [fc.array(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 4 }), {
      minLength: 1,
      maxLength: 4
    })],
    ([selects]) => {
      const rows = selects.flatMap((tables, index) =>
        tables.map((count, table) => row(index + 1, `t${index}_${table}`, "ALL", count))
      )
      const expected = selects.reduce((sum, tables) => sum + tables.reduce((product, count) => product * count, 1), 0)
      const reversed = readMysqlPlan(COLUMNS, [...rows].reverse())
      expect(readMysqlPlan(COLUMNS, rows)).toMatchObject({ ok: true, estimate: { rows: expected } })
      expect(reversed).toMatchObject({ ok: true, estimate: { rows: expected } })
    }
  )
})

describe("which statements are estimated", () => {
  it.each([
    ["SELECT * FROM t", "estimate"],
    ["  -- note\n/* c */ with x as (select 1) select * from x", "estimate"],
    ["(SELECT 1) UNION (SELECT 2)", "estimate"],
    ["TABLE t", "estimate"],
    ["VALUES (1)", "estimate"],
    ["SHOW TABLES", "exempt"],
    ["DESCRIBE t", "exempt"],
    ["EXPLAIN SELECT * FROM t", "exempt"],
    ["EXPLAIN ANALYZE SELECT * FROM t", "unknown"],
    ["EXPLAIN (ANALYZE, FORMAT JSON) SELECT 1", "unknown"],
    ["DESC ANALYZE SELECT 1", "unknown"],
    ["/*!50000 SELECT 1 */", "unknown"],
    ["ANALYZE SELECT * FROM t", "unknown"],
    ["", "unknown"]
  ])("D-95: %j is %s", (sql, kind) => {
    expect(planKind(sql)).toBe(kind)
  })
})

describe("budgets", () => {
  it("D-95: off unless set; SQLite and search connections are never guarded; MySQL has no cost budget", () => {
    expect(costBudgetOf({ type: "postgresql" })).toBeUndefined()
    expect(costBudgetOf({ type: "postgresql", costGuard: "off", costMaxRows: 5 })).toBeUndefined()
    expect(costBudgetOf({ type: "sqlite", costGuard: "refuse", costMaxRows: 1 })).toBeUndefined()
    expect(costBudgetOf({ type: "search", costGuard: "ask" })).toBeUndefined()
    expect(costBudgetOf({ type: "postgresql", costGuard: "ask" })).toEqual({
      mode: "ask",
      maxRows: 1_000_000,
      maxCost: 1_000_000
    })
    expect(costBudgetOf({ type: "mysql", costGuard: "refuse", costMaxRows: 10 })).toEqual({
      mode: "refuse",
      maxRows: 10
    })
  })

  it("D-95: each budget exceeded is named with the estimate; an estimate at the budget is within it", () => {
    const budget = { mode: "refuse" as const, maxRows: 1000, maxCost: 500 }
    expect(overBudget({ rows: 1000, cost: 500, node: "x" }, budget)).toEqual([])
    expect(overBudget({ rows: 1001, cost: 499.6, node: "x" }, budget)).toEqual(["1,001 rows (budget 1,000)"])
    expect(overBudget({ rows: 2, cost: 12345.6, node: "x" }, budget)).toEqual(["a cost of 12,346 (budget 500)"])
    expect(overBudget({ rows: 5000, node: "x" }, { mode: "ask", maxRows: 1000 })).toEqual(["5,000 rows (budget 1,000)"])
  })
})
