import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { AnswerBudget, capCell, utf8Length } from "../../src/domain/AnswerBudget.ts"

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8")

describe("AnswerBudget", () => {
  it.prop("utf8Length agrees with Buffer.byteLength", [FastCheck.string({ unit: "binary", maxLength: 200 })], ([text]) => {
    expect(utf8Length(text)).toBe(bytesOf(text))
  })

  it.prop(
    "a cut cell keeps a prefix within the cap, never splits a character, and names the full length",
    [FastCheck.string({ unit: "binary", minLength: 1, maxLength: 400 }), FastCheck.integer({ min: 4, max: 64 })],
    ([text, cap]) => {
      const capped = capCell(text, cap)
      if (bytesOf(text) <= cap) {
        expect(capped.cell).toBe(text)
        expect(capped.cutFrom).toBeUndefined()
        return
      }
      expect(capped.cutFrom).toBe(bytesOf(text))
      const cell = capped.cell as string
      const marker = cell.indexOf(" …[cut by dbdesk: ")
      const kept = cell.slice(0, marker)
      expect(text.startsWith(kept)).toBe(true)
      expect(bytesOf(kept)).toBeLessThanOrEqual(cap)
      expect(cell).toContain(`${bytesOf(text)} bytes, first ${bytesOf(kept)} shown`)
    }
  )

  it("a 5 MB text cell comes back as 32 KiB plus the marker with its full length", () => {
    const budget = new AnswerBudget(10, { maxCellBytes: 32_768, maxAnswerBytes: 8 * 1024 * 1024 })
    budget.add([1, "x".repeat(5_000_000)])
    const cell = budget.rows[0]?.[1] as string
    expect(cell.startsWith("x".repeat(32_768) + " …[cut by dbdesk: 5000000 bytes, first 32768 shown")).toBe(true)
    expect(budget.truncated).toBe(false)
    expect(budget.note()).toContain("1 cell was cut at 32768 bytes (limits.maxCellBytes)")
  })

  it("rows stop at the row limit and the note says how many are shown", () => {
    const budget = new AnswerBudget(2)
    expect([budget.add([1]), budget.add([2]), budget.add([3])]).toEqual([true, true, false])
    expect(budget.stoppedBy).toBe("rows")
    expect(budget.note()).toBe("showing the first 2 rows")
  })

  it.prop(
    "rows stop before the answer passes maxAnswerBytes, and the note says how to narrow the query",
    [FastCheck.array(FastCheck.string({ maxLength: 3000 }), { minLength: 1, maxLength: 300 })],
    ([cells]) => {
      const budget = new AnswerBudget(10_000, { maxCellBytes: 1024, maxAnswerBytes: 65_536 })
      for (const cell of cells) if (!budget.add([cell])) break
      const keptBytes = budget.rows.reduce((sum, row) => sum + row.reduce((inner: number, cell) => inner + bytesOf(String(cell)), 0), 0)
      expect(keptBytes).toBeLessThanOrEqual(budget.size)
      expect(budget.size).toBeLessThanOrEqual(65_536)
      if (budget.stoppedBy === "bytes") {
        expect(budget.rows.length).toBeLessThan(cells.length)
        expect(budget.note()).toMatch(/limits\.maxAnswerBytes\); select fewer columns, add a WHERE or a LIMIT/)
      } else expect(budget.rows.length).toBe(cells.length)
    }
  )
})
