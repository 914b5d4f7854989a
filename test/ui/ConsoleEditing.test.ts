import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/**
 * The console's editing keys in a real Chromium on the sample SQLite connection: Format (button and Shift+Alt+F, the
 * selection or everything, one Undo step), Cmd/Ctrl+/ line comments, and completion after `alias.`.
 */
describe("the console formats, comments and completes", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi()
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await ui.page.getByRole("tab", { name: "Console" }).click()
    await ui.page.getByLabel("SQL").waitFor()
  })
  afterAll(() => ui?.close())

  const typeSql = async (text: string) => {
    const editor = ui.page.getByLabel("SQL")
    await editor.click()
    await ui.page.keyboard.press("Control+a")
    await ui.page.keyboard.press("Delete")
    await editor.fill(text)
  }
  const lines = () => ui.page.locator(".cm-content .cm-line").allTextContents()

  it("D-102: Shift+Alt+F formats the whole text in the connection's dialect, and one Undo brings the typed text back", async () => {
    const { page } = ui
    const typed = "select o.id, c.first_name from orders o join customers c on c.id=o.customer_id where o.id<3"
    await typeSql(typed)
    await page.keyboard.press("Shift+Alt+KeyF")
    // sql-formatter's layout: one clause keyword a line, its items indented by two spaces, keywords kept as typed
    await expect.poll(lines).toEqual([
      "select",
      "  o.id,",
      "  c.first_name",
      "from",
      "  orders o",
      "  join customers c on c.id = o.customer_id",
      "where",
      "  o.id < 3"
    ])
    await screenshot(page, "console-formatted")
    await page.keyboard.press("Control+z")
    await expect.poll(lines).toEqual([typed])
    await page.keyboard.press("Shift+Alt+KeyF")
    await expect.poll(async () => (await lines()).length).toBe(8)
    // the formatted statement is still the one that runs
    await page.keyboard.press("Control+Enter")
    await page.getByRole("status").filter({ hasText: /^2 rows in/ }).waitFor()
  })

  it("D-102: the Format button formats only the selection when there is one, and says so when the text does not parse", async () => {
    const { page } = ui
    await typeSql("select 1 as kept_as_is;\nselect a,b from customers where id in (1,2);")
    await page.keyboard.press("Control+End")
    await page.keyboard.press("Shift+Home")
    await page.getByRole("button", { name: "Format" }).click()
    await expect.poll(lines).toEqual([
      "select 1 as kept_as_is;",
      "select",
      "  a,",
      "  b",
      "from",
      "  customers",
      "where",
      "  id in (1, 2);"
    ])
    await typeSql("select 'unterminated")
    await page.getByRole("button", { name: "Format" }).click()
    await page.getByRole("alert").filter({ hasText: /^Not formatted \(nothing was changed\): .*line 1 column 8/ })
      .waitFor()
    expect(await lines()).toEqual(["select 'unterminated"])
  })

  it("Cmd/Ctrl+/ comments the current line with `-- `, the selected lines together, and uncomments them again", async () => {
    const { page } = ui
    await typeSql("SELECT 1;\nSELECT 2;\nSELECT 3;")
    await page.keyboard.press("Control+Home")
    await page.keyboard.press("Control+/")
    await expect.poll(lines).toEqual(["-- SELECT 1;", "SELECT 2;", "SELECT 3;"])
    await page.keyboard.press("Control+/")
    await expect.poll(lines).toEqual(["SELECT 1;", "SELECT 2;", "SELECT 3;"])
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Shift+ArrowDown")
    await page.keyboard.press("Shift+End")
    await page.keyboard.press("Control+/")
    await expect.poll(lines).toEqual(["SELECT 1;", "-- SELECT 2;", "-- SELECT 3;"])
    // a commented statement does not run: Run all runs only the first
    await page.keyboard.press("Control+Shift+Enter")
    await expect.poll(() => page.getByRole("tablist", { name: "Results" }).getByRole("tab").first().textContent()).toBe(
      "SELECT 1"
    )
    await page.getByLabel("SQL").click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Control+/")
    await expect.poll(async () => (await lines()).every((line) => line.startsWith("-- "))).toBe(true)
  })

  it("result headers show each column's declared type beside its name; an expression, which SQLite gives no type, shows none", async () => {
    const { page } = ui
    const db = new Database(join(ui.server.home, "sample.db"), { readonly: true })
    const declared = db.prepare("SELECT name, type FROM pragma_table_info('orders')").all() as Array<
      { name: string; type: string }
    >
    db.close()
    const shown = declared.slice(0, 3)
    await typeSql(`SELECT ${shown.map((column) => column.name).join(", ")}, 1 + 1 AS two FROM orders LIMIT 1`)
    await page.keyboard.press("Control+Enter")
    const headers = page.locator("[role=\"grid\"][aria-label=\"Results\"] [role=\"columnheader\"]")
    await headers.filter({ hasText: "two" }).waitFor()
    expect(await headers.locator(".th-type").allTextContents()).toEqual(shown.map((column) => column.type))
    expect(await headers.filter({ hasText: "two" }).locator(".th-type").count()).toBe(0)
  })

  it("completion right after `alias.` lists exactly the columns of the table the alias names", async () => {
    const { page } = ui
    const db = new Database(join(ui.server.home, "sample.db"), { readonly: true })
    const columns = (table: string) =>
      (db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table) as Array<string>).sort()
    const ordersColumns = columns("orders")
    const customersColumns = columns("customers")
    db.close()
    const options = page.locator(".cm-tooltip-autocomplete [role=option] .cm-completionLabel")
    const offered = async () => (await options.allTextContents()).sort()

    await typeSql("SELECT o. FROM orders o")
    await page.keyboard.press("Control+Home")
    for (let step = 0; step < "SELECT o.".length; step++) await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Control+Space")
    await expect.poll(offered).toEqual(ordersColumns)
    await page.keyboard.press("Escape")

    // typing the dot opens the list by itself, and a joined table's alias gets its own table's columns
    await typeSql("SELECT  FROM orders o JOIN customers cu ON cu.id = o.customer_id")
    await page.keyboard.press("Control+Home")
    for (let step = 0; step < "SELECT ".length; step++) await page.keyboard.press("ArrowRight")
    await page.keyboard.type("cu.")
    await expect.poll(offered).toEqual(customersColumns)
    // CodeMirror takes Enter for the list only 75 ms after it opened (its interactionDelay)
    await page.waitForTimeout(200)
    await page.keyboard.press("Enter")
    expect((await lines())[0]).toMatch(new RegExp(`^SELECT cu\\.(${customersColumns.join("|")}) FROM`))
  })
})
