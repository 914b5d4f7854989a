import { statSync } from "node:fs"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { grid } from "../support/Grid.ts"

/**
 * The console as a database user's tool, in a real Chromium on the sample SQLite connection: the database checks a
 * statement before the console asks about it, the user's writes are dry-run, Run all / current / selection, result
 * tabs named after their statement, the sidebar after DDL, completion after `alias.`, and the text kept by the server.
 */
describe("the console checks, dry-runs and keeps its text", () => {
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
  const tabNames = () => ui.page.getByRole("tablist", { name: "Results" }).getByRole("tab").allTextContents()

  it("a typo is the database's syntax error at once, not a question about changing data", async () => {
    const { page } = ui
    await typeSql("SELEC id, first_name FROM customers WHERE id < 10")
    await page.keyboard.press("Control+Enter")
    await page.getByRole("alert").filter({ hasText: "near \"SELEC\": syntax error" }).waitFor()
    expect(await page.getByRole("alertdialog", { name: "Confirm the statement" }).count()).toBe(0)
    expect(await page.getByText("may change data").count()).toBe(0)
  })

  it("the user's own write is dry-run and rolled back before it is confirmed, and its result says its count once", async () => {
    const { page } = ui
    await typeSql("UPDATE customers SET first_name = first_name || '' WHERE id < 4")
    await page.keyboard.press("Control+Enter")
    const question = page.getByRole("alertdialog", { name: "Confirm the statement" })
    await question.getByLabel("Preview").filter({ hasText: "will change 3 rows in customers" }).waitFor()
    await screenshot(page, "console-dry-run")
    await question.getByRole("button", { name: "Run it" }).click()
    const summary = page.getByRole("status").filter({ hasText: /rows? affected/ })
    await summary.waitFor()
    const text = (await summary.textContent()) ?? ""
    expect(text).toMatch(/^3 rows affected in \d[\d,]* ms$/)
    expect(text.match(/affected/g)).toHaveLength(1)
  })

  it("Run all runs every statement into its own tab named after it; Run selection runs only the selection", async () => {
    const { page } = ui
    await typeSql("SELECT 1 AS first_one;\nSELECT 2 AS second_one;")
    await page.getByRole("button", { name: "Run all" }).click()
    await expect.poll(async () => (await tabNames()).slice(0, 2)).toEqual([
      "SELECT 2 AS second_one",
      "SELECT 1 AS first_one"
    ])
    await page.keyboard.press("Escape")
    await page.getByLabel("SQL").click()
    await page.keyboard.press("Control+End")
    await page.keyboard.press("Shift+Home")
    await page.getByRole("button", { name: "Run selection" }).click()
    await expect.poll(async () => (await tabNames())[0]).toBe("SELECT 2 AS second_one")
    await grid(page, "Results").getByRole("columnheader").filter({ hasText: "second_one" }).waitFor()
    await page.getByLabel("SQL").click()
    await page.keyboard.press("Control+Shift+Enter")
    await expect.poll(async () => (await tabNames()).slice(0, 3)).toEqual([
      "SELECT 2 AS second_one",
      "SELECT 1 AS first_one",
      "SELECT 2 AS second_one"
    ])
  })

  it("the statement under the cursor is tinted, the editor wraps long lines, the split resizes from the keyboard and the side panel collapses", async () => {
    const { page } = ui
    await typeSql(`SELECT 1;\nSELECT '${"x".repeat(400)}' AS long_one;`)
    await page.keyboard.press("Control+Home")
    await expect.poll(() => page.locator(".cm-current-statement").allTextContents()).toEqual(["SELECT 1;"])
    const content = page.locator(".cm-content")
    expect(await content.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true)
    const pane = page.locator(".editor-pane")
    const before = (await pane.boundingBox())!.height
    await page.getByRole("separator", { name: "Resize the editor" }).focus()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    await expect.poll(async () => (await pane.boundingBox())!.height).toBeGreaterThan(before + 40)
    await page.getByRole("button", { name: "Hide history" }).click()
    await page.getByRole("complementary", { name: "History and saved queries" }).waitFor({ state: "detached" })
    await page.getByRole("button", { name: "Show history" }).click()
    await page.getByRole("complementary", { name: "History and saved queries" }).waitFor()
  })

  it("completion after `alias.` offers that table's columns and no SQL keywords", async () => {
    const { page } = ui
    // the cursor after `o.cu`: keywords starting with CU (CUBE, CURRENT_DATE…) are no columns of orders
    await typeSql("SELECT o.cu FROM orders o")
    await page.keyboard.press("Control+Home")
    for (let step = 0; step < "SELECT o.cu".length; step++) await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Control+Space")
    const options = page.locator(".cm-tooltip-autocomplete [role=option]")
    await options.filter({ hasText: /^customer_id/ }).first().waitFor()
    const labels = await options.locator(".cm-completionLabel").allTextContents()
    expect(labels).not.toContain("SELECT")
    expect(labels.filter((label) => /^[A-Z_]+$/.test(label))).toEqual([])
    await page.keyboard.press("Escape")
  })

  it("the sidebar lists a table created in the console without a manual reload", async () => {
    const { page } = ui
    const sidebar = page.getByRole("complementary", { name: "Tables" })
    await sidebar.getByRole("button", { name: /^orders/ }).waitFor()
    await typeSql("CREATE TABLE made_here (id INTEGER PRIMARY KEY)")
    await page.keyboard.press("Control+Enter")
    await page.getByRole("alertdialog", { name: "Confirm the statement" }).getByRole("button", { name: "Run it" })
      .click()
    await sidebar.getByRole("button", { name: /^made_here/ }).waitFor({ timeout: 10_000 })
  })

  it("the console text is kept by the server (0600, per connection) and comes back after leaving the console", async () => {
    const { page, server } = ui
    await typeSql("SELECT 'kept across restarts' AS kept")
    // the save is debounced and the file may exist from earlier tests: wait for the server to hold this text
    const [sample] = (await (await page.request.get(`${ui.ui.origin}/api/connections`)).json()) as Array<{ id: string }>
    const keptTexts = async () =>
      ((await (await page.request.get(`${ui.ui.origin}/api/connections/${sample!.id}/console-tabs`)).json()) as {
        tabs: Array<{ text: string }>
      }).tabs.map((tab) => tab.text)
    await expect.poll(keptTexts).toEqual(["SELECT 'kept across restarts' AS kept"])
    const directory = join(server.home, "console-tabs")
    await expect.poll(() => {
      try {
        return readdirSync(directory).filter((name) => name.endsWith(".json")).length
      } catch {
        return 0
      }
    }).toBe(1)
    const file = join(directory, readdirSync(directory).find((name) => name.endsWith(".json"))!)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^orders/ }).click()
    await page.getByRole("tab", { name: "Data" }).click()
    await page.getByLabel("Page status").waitFor()
    await page.getByRole("tab", { name: "Console" }).click()
    await expect.poll(() => page.getByLabel("SQL").textContent()).toBe("SELECT 'kept across restarts' AS kept")
    // bounded: more than 256 KiB of console text for one connection is refused in plain words, and the kept text stays
    const tooMuch = await page.request.put(`${ui.ui.origin}/api/connections/${sample!.id}/console-tabs`, {
      data: { tabs: [{ id: "main", title: "big", text: "x".repeat(262_145) }], active: null }
    })
    expect(tooMuch.status()).toBe(400)
    expect(JSON.stringify(await tooMuch.json())).toContain("too much to keep")
    expect(await keptTexts()).toEqual(["SELECT 'kept across restarts' AS kept"])
  })
})

describe("console text survives a restart of serve", () => {
  it("the text typed before the restart is in the editor after it", async () => {
    const first = await openUi()
    const home = first.server.home
    const open = async (ui: UiSession) => {
      await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
      await ui.page.getByRole("tab", { name: "Console" }).click()
      await ui.page.getByLabel("SQL").waitFor()
    }
    try {
      await open(first)
      const editor = first.page.getByLabel("SQL")
      await editor.click()
      await first.page.keyboard.press("Control+a")
      await first.page.keyboard.press("Delete")
      await editor.fill("SELECT 'typed before the restart'")
      await expect.poll(() => readdirSync(join(home, "console-tabs")).length).toBe(1)
      await first.page.waitForTimeout(600)
    } finally {
      await first.close()
    }
    const second = await openUi({ home })
    try {
      await open(second)
      await expect.poll(() => second.page.getByLabel("SQL").textContent()).toBe("SELECT 'typed before the restart'")
    } finally {
      await second.close()
    }
  })
})
