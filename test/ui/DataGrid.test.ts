import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, columnTexts, grid, renderedRows } from "../support/Grid.ts"

/**
 * D-85 in a real Chromium against the real server on the sample SQLite connection: the typed, virtualized grid,
 * editing with the statements dialog, range copy and keyboard moves. One server and one browser for the file.
 */
describe("the data grid (D-85)", () => {
  let ui: UiSession
  let db: Database.Database
  const rows = () =>
    db.prepare("SELECT id, name, nick, score, active FROM people ORDER BY id").all() as Array<Record<string, unknown>>

  beforeAll(async () => {
    ui = await openUi()
    db = new Database(join(ui.server.home, "sample.db"))
    db.exec(
      `CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, nick TEXT, score REAL, active BOOLEAN, data JSON);
      INSERT INTO people VALUES (1, 'Ada', NULL, 9.5, 1, '{"langs":["en"]}'), (2, 'Bob', '', 7, 0, NULL), (3, 'Cy', 'cy', 12.25, 1, '[1,2]'), (4, 'Di', 'd', NULL, NULL, NULL);
      CREATE TABLE notes (body TEXT);
      INSERT INTO notes VALUES ('no key here');`
    )
    await ui.page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.ui.origin })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await ui.page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^people/ }).click()
    await ui.page.getByLabel("Page status").filter({ hasText: "Rows 1–4 of 4" }).waitFor()
  })
  afterAll(async () => {
    db?.close()
    await ui?.close()
  })

  it("is a grid with aria-rowcount, typed headers, numbers right-aligned, and NULL shown apart from an empty string", async () => {
    const { page } = ui
    const people = grid(page, "Rows")
    expect(await people.getAttribute("aria-rowcount")).toBe("5")
    expect(await people.getByRole("columnheader").filter({ hasText: "score" }).textContent()).toContain("REAL")
    const nullNick = await cell(people, 0, "nick")
    const emptyNick = await cell(people, 1, "nick")
    expect(await nullNick.textContent()).toBe("NULL")
    expect(await nullNick.getAttribute("class")).toContain("null")
    expect(await emptyNick.textContent()).toBe("")
    expect(await emptyNick.getAttribute("class")).toContain("empty")
    expect(await emptyNick.getAttribute("class")).not.toContain("null")
    expect(await (await cell(people, 0, "score")).evaluate((el) => getComputedStyle(el).textAlign)).toBe("right")
    expect(await (await cell(people, 0, "name")).evaluate((el) => getComputedStyle(el).textAlign)).not.toBe("right")
    expect(await (await cell(people, 0, "active")).textContent()).toBe("true")
    expect(await people.getByRole("gridcell").count()).toBe(4 * 6)
    await screenshot(page, "grid-types")
  })

  it("edits a cell (typed), Save shows the exact statements in a dialog, Apply changes the rows in the database", async () => {
    const { page } = ui
    const people = grid(page, "Rows")
    await (await cell(people, 1, "name")).dblclick()
    await page.getByLabel("Cell value").fill("Bea")
    await page.getByLabel("Cell value").press("Enter")
    await (await cell(people, 2, "score")).dblclick()
    await page.getByLabel("Cell value").fill("not a number")
    await page.getByLabel("Cell value").press("Enter")
    await page.getByRole("alert").filter({ hasText: "Enter a number" }).waitFor()
    await page.getByLabel("Cell value").fill("13.5")
    await page.getByLabel("Cell value").press("Enter")
    await (await cell(people, 3, "nick")).click()
    await page.keyboard.press("Control+Shift+N")
    expect(await (await cell(people, 1, "name")).getAttribute("class")).toContain("changed")
    await page.keyboard.press("Control+s")
    const dialog = page.getByRole("dialog", { name: "Save 3 changes" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `UPDATE "people" SET "name" = 'Bea' WHERE "id" = 2`,
      `UPDATE "people" SET "score" = 13.5 WHERE "id" = 3`,
      `UPDATE "people" SET "nick" = NULL WHERE "id" = 4`
    ])
    await screenshot(page, "grid-save-dialog")
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 3 changes." }).waitFor()
    expect(rows().map((row) => [row["name"], row["score"], row["nick"]])).toEqual([["Ada", 9.5, null], ["Bea", 7, ""], [
      "Cy",
      13.5,
      "cy"
    ], ["Di", null, null]])
  })

  it("a failing statement is reported with its error, nothing is saved, and the pending edits stay until Discard", async () => {
    const { page } = ui
    const people = grid(page, "Rows")
    await page.getByRole("button", { name: "Save", exact: true }).isDisabled()
    await (await cell(people, 0, "nick")).dblclick()
    await page.getByLabel("Cell value").fill("first")
    await page.getByLabel("Cell value").press("Enter")
    await (await cell(people, 2, "name")).dblclick()
    await page.getByLabel("Cell value").fill("Ada")
    await page.getByLabel("Cell value").press("Enter")
    await page.getByRole("button", { name: "Save (2)" }).click()
    const dialog = page.getByRole("dialog", { name: "Save 2 changes" })
    await dialog.getByRole("button", { name: "Apply" }).click()
    await dialog.getByRole("alert").filter({ hasText: "UNIQUE constraint failed: people.name" }).waitFor()
    await dialog.getByRole("alert").filter({ hasText: "1 of 2 statements failed, so nothing was saved" }).waitFor()
    await screenshot(page, "grid-save-failed")
    expect(rows()[0]?.["nick"]).toBeNull()
    await dialog.getByRole("button", { name: "Close" }).click()
    expect(await page.getByRole("button", { name: "Save (2)" }).isEnabled()).toBe(true)
    expect(await (await cell(people, 0, "nick")).textContent()).toBe("first")
    await page.getByRole("button", { name: "Discard" }).click()
    expect(await (await cell(people, 0, "nick")).textContent()).toBe("NULL")
  })

  it("adds, duplicates and deletes rows in one transaction", async () => {
    const { page } = ui
    const people = grid(page, "Rows")
    await (await cell(people, 3, "name")).click()
    await page.getByRole("button", { name: "Delete rows" }).click()
    await (await cell(people, 2, "name")).click()
    await page.getByRole("button", { name: "Duplicate" }).click()
    await (await cell(people, 0, "name")).dblclick()
    await page.getByLabel("Cell value").fill("Cy2")
    await page.getByLabel("Cell value").press("Enter")
    await page.getByRole("button", { name: "Add row" }).click()
    await (await cell(people, 0, "name")).dblclick()
    await page.getByLabel("Cell value").fill("Eve")
    await page.getByLabel("Cell value").press("Enter")
    await page.getByRole("button", { name: "Save (3)" }).click()
    const dialog = page.getByRole("dialog", { name: "Save 3 changes" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `DELETE FROM "people" WHERE "id" = 4`,
      `INSERT INTO "people" ("name") VALUES ('Eve')`,
      `INSERT INTO "people" ("name", "nick", "score", "active", "data") VALUES ('Cy2', 'cy', 13.5, 1, '[1,2]')`
    ])
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 3 changes." }).waitFor()
    expect(rows().map((row) => row["name"])).toEqual(["Ada", "Bea", "Cy", "Eve", "Cy2"])
  })

  it("a table without a primary key is read-only and says why", async () => {
    const { page } = ui
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^notes/ }).click()
    await page.getByText("has no primary key, so an edited row could not be found again").waitFor()
    expect(await page.getByRole("button", { name: "Add row" }).count()).toBe(0)
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^people/ }).click()
    await page.getByLabel("Page status").filter({ hasText: "of 5" }).waitFor()
  })

  it("moves with the keyboard and copies a range as TSV, CSV, JSON and SQL INSERT", async () => {
    const { page } = ui
    const people = grid(page, "Rows")
    await (await cell(people, 0, "id")).click()
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Shift+ArrowDown")
    await page.keyboard.press("Shift+ArrowRight")
    await page.getByLabel("Grid status").filter({ hasText: "Row 2, nick · 4 cells selected" }).waitFor()
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText())
    await page.keyboard.press("Control+c")
    await expect.poll(clipboard).toBe("Ada\tNULL\nBea\t")
    await page.getByRole("button", { name: "CSV", exact: true }).click()
    await expect.poll(clipboard).toBe("name,nick\r\nAda,\r\nBea,")
    await page.getByRole("button", { name: "JSON", exact: true }).click()
    await expect.poll(async () => JSON.parse(await clipboard())).toEqual([{ name: "Ada", nick: null }, {
      name: "Bea",
      nick: ""
    }])
    await page.getByRole("button", { name: "SQL INSERT" }).click()
    await expect.poll(clipboard).toBe(`INSERT INTO "people" ("name", "nick") VALUES\n  ('Ada', NULL),\n  ('Bea', '');`)
    await people.focus()
    await page.keyboard.press("End")
    await page.getByLabel("Grid status").filter({ hasText: "Row 2, data" }).waitFor()
    await page.keyboard.press("Control+End")
    await page.getByLabel("Grid status").filter({ hasText: "Row 5, data" }).waitFor()
    await page.keyboard.press("PageUp")
    await page.getByLabel("Grid status").filter({ hasText: "Row 1, data" }).waitFor()
    await page.keyboard.press("Home")
    await page.keyboard.press("Tab")
    await page.getByLabel("Grid status").filter({ hasText: "Row 1, name" }).waitFor()
    await page.keyboard.press("Shift+Enter")
    await page.getByRole("dialog", { name: "Value of name" }).getByLabel("Cell value").filter({ hasText: "Ada" })
      .waitFor()
    await page.keyboard.press("Escape")
    await page.getByRole("dialog").waitFor({ state: "detached" })
    await screenshot(page, "grid-selection")
  })

  it("resizes and reorders columns", async () => {
    const { page } = ui
    const people = grid(page, "Rows")
    const header = people.getByRole("columnheader").filter({ hasText: "nick" })
    const before = (await header.boundingBox())!.width
    const handle = header.locator(".resizer")
    const box = (await handle.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + 80, box.y + box.height / 2, { steps: 4 })
    await page.mouse.up()
    expect((await header.boundingBox())!.width).toBeGreaterThan(before + 50)
    await people.getByRole("columnheader").filter({ hasText: "data" }).dragTo(
      people.getByRole("columnheader").filter({ hasText: /^id/ })
    )
    const order = await people.getByRole("columnheader").locator(".th-name").allTextContents()
    expect(order.indexOf("data")).toBeLessThan(order.indexOf("id"))
    expect(await columnTexts(people, "name")).toEqual(["Ada", "Bea", "Cy", "Eve", "Cy2"])
    expect(await renderedRows(people)).toBe(5)
  })
})
