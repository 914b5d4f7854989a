import { assert, describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { SortRequest } from "../../src/domain/SearchFilter.ts"
import { droppedSortsMessage, planPage, planSorts } from "../../src/search/ReadPlan.ts"

const columns = [
  { name: "id", isSortable: false },
  { name: "title", isSortable: false },
  { name: "year", isSortable: true },
  { name: "price", isSortable: true },
  { name: "rating", isSortable: true },
  { name: "pages", isSortable: true }
]

describe("read planning", () => {
  it("S4.1-a the default 1,000-row page is one call of four 250-hit searches", () => {
    expect(planPage(0, 1000)).toEqual([[
      { offset: 0, limit: 250 },
      { offset: 250, limit: 250 },
      { offset: 500, limit: 250 },
      { offset: 750, limit: 250 }
    ]])
    expect(planPage(0, 2600)[0]?.length).toBe(11)
    expect(planPage(0, 100_000).length).toBe(8)
    expect(planPage(10, 0)).toEqual([])
  })

  it.prop("S4-b S4.1-a any page is covered exactly by searches of ≤ 250 hits, ≤ 50 per call", [
    FastCheck.nat({ max: 2_000_000 }),
    FastCheck.nat({ max: 40_000 })
  ], ([offset, limit]) => {
    const batches = planPage(offset, limit)
    const slices = batches.flat()
    batches.forEach((batch) => assert.isTrue(batch.length >= 1 && batch.length <= 50))
    slices.forEach((slice) => assert.isTrue(slice.limit >= 1 && slice.limit <= 250))
    let next = offset
    for (const slice of slices) {
      assert.strictEqual(slice.offset, next)
      next += slice.limit
    }
    assert.strictEqual(next, offset + limit)
    assert.strictEqual(batches.length, Math.ceil(Math.ceil(limit / 250) / 50))
  })

  it("S4.1-b S4.1-c S7-a unsortable sorts are dropped first, then sorts beyond the third", () => {
    const plan = planSorts([
      { column: "title", direction: "asc" },
      { column: "year", direction: "desc" },
      { column: "id", direction: "asc" },
      { column: "price", direction: "asc" },
      { column: "rating", direction: "desc" },
      { column: "pages", direction: "asc" }
    ], columns)
    expect(plan.sortBy).toBe("year:desc,price:asc,rating:desc")
    expect(plan.dropped).toEqual([
      { column: "title", direction: "asc", reason: "not_sortable" },
      { column: "id", direction: "asc", reason: "not_sortable" },
      { column: "pages", direction: "asc", reason: "too_many_sorts" }
    ])
    expect(droppedSortsMessage(plan.dropped)).toBe(
      "not sorted by title, id: the collection schema does not mark it sortable (sort: true); not sorted by pages: Typesense sorts by at most three fields."
    )
    expect(planSorts([], columns).sortBy).toBeUndefined()
    expect(droppedSortsMessage([])).toBeUndefined()
  })

  const sort = FastCheck.record({
    column: FastCheck.constantFrom(...columns.map((c) => c.name), "missing"),
    direction: FastCheck.constantFrom<SortRequest["direction"]>("asc", "desc")
  })

  it.prop("S4.1-b S4.1-c S2.2-f at most three sorts are sent, all sortable, and every other one is reported", [
    FastCheck.array(sort, { maxLength: 8 })
  ], ([sorts]) => {
    const plan = planSorts(sorts, columns)
    assert.isTrue(plan.kept.length <= 3)
    plan.kept.forEach((kept) => assert.isTrue(columns.some((c) => c.name === kept.column && c.isSortable)))
    const distinct = new Set(sorts.map((s) => s.column)).size
    assert.strictEqual(plan.kept.length + plan.dropped.length, distinct)
    assert.isFalse((plan.sortBy ?? "").split(",").some((entry) => entry.startsWith("id:")))
  })
})
