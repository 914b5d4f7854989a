import Database from "better-sqlite3"
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseCsv, parseJsonLines } from "../support/ExportFiles.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/** D-92: the UI's Export in a real Chromium on SQLite: a filtered table, a console result, a cancel, the folder setting. */
describe("Export in the UI", () => {
  let ui: UiSession
  let folder = ""
  const files = () => readdirSync(folder).sort()

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "dbdesk-ui-exports-"))
    ui = await openUi({ settings: { exports: { directory: folder } } })
    const db = new Database(join(ui.server.home, "sample.db"))
    db.exec(`CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
      INSERT INTO people VALUES (1, 'Ann, "A"', 'Oslo'), (2, 'Bob', 'Rome'), (3, 'Cara', 'Oslo'), (4, 'Dan', NULL), (5, 'Eve', 'Oslo')`)
    db.close()
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await ui.page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^people\b/ }).click()
    await ui.page.getByLabel("Page status").filter({ visible: true }).filter({ hasText: "of 5" }).waitFor()
  })
  afterAll(() => ui?.close())

  const exported = async () => {
    const path = (await ui.page.getByLabel("Exported file").textContent())!
    expect(statSync(path).mode & 0o777).toBe(0o600)
    return path
  }

  it("D-92 a table's Export keeps the grid's filter and order: every matching row, CSV, in a 0600 file whose path is shown", async () => {
    const { page } = ui
    await page.getByLabel("WHERE condition").fill("city = 'Oslo'")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByLabel("Page status").filter({ visible: true }).filter({ hasText: "of 3" }).waitFor()
    await page.getByRole("columnheader").filter({ hasText: "id" }).first().click()
    await page.getByRole("columnheader").filter({ hasText: "id" }).first().click()
    // keyboard: focus the button and press Enter; the first format is focused in the dialog
    await page.getByRole("button", { name: "Export…" }).focus()
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog", { name: "Export people" })
    await dialog.waitFor()
    await page.keyboard.press("Enter")
    await dialog.getByRole("button", { name: "Export", exact: true }).click()
    await dialog.getByLabel("Exported file").waitFor()
    const path = await exported()
    expect(path).toBe(join(folder, "people.csv"))
    expect(parseCsv(readFileSync(path, "utf8"))).toEqual([["id", "name", "city"], ["5", "Eve", "Oslo"], [
      "3",
      "Cara",
      "Oslo"
    ], ["1", "Ann, \"A\"", "Oslo"]])
    await expect.poll(() => dialog.getByRole("status", { name: "Export progress" }).textContent()).toContain("3 rows")
    await dialog.getByRole("button", { name: "Copy path" }).waitFor()
    await screenshot(page, "export-table")
    await page.screenshot({ path: "/work/wt/_shots/export2-table.png" }).catch(() => undefined)
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
  })

  it("D-92 a console result's Export runs its statement again into JSON Lines", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Console" }).click()
    const editor = page.getByLabel("SQL")
    await editor.waitFor()
    await editor.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Delete")
    await editor.fill("SELECT id, name FROM people WHERE id < 3 ORDER BY id")
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await page.getByRole("toolbar", { name: "Result" }).getByRole("button", { name: "Export…" }).click()
    const dialog = page.getByRole("dialog", { name: "Export the result" })
    await dialog.getByLabel("JSON Lines").check()
    await dialog.getByRole("button", { name: "Export", exact: true }).click()
    await dialog.getByLabel("Exported file").waitFor()
    const path = await exported()
    expect(path).toBe(join(folder, "query.jsonl"))
    expect(parseJsonLines(readFileSync(path, "utf8"))).toEqual([{ id: 1, name: "Ann, \"A\"" }, { id: 2, name: "Bob" }])
    await dialog.getByRole("button", { name: "Close" }).click()
  })

  it("D-92 Cancel stops a running export part-way and leaves no file", async () => {
    const { page } = ui
    const before = files()
    await page.getByLabel("SQL").click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Delete")
    await page.getByLabel("SQL").fill(
      "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 500000000) SELECT n, 'row ' || n AS t FROM s"
    )
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await page.getByRole("tab", { name: /^WITH RECURSIVE/ }).waitFor({ timeout: 120_000 })
    await page.getByRole("toolbar", { name: "Result" }).getByRole("button", { name: "Export…" }).click()
    const dialog = page.getByRole("dialog", { name: "Export the result" })
    await dialog.getByRole("button", { name: "Export", exact: true }).click()
    const progress = dialog.getByRole("status", { name: "Export progress" })
    await progress.filter({ hasText: /[1-9][\d,]* rows, .* so far/ }).waitFor({ timeout: 60_000 })
    await dialog.getByRole("progressbar", { name: "Exporting" }).waitFor()
    await screenshot(page, "export-running")
    await page.screenshot({ path: "/work/wt/_shots/export2-running.png" }).catch(() => undefined)
    await dialog.getByRole("button", { name: "Cancel export" }).click()
    await progress.filter({ hasText: "Cancelled" }).waitFor({ timeout: 60_000 })
    await expect.poll(files, { timeout: 30_000 }).toEqual(before)
    await dialog.getByRole("button", { name: "Close" }).click()
  }, 180_000)

  it("D-92 the UI's export refuses a statement that writes, before it runs, and writes no file", async () => {
    const before = files()
    const answer = await ui.page.evaluate(async () => {
      const connections = await (await fetch("/api/connections")).json() as Array<{ id: string; name: string }>
      const sample = connections.find((connection) => connection.name === "Sample (SQLite)")!
      const response = await fetch(`/api/connections/${sample.id}/export`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ runId: "write-1", format: "csv", query: "DELETE FROM people" })
      })
      return { status: response.status, body: await response.json() as { message: string } }
    })
    expect(answer.status).toBe(400)
    expect(answer.body.message).toBe("Export runs only a statement that reads; this one may change data.")
    const db = new Database(join(ui.server.home, "sample.db"), { readonly: true })
    expect(db.prepare("SELECT count(*) AS c FROM people").get()).toEqual({ c: 5 })
    db.close()
    expect(files()).toEqual(before)
  })

  it("D-92 the export folder is a setting in the MCP panel; a relative path is refused in plain words", async () => {
    const { page } = ui
    const other = mkdtempSync(join(tmpdir(), "dbdesk-ui-exports-2-"))
    await page.getByRole("button", { name: "MCP" }).first().click()
    await page.getByRole("tab", { name: "Settings" }).click()
    const field = page.getByLabel("Export folder")
    await field.waitFor()
    expect(await field.inputValue()).toBe(folder)
    await field.fill("relative/folder")
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByRole("status").filter({ hasText: "must be a full path" }).waitFor()
    await field.fill(other)
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor()
    // saved to settings.json (this test server's start-up override keeps the folder in force, as --flags do)
    expect(JSON.parse(readFileSync(join(ui.server.home, "settings.json"), "utf8")).exports).toEqual({
      directory: other
    })
  })
})
