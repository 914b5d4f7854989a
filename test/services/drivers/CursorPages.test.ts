import { describe, expect, it } from "vitest"
import { CursorPages, type PulledRows } from "../../../src/services/drivers/CursorPages.ts"

/** A source of `total` rows [n, text] that records how many rows each pull asked for. */
const source = (total: number, width = 10) => {
  let next = 1
  const asked: Array<number> = []
  return {
    asked,
    columns: () => ["n", "text"],
    applied: () => [],
    pull: async (count: number): Promise<PulledRows> => {
      asked.push(count)
      const rows: Array<ReadonlyArray<unknown>> = []
      while (rows.length < count && next <= total) rows.push([next++, "x".repeat(width)])
      return { rows, done: next > total }
    }
  }
}

describe("the pages of a held cursor", () => {
  it("reads one row ahead, so the last page is known to be the last (no empty page after it)", async () => {
    const rows = source(20)
    const pages = new CursorPages(rows)
    const first = await pages.page(10, undefined)
    expect(first.resultSet.rows.map((row) => row[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(first.more).toBe(true)
    expect(first.resultSet.is_truncated).toBe(true)
    expect(first.resultSet.status_message).toContain("fetch_more")
    const second = await pages.page(10, undefined)
    expect(second.resultSet.rows.map((row) => row[0])).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
    expect(second.more).toBe(false)
    expect(second.resultSet.is_truncated).toBe(false)
    // 11 rows, then the 10 still wanted (one was read ahead): never more than a page and one row.
    expect(rows.asked).toEqual([11, 10])
  })

  it("a row the byte budget could not take opens the next page; none is lost or repeated", async () => {
    const pages = new CursorPages(source(60, 5000))
    const seen: Array<unknown> = []
    let more = true
    for (let turn = 0; more && turn < 100; turn++) {
      const page = await pages.page(1000, { maxCellBytes: 32_768, maxAnswerBytes: 65_536 })
      expect(page.resultSet.rows.length).toBeGreaterThan(0)
      seen.push(...page.resultSet.rows.map((row) => row[0]))
      more = page.more
    }
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
  })

  it("a read its source stopped early ends there, marked cut, with the reason and no more pages", async () => {
    const pages = new CursorPages({
      columns: () => ["n"],
      applied: () => [],
      pull: async () => ({ rows: [[1], [2]], done: false, stopped: "the rows read passed the transfer cap" })
    })
    const page = await pages.page(10, undefined)
    expect(page.more).toBe(false)
    expect(page.resultSet.is_truncated).toBe(true)
    expect(page.resultSet.status_message).toContain("the rows read passed the transfer cap")
    expect(page.resultSet.status_message).not.toContain("fetch_more")
  })
})
