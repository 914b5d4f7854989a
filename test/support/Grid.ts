import type { Locator, Page } from "playwright-core"

/** Reading the UI's data grid (role="grid", virtualized) the way assistive technology does: by ARIA row and column index. */
export const grid = (page: Page, name: string): Locator => page.locator(`[role="grid"][aria-label="${name}"]:visible`)

/** The aria-colindex of a column, by the name in its header. */
export const columnIndex = async (table: Locator, column: string): Promise<number> => {
  const header = table.getByRole("columnheader").filter({
    has: table.page().locator(".th-name", { hasText: new RegExp(`^${column}( [▲▼])?$`) })
  }).first()
  return Number(await header.getAttribute("aria-colindex"))
}

/** A data cell: `row` counts data rows from 0 (aria-rowindex 1 is the header). */
export const cell = async (table: Locator, row: number, column: string): Promise<Locator> =>
  table.locator(
    `[role="row"][aria-rowindex="${row + 2}"] [role="gridcell"][aria-colindex="${await columnIndex(table, column)}"]`
  )

/** The texts of a column's rendered cells, top to bottom (only the rows in the DOM). */
export const columnTexts = async (table: Locator, column: string): Promise<Array<string>> => {
  const index = await columnIndex(table, column)
  const rows = await table.locator("[role=\"row\"][aria-rowindex]:not([aria-rowindex=\"1\"])").evaluateAll(
    (elements, colindex) =>
      elements
        .map((row) => ({
          at: Number(row.getAttribute("aria-rowindex")),
          text: row.querySelector(`[role="gridcell"][aria-colindex="${colindex}"]`)?.textContent ?? ""
        }))
        .sort((a, b) => a.at - b.at)
        .map((entry) => entry.text),
    index
  )
  return rows
}

/** Rows of the grid that are in the DOM now (the header row excluded). */
export const renderedRows = (table: Locator) => table.locator("[role=\"row\"]:not([aria-rowindex=\"1\"])").count()
