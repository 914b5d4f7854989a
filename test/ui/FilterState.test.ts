import { describe, expect, it } from "vitest"
import { emptyFilter, viewFilteredBy, withValueFilter } from "../../src/ui/features/browse/FilterBar.tsx"

/** "Filter by this value" (the grid's right-click menu) as the filter bar's state. */
describe("filter by this value", () => {
  it("adds an enabled column = value row, or IS NULL for a null, keeping the rows, search and condition there", () => {
    const before = {
      ...emptyFilter,
      search: "x",
      raw: "id > 1",
      rows: [{ column: "a", operator: "contains", value: "q", enabled: false }]
    }
    expect(withValueFilter(before, "name", "O'Hara")).toEqual({
      ...before,
      rows: [...before.rows, { column: "name", operator: "=", value: "O'Hara", enabled: true }]
    })
    expect(withValueFilter(emptyFilter, "email", null).rows).toEqual([{
      column: "email",
      operator: "is_null",
      enabled: true
    }])
  })

  it("replaces an earlier row on the same column, and writes numbers and booleans as the filter bar's text", () => {
    const before = {
      ...emptyFilter,
      rows: [{ column: "qty", operator: ">", value: "3", enabled: true }, {
        column: "name",
        operator: "=",
        value: "a",
        enabled: false
      }]
    }
    expect(withValueFilter(before, "qty", 7).rows).toEqual([{
      column: "name",
      operator: "=",
      value: "a",
      enabled: false
    }, { column: "qty", operator: "=", value: "7", enabled: true }])
    expect(withValueFilter(emptyFilter, "active", false).rows).toEqual([{
      column: "active",
      operator: "=",
      value: "false",
      enabled: true
    }])
  })

  it("applies it to the tab's view at once, from the applied filter, on the first page", () => {
    const edited = { ...emptyFilter, search: "typed but not applied" }
    const view = { filter: edited, applied: emptyFilter, offset: 2000, sort: [] }
    const next = viewFilteredBy(view, "id", "7")
    expect(next.applied).toEqual({ ...emptyFilter, rows: [{ column: "id", operator: "=", value: "7", enabled: true }] })
    expect(next.filter).toEqual(next.applied)
    expect(next.offset).toBe(0)
    expect(next.sort).toBe(view.sort)
  })
})
