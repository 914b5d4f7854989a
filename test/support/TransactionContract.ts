import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { stringLiteral } from "../../src/domain/SqlLiterals.ts"
import type { DatabaseDriver } from "../../src/services/drivers/Driver.ts"

const read = { maxRows: 10, timeoutSeconds: 30, access: "readonly" } as const

/**
 * D-86: the driver port's `transaction`, as the grid's Save uses it, on any driver. `table.column` must be a
 * primary key or unique; `first` and `second` are literals not in it yet; `duplicate` matches the database's message.
 */
export const transactionContract = (
  driver: DatabaseDriver,
  t: {
    readonly table: string
    readonly column: string
    readonly first: string
    readonly second: string
    readonly duplicate: RegExp
  }
) =>
  Effect.gen(function*() {
    const insert = (value: string) => ({ sql: `INSERT INTO ${t.table} (${t.column}) VALUES (${value})` })
    const count = Effect.map(
      driver.execute(`SELECT count(*) FROM ${t.table} WHERE ${t.column} IN (${t.first}, ${t.second})`, read),
      (result) => Number(result.rows[0]?.[0])
    )
    const failed = yield* driver.transaction([
      insert(t.first),
      insert(t.first),
      { sql: `DELETE FROM ${t.table} WHERE ${t.column} = ${t.second}`, expectRows: 1 }
    ], { timeoutSeconds: 30 })
    expect(failed.committed).toBe(false)
    expect(failed.results[0]).toEqual({ rowsAffected: 1, error: null })
    expect(failed.results[1]?.rowsAffected).toBeNull()
    expect(failed.results[1]?.error).toMatch(t.duplicate)
    expect(failed.results[2]).toEqual({
      rowsAffected: 0,
      error: expect.stringContaining("changed 0 rows instead of 1")
    })
    expect(yield* count).toBe(0)
    const done = yield* driver.transaction([{ ...insert(t.first), expectRows: 1 }, insert(t.second)], {
      timeoutSeconds: 30
    })
    expect(done).toEqual({
      committed: true,
      results: [{ rowsAffected: 1, error: null }, { rowsAffected: 1, error: null }]
    })
    expect(yield* count).toBe(2)
    yield* driver.execute(`DELETE FROM ${t.table} WHERE ${t.column} IN (${t.first}, ${t.second})`, {
      ...read,
      access: "readwrite"
    })
    // the Save's statements carry their values as literals: quotes, backslashes and non-ASCII text read back unchanged
    const tricky = "it's a \\ back\\slash, \"quotes\", tab\t, é and 🐘"
    expect((yield* driver.execute(`SELECT ${stringLiteral(driver.dialect, tricky)} AS v`, read)).rows).toEqual([[
      tricky
    ]])
  })
