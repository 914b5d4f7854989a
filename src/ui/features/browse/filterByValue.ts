import type { Cell } from "../../../domain/UiSchemas.ts"
import type { FilterState } from "./FilterBar.tsx"

/**
 * The grid menu's "Filter by this value": the filter bar's state plus one enabled equality row (IS NULL for NULL),
 * replacing an earlier row on the same column so a second choice narrows nothing by accident.
 */
export const filterByValue = (state: FilterState, column: string, value: Cell): FilterState => ({
  ...state,
  rows: [
    ...state.rows.filter((row) => row.column !== column),
    value === null
      ? { column, operator: "is_null", enabled: true }
      : { column, operator: "=", value: typeof value === "boolean" ? String(value) : String(value), enabled: true }
  ]
})
