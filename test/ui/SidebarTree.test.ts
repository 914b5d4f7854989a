import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"

const LONG = "a_table_with_a_name_far_too_long_for_the_sidebar_width"

/**
 * Finding things in a real database, on SQLite in a real Chromium: the sidebar tree (kind icons, row counts apart from
 * the names, search, keyboard, a width that is kept), "open anything" and foreign-key links.
 */
describe("the sidebar tree, open anything and foreign-key links (SQLite)", () => {
  let ui: UiSession
  let sampleId = ""
  const sidebar = () => ui.page.getByRole("complementary", { name: "Tables" }).filter({ visible: true })
  const tree = () => sidebar().getByRole("tree", { name: "Database objects" })
  const status = () => ui.page.getByLabel("Page status").filter({ visible: true })

  beforeAll(async () => {
    ui = await openUi()
    const sample = new Database(join(ui.server.home, "sample.db"))
    sample.exec(`CREATE VIEW shipped_orders AS SELECT * FROM orders WHERE status = 'shipped';
      CREATE TABLE ${LONG} (id INTEGER PRIMARY KEY, note TEXT);`)
    const insert = sample.prepare(`INSERT INTO ${LONG} (note) VALUES (?)`)
    sample.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`note ${i}`)
    })()
    sample.close()
    const connections = (await (await ui.page.request.get(`${ui.ui.origin}/api/connections`)).json()) as Array<
      { id: string; name: string }
    >
    sampleId = connections.find((c) => c.name === "Sample (SQLite)")!.id
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
  })
  afterAll(() => ui?.close())

  it("D-98 each object shows its kind and its row count in a column of its own, never over a long name", async () => {
    const view = tree().getByRole("button", { name: /^shipped_orders/ })
    await view.waitFor()
    expect(await view.getAttribute("data-kind")).toBe("view")
    expect(await tree().getByRole("button", { name: /^customers/ }).getAttribute("data-kind")).toBe("table")
    const long = tree().getByRole("button", { name: new RegExp(`^${LONG}`) })
    expect(await long.locator(".tree-count").textContent()).toBe("3,000")
    const name = await long.locator(".tree-name").boundingBox()
    const count = await long.locator(".tree-count").boundingBox()
    expect(name!.x + name!.width).toBeLessThanOrEqual(count!.x)
    // the long name is cut with an ellipsis inside its own column
    expect(await long.locator(".tree-name").evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true)
    await screenshot(ui.page, "sidebar-tree-sqlite")
  })

  it("D-98 the search box (Ctrl/Cmd+Shift+F) narrows the tree fuzzily; arrows move, Enter opens the object, Esc clears the search", async () => {
    const { page } = ui
    const search = sidebar().getByLabel("Search the sidebar")
    await page.locator("body").click()
    await page.keyboard.press("Control+Shift+F")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Search the sidebar"
    )
    await page.keyboard.type("ordrs")
    await expect.poll(() => tree().getByRole("treeitem").count()).toBe(3)
    const labels = await tree().locator(".tree-name").allTextContents()
    expect([...labels].sort()).toEqual(["order_items", "orders", "shipped_orders"])
    await search.press("ArrowDown")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("title"))).toBe(
      `${labels[0]} (table)`
    )
    await page.keyboard.press("End")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("title"))).toBe(
      "shipped_orders (view)"
    )
    await page.keyboard.press("Enter")
    await page.getByRole("tab", { name: "shipped_orders", selected: true }).waitFor()
    await search.press("Escape")
    expect(await search.inputValue()).toBe("")
    await expect.poll(() => tree().getByRole("treeitem").count()).toBeGreaterThanOrEqual(6)
  })

  it("D-98 the sidebar is resized with its handle (mouse or Left/Right) and keeps its width after a reload", async () => {
    const { page } = ui
    const handle = sidebar().getByRole("separator", { name: "Resize the sidebar" })
    const before = (await sidebar().boundingBox())!.width
    const box = (await handle.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + 40)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width / 2 + 120, box.y + 40, { steps: 4 })
    await page.mouse.up()
    await expect.poll(async () => (await sidebar().boundingBox())!.width).toBeGreaterThan(before + 100)
    await handle.focus()
    await page.keyboard.press("ArrowRight")
    const wide = Number(await handle.getAttribute("aria-valuenow"))
    expect(wide).toBeGreaterThan(before + 110)
    await page.reload()
    await expect.poll(async () => Number(await sidebar().getByRole("separator").getAttribute("aria-valuenow"))).toBe(
      wide
    )
    await handle.focus()
    await page.keyboard.press("Shift+ArrowLeft")
    await page.keyboard.press("Shift+ArrowLeft")
    expect(Number(await handle.getAttribute("aria-valuenow"))).toBe(wide - 128)
  })

  it("D-98 Ctrl/Cmd+P opens anything: a table in its tab, a saved query and a history entry in a console", async () => {
    const { page } = ui
    const saved = await page.request.post(`${ui.ui.origin}/api/saved-queries`, {
      data: {
        name: "Big spenders",
        text: "SELECT customer_id, sum(total) FROM orders GROUP BY 1 ORDER BY 2 DESC",
        connectionId: sampleId
      }
    })
    expect(saved.ok()).toBe(true)
    const ran = await page.request.post(`${ui.ui.origin}/api/connections/${sampleId}/console`, {
      data: { text: "SELECT count(*) AS delivered_count FROM orders WHERE status = 'delivered'", confirmed: false }
    })
    expect(ran.ok()).toBe(true)
    const palette = page.getByRole("dialog", { name: "Open anything" })
    const open = async (query: string, expected: RegExp) => {
      await page.keyboard.press("Control+p")
      await palette.getByRole("combobox").fill(query)
      await palette.getByRole("option", { selected: true }).filter({ hasText: expected }).waitFor()
      await page.keyboard.press("Enter")
      await palette.waitFor({ state: "detached" })
    }
    await page.getByRole("tab", { name: "shipped_orders" }).click()
    await open("custmrs", /customers/)
    await page.getByRole("tab", { name: "customers", selected: true }).waitFor()
    await status().filter({ hasText: "of 400" }).waitFor()
    await open("big spend", /Big spenders/)
    await expect.poll(() => page.locator(".cm-content:visible").textContent()).toContain("sum(total) FROM orders")
    await open("delivered_count", /delivered_count/)
    await expect.poll(() => page.locator(".cm-content:visible").textContent()).toContain(
      "AS delivered_count FROM orders"
    )
    // Escape closes it and gives the focus back
    await page.keyboard.press("Control+p")
    await palette.waitFor()
    await page.keyboard.press("Escape")
    await palette.waitFor({ state: "detached" })
    // the shortcut list names the new keys
    await page.getByRole("button", { name: "Shortcuts" }).click()
    const list = page.getByRole("table", { name: "Shortcuts" })
    await list.waitFor()
    expect(await list.locator("kbd").allTextContents()).toEqual(expect.arrayContaining([
      "Cmd/Ctrl+P",
      "Cmd/Ctrl+Shift+F",
      "Up/Down, Right/Left, Home/End in the sidebar",
      "Left/Right on the sidebar's edge",
      "Cmd/Ctrl+Enter on a foreign-key cell"
    ]))
    await page.keyboard.press("Escape")
  })

  it("D-99 a foreign-key cell opens the referenced row in its table's tab, filtered by the key (click or Ctrl/Cmd+Enter)", async () => {
    const { page } = ui
    await tree().getByRole("button", { name: /^orders/ }).click()
    await status().filter({ hasText: "of 1,200" }).waitFor()
    const rows = grid(page, "Rows")
    const first = await cell(rows, 0, "customer_id")
    const customer = (await first.textContent())!.replace(/\D/g, "")
    expect(await (await cell(rows, 0, "status")).locator(".fk-link").count()).toBe(0)
    await screenshot(page, "fk-cells-sqlite")
    await first.getByRole("button", { name: "Open the referenced row in customers" }).click()
    await page.getByRole("tab", { name: "customers", selected: true }).waitFor()
    await status().filter({ hasText: /of 1$/ }).waitFor()
    const customers = grid(page, "Rows")
    expect(await (await cell(customers, 0, "id")).textContent()).toBe(customer)
    // the filter is in the filter bar, where it can be changed
    expect(await page.getByLabel("Filter column").filter({ visible: true }).inputValue()).toBe("id")
    expect(await page.getByLabel("Filter value").filter({ visible: true }).inputValue()).toBe(customer)
    await screenshot(page, "fk-link-sqlite")
    // the keyboard: Ctrl+Enter on another row's key; the customers tab, open already, takes the new filter
    await page.getByRole("tab", { name: "orders", exact: true }).click()
    // a later row whose customer is another one
    let third = await cell(rows, 1, "customer_id")
    for (let r = 1; (await third.textContent())!.replace(/\D/g, "") === customer; r++) {
      third = await cell(rows, r, "customer_id")
    }
    const other = (await third.textContent())!.replace(/\D/g, "")
    await third.click()
    await page.keyboard.press("Control+Enter")
    await page.getByRole("tab", { name: "customers", selected: true }).waitFor()
    await expect.poll(async () => (await cell(customers, 0, "id")).textContent()).toBe(other)
    expect(await page.getByLabel("Filter value").filter({ visible: true }).inputValue()).toBe(other)
  })
})
