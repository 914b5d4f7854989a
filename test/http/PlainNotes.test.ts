import { describe, expect, it } from "vitest"
import type { UiBrowseRequest, UiColumn } from "../../src/domain/UiSchemas.ts"
import { plainConsoleNote, plainNotes } from "../../src/http/ui/PlainNotes.ts"
import { pageOrder } from "../../src/http/ui/SqlViews.ts"

const column = (name: string, isPrimaryKey = false): UiColumn => ({
  name,
  type: "text",
  isPrimaryKey,
  isReadOnly: false,
  nullable: true,
  sortable: true,
  sortNote: null
})
const request = (sort: UiBrowseRequest["sort"]): UiBrowseRequest => ({
  filters: [],
  logic: "and",
  caseSensitive: false,
  sort,
  offset: 0,
  limit: 1000
})

describe("the grid's order and notes in plain words", () => {
  it("a page is ordered by the primary key, after the user's sorts as a tie-breaker", () => {
    const columns = [column("a", true), column("b", true), column("name")]
    expect(pageOrder(request([]), columns)).toEqual({
      sort: [{ column: "a", direction: "asc" }, { column: "b", direction: "asc" }],
      order: "Ordered by the primary key (a, b)."
    })
    expect(pageOrder(request([{ column: "b", direction: "desc" }]), columns).sort).toEqual([
      { column: "b", direction: "desc" },
      { column: "a", direction: "asc" }
    ])
  })

  it("a table without a key is said to be unordered", () => {
    expect(pageOrder(request([]), [column("v")])).toEqual({
      sort: [],
      order: expect.stringMatching(/^Unordered: this table has no primary key/)
    })
    expect(pageOrder(request([{ column: "v", direction: "asc" }]), [column("v")]).order).toMatch(
      /^Sorted by v; rows that are equal there have no fixed order/
    )
  })

  it("paging hints for MCP clients are dropped and caps are said without setting names", () => {
    expect(plainNotes("showing the first 1000 rows; read the next rows with offset, or add filters")).toEqual([])
    expect(
      plainNotes(
        "showing the first 12 rows: the answer reached limits.maxAnswerBytes (65536 bytes); choose fewer columns, add filters, or lower limit and page with offset"
      )
    )
      .toEqual([
        "Only 12 rows fit in one answer here: choose a smaller page size, add filters, or select fewer columns in the Console."
      ])
    expect(
      plainNotes(
        "showing the first 10 rows; read the next rows with offset, or add filters; 2 values were cut at limits.maxCellBytes (100 bytes); use execute_query with length() or substr() on long columns"
      )
    )
      .toEqual(["Some long values are shortened here: read one whole in the Console with substr()."])
    expect(
      plainConsoleNote(
        "showing the first 100000 rows; narrow the query with WHERE, or page with LIMIT and OFFSET (max_rows allows up to limits.maxRows)",
        100_000,
        true
      )
    )
      .toBe("Showing the first 100,000 rows: add a WHERE or a LIMIT to the query to see the others.")
    expect(plainConsoleNote(undefined, 3, false)).toBeNull()
    for (
      const note of [
        ...plainNotes("showing the first 5 rows: the answer reached limits.maxAnswerBytes (1 bytes); x"),
        plainConsoleNote(
          "showing the first 5 rows; narrow the query with WHERE, or page with LIMIT and OFFSET (max_rows allows up to limits.maxRows)",
          5,
          true
        ) ?? ""
      ]
    ) {
      expect(note).not.toMatch(/limits\.|max_rows|offset|browse_table|execute_query/)
    }
  })
})
