import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { columnTexts, grid } from "../support/Grid.ts"

/** The filter bar in a real Chromium (D-85): the search box, an operator, a WHERE condition and its refusal, Ctrl+F. */
describe("the filter bar", () => {
  let ui: UiSession
  const status = () => ui.page.getByLabel("Page status").filter({ visible: true })
  const ids = () => columnTexts(grid(ui.page, "Rows"), "id")

  beforeAll(async () => {
    ui = await openUi()
    const db = new Database(join(ui.server.home, "sample.db"))
    db.exec(`CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, email TEXT, photo BLOB);
      INSERT INTO people VALUES (1, 'Ann Lee', 'ann@example.org', NULL), (2, 'Bob Stone', 'bob@example.com', X'616e6e'),
        (3, 'Cara 50% Off', 'cara@example.org', NULL), (4, 'Dan', 'dan_x@example.net', NULL), (5, 'Eve', 'eve@example.com', NULL)`)
    db.close()
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await ui.page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^people\b/ }).click()
    await status().filter({ hasText: "of 5" }).waitFor()
  })
  afterAll(() => ui?.close())

  it("Ctrl+F focuses the search box; it searches every column but the binary one", async () => {
    const { page } = ui
    await grid(page, "Rows").click()
    await page.keyboard.press("Control+f")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Search all columns"
    )
    await page.keyboard.type("ANN")
    await page.keyboard.press("Enter")
    await status().filter({ hasText: "of 1" }).waitFor()
    expect(await ids()).toEqual(["1"])
    await page.getByLabel("Search all columns").fill("50%")
    await page.keyboard.press("Enter")
    await status().filter({ hasText: "of 1" }).waitFor()
    await expect.poll(ids).toEqual(["3"])
    await page.getByLabel("Search all columns").fill("")
  })

  it("an operator: ends with matches its value literally", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Add filter" }).click()
    await page.getByLabel("Filter column").selectOption("email")
    await page.getByLabel("Filter operator").selectOption("ends_with")
    await page.getByLabel("Filter value").fill(".org")
    await page.getByRole("button", { name: "Apply" }).click()
    await status().filter({ hasText: "of 2" }).waitFor()
    expect(await ids()).toEqual(["1", "3"])
    await page.getByLabel("Filter operator").selectOption("like")
    await page.getByLabel("Filter value").fill("d%_x@%")
    await page.getByRole("button", { name: "Apply" }).click()
    await status().filter({ hasText: "of 1" }).waitFor()
    await expect.poll(ids).toEqual(["4"])
    await page.getByRole("button", { name: "Remove filter" }).click()
  })

  it("a WHERE condition filters, and one that escapes its parentheses is refused in plain words", async () => {
    const { page } = ui
    await page.getByLabel("WHERE condition").fill("id > 2 AND id < 5")
    await page.getByRole("button", { name: "Apply" }).click()
    await status().filter({ hasText: "of 2" }).waitFor()
    expect(await ids()).toEqual(["3", "4"])
    await page.getByLabel("WHERE condition").fill("1=1) OR (1=1")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("alert").filter({ hasText: "The parentheses of this condition do not match" }).waitFor()
    await page.getByLabel("WHERE condition").fill("1=1; DELETE FROM people")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("alert").filter({ hasText: "cannot hold comments (--, /* */, #) or a semicolon" }).waitFor()
    await page.getByLabel("WHERE condition").fill("name LIKE '%e%' AND email <> 'x -- y'")
    await page.getByLabel("Search all columns").fill("example.com")
    await page.getByRole("button", { name: "Apply" }).click()
    await status().filter({ hasText: "of 2" }).waitFor()
    expect(await ids()).toEqual(["2", "5"])
    await screenshot(page, "filters-after")
  })

  it("the shortcut list names Ctrl/Cmd+F", async () => {
    const { page } = ui
    // "?" typed on an editable cell starts an edit with it; the header's Shortcuts button opens the same list
    await page.getByRole("button", { name: "Shortcuts" }).click()
    await page.getByRole("table", { name: "Shortcuts" }).getByRole("row", { name: /Cmd\/Ctrl\+F/ }).waitFor()
    await page.keyboard.press("Escape")
  })
})
