import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, columnTexts, grid } from "../support/Grid.ts"

/**
 * The grid a person can trust, in a real Chromium against the real server on the sample SQLite: every page in a
 * stated order, a new page or sort starting at its first row, paging in plain words, edits and validation readable,
 * and the grid filling the window.
 */
describe("a grid you can trust", () => {
  let ui: UiSession
  const tables = () => ui.page.getByRole("complementary", { name: "Tables" })
  const openTable = async (name: string) => {
    await tables().getByRole("button", { name: new RegExp(`^${name}\\b`) }).click()
    await ui.page.getByLabel("Page status").filter({ visible: true, hasText: /Rows/ }).waitFor()
  }
  const status = () => ui.page.getByLabel("Page status").filter({ visible: true })

  beforeAll(async () => {
    ui = await openUi()
    const db = new Database(join(ui.server.home, "sample.db"))
    const codes = Array.from({ length: 1500 }, (_, i) => `k${String((i * 7919) % 1500).padStart(5, "0")}`)
    db.exec(`CREATE TABLE codes (code TEXT PRIMARY KEY, label TEXT);
      CREATE TABLE bag (v TEXT);
      INSERT INTO bag VALUES ('b'), ('a');
      CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT, amount REAL, email TEXT);
      CREATE TABLE "analytics_page_views_by_region_and_day" (id INTEGER PRIMARY KEY);
      CREATE TABLE huge (id INTEGER PRIMARY KEY);
      INSERT INTO huge WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000001) SELECT x FROM c;`)
    const insert = db.prepare("INSERT INTO codes VALUES (?, ?)")
    db.transaction(() => codes.forEach((code) => insert.run(code, `label ${code}`)))()
    const event = db.prepare("INSERT INTO events VALUES (?, ?, ?, ?)")
    db.transaction(() => {
      for (let i = 1; i <= 40; i++) {
        event.run(i, `event ${i}`, i * 1.5, `someone.with.a.long.address.${i}@example-company.com`)
      }
    })()
    const view = db.prepare(`INSERT INTO "analytics_page_views_by_region_and_day" VALUES (?)`)
    db.transaction(() => {
      for (let i = 1; i <= 3000; i++) view.run(i)
    })()
    db.close()
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
  })
  afterAll(() => ui?.close())

  it("a new page or sort starts at its first row, and the page status is in plain words (B1, B2)", async () => {
    const { page } = ui
    await openTable("order_items")
    await status().filter({ hasText: /Rows 1–1,?000 of 3,564/ }).waitFor()
    const rows = grid(page, "Rows")
    await rows.evaluate((element) => {
      element.scrollTop = element.scrollHeight
    })
    await rows.locator("[role=\"row\"][aria-rowindex=\"1001\"]").waitFor()
    await screenshot(page, "ws-grid-page1-end")
    await page.getByRole("button", { name: "Next ▶" }).click()
    await status().filter({ hasText: /Rows 1,?001–2,?000 of 3,564/ }).waitFor()
    await page.waitForTimeout(300)
    await screenshot(page, "ws-grid-page2")
    await expect.poll(() => rows.evaluate((element) => element.scrollTop)).toBe(0)
    expect(await (await cell(rows, 0, "id")).textContent()).toBe("1001")
    expect(await status().textContent()).toBe("Rows 1,001–2,000 of 3,564")
    // no model-facing paging hint under the grid
    const text = await page.locator("main").innerText()
    expect(text).not.toMatch(/offset|showing the first|limits\.|max_rows/)
    await rows.evaluate((element) => {
      element.scrollTop = element.scrollHeight
    })
    await rows.getByRole("columnheader").filter({ hasText: "unit_price" }).click()
    await status().filter({ hasText: /Rows 1–1,?000 of 3,564/ }).waitFor()
    await expect.poll(() => rows.evaluate((element) => element.scrollTop)).toBe(0)
    await expect.poll(async () => (await rows.locator("[role=\"row\"][aria-rowindex=\"2\"]").count())).toBe(1)
  })

  it("jumps to a page and changes the page size", async () => {
    const { page } = ui
    await page.getByLabel("Rows per page").filter({ visible: true }).selectOption("100")
    await status().filter({ hasText: "Rows 1–100 of 3,564" }).waitFor()
    const jump = page.getByLabel("Page number").filter({ visible: true })
    await jump.fill("3")
    await jump.press("Enter")
    await status().filter({ hasText: "Rows 201–300 of 3,564" }).waitFor()
    await page.getByText("of 36", { exact: false }).filter({ visible: true }).first().waitFor()
  })

  it("a table of a million rows or more is counted on demand", async () => {
    const { page } = ui
    await openTable("huge")
    await status().filter({ hasText: /^Rows 1–1,000$/ }).waitFor()
    await page.getByRole("button", { name: "Count rows" }).click()
    await status().filter({ hasText: "Rows 1–1,000 of 1,000,001" }).waitFor()
    expect(await page.getByRole("button", { name: "Count rows" }).count()).toBe(0)
  })

  it("pages of a table are ordered by its primary key, and a table without one says it is unordered (B6)", async () => {
    const { page } = ui
    await openTable("codes")
    await status().filter({ hasText: /of 1,500/ }).waitFor()
    const rows = grid(page, "Rows")
    const shown = await columnTexts(rows, "code")
    expect(shown.length).toBeGreaterThan(5)
    expect(shown).toEqual([...shown].sort())
    expect(shown[0]).toBe("k00000")
    await page.getByText("Ordered by the primary key (code).").filter({ visible: true }).waitFor()
    await openTable("bag")
    await page.getByText(/^Unordered: this table has no primary key/).filter({ visible: true }).waitFor()
  })

  it("a long table name never runs into its row count in the sidebar (B9)", async () => {
    const item = tables().getByRole("button", { name: /^analytics_page_views_by_region_and_day/ })
    const name = (await item.locator("span").first().boundingBox())!
    const count = (await item.locator("span").last().boundingBox())!
    expect(await item.locator("span").last().textContent()).toBe("3,000")
    expect(name.x + name.width).toBeLessThanOrEqual(count.x - 4)
    expect(count.x + count.width).toBeLessThanOrEqual(
      (await item.boundingBox())!.x + (await item.boundingBox())!.width + 0.5
    )
  })

  it("the validation message is drawn above the rows after it (B5)", async () => {
    const { page } = ui
    await openTable("events")
    const rows = grid(page, "Rows")
    await (await cell(rows, 3, "amount")).dblclick()
    await page.getByLabel("Cell value").fill("abc")
    await page.getByLabel("Cell value").press("Enter")
    const message = page.getByRole("alert").filter({ hasText: "Enter a number" })
    await message.waitFor()
    const box = (await message.boundingBox())!
    const onTop = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest(".cell-error") !== null, {
      x: box.x + box.width / 2,
      y: box.y + box.height / 2
    })
    await screenshot(page, "ws-grid-validation")
    expect(onTop).toBe(true)
    await page.getByLabel("Cell value").press("Escape")
  })

  it("Add row focuses the new row, and the selection stays on its record when rows above come and go (B13)", async () => {
    const { page } = ui
    await openTable("events")
    const rows = grid(page, "Rows")
    await (await cell(rows, 4, "name")).click()
    await page.getByLabel("Grid status").filter({ visible: true, hasText: "Row 5, name" }).waitFor()
    await page.getByRole("button", { name: "Add row" }).click()
    await page.getByLabel("Grid status").filter({ visible: true, hasText: "Row 1, id" }).waitFor()
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("grid")
    expect(await (await cell(rows, 0, "id")).getAttribute("class")).toContain("focus")
    await (await cell(rows, 5, "name")).click()
    expect(await (await cell(rows, 5, "name")).textContent()).toBe("event 5")
    await page.getByRole("button", { name: "Discard" }).click()
    await page.getByLabel("Grid status").filter({ visible: true, hasText: "Row 5, name" }).waitFor()
    expect(await (await cell(rows, 4, "name")).getAttribute("class")).toContain("focus")
  })

  it("columns are as wide as their content; double-clicking a header edge fits it again", async () => {
    const { page } = ui
    await openTable("events")
    const rows = grid(page, "Rows")
    const email = await cell(rows, 0, "email")
    expect(await email.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true)
    const header = rows.getByRole("columnheader").filter({ hasText: "email" })
    const fitted = (await header.boundingBox())!.width
    const handle = (await header.locator(".resizer").boundingBox())!
    await page.mouse.move(handle.x + 2, handle.y + 5)
    await page.mouse.down()
    await page.mouse.move(handle.x - 150, handle.y + 5, { steps: 4 })
    await page.mouse.up()
    expect((await header.boundingBox())!.width).toBeLessThan(fitted - 100)
    await header.locator(".resizer").dblclick()
    expect(Math.round((await header.boundingBox())!.width)).toBe(Math.round(fitted))
  })

  it("a console result over the row cap says so in plain words, without the MCP settings' names (B2)", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Console", exact: true }).click()
    const editor = page.getByLabel("SQL").filter({ visible: true })
    await editor.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Delete")
    await editor.fill(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100005) SELECT x FROM c"
    )
    await page.getByRole("button", { name: "Run", exact: true }).click()
    const summary = page.getByRole("status").filter({ visible: true, hasText: "100,000 rows" })
    await summary.waitFor({ timeout: 60_000 })
    expect(await summary.textContent()).toContain(
      "Showing the first 100,000 rows: add a WHERE or a LIMIT to the query to see the others."
    )
    expect(await summary.textContent()).not.toMatch(/limits\.|max_rows|OFFSET/)
  })

  it("the grid fills the window at 1440×900 and 1024×700", async () => {
    const { page } = ui
    await openTable("order_items")
    for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
      await page.setViewportSize(size)
      await page.waitForTimeout(150)
      const box = (await page.getByRole("group", { name: "Pages" }).boundingBox())!
      expect(box.y + box.height).toBeGreaterThan(size.height - 40)
      expect(box.y + box.height).toBeLessThanOrEqual(size.height)
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(size.height)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.waitForTimeout(200)
    await screenshot(page, "ws-grid-1440")
  })
})
