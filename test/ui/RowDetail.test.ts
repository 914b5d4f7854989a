import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { frameLine, measureFrames } from "../support/Frames.ts"
import { cell, columnTexts, grid } from "../support/Grid.ts"

/**
 * Row and cell editing (D-85, D-86) in a real Chromium on the sample SQLite: the row-detail panel (long text, JSON
 * checked by CodeMirror's JSON linter), Delete, typing to edit, Ctrl+D, and the cell menu — every change a pending
 * edit that Save shows as its exact statements.
 */
describe("row and cell editing", () => {
  let ui: UiSession
  let db: Database.Database
  const detail = () => ui.page.getByRole("complementary", { name: "Row detail" })
  const notes = () => grid(ui.page, "Rows")
  const saveDialog = async (count: string) => {
    await ui.page.keyboard.press("Control+s")
    const dialog = ui.page.getByRole("dialog", { name: `Save ${count}` })
    await dialog.waitFor()
    return dialog
  }

  beforeAll(async () => {
    ui = await openUi()
    db = new Database(join(ui.server.home, "sample.db"))
    db.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT, meta JSON);
      INSERT INTO notes VALUES (1, 'first', 'a long body that goes on and on, well past what fits in a single line of the panel, to get a multi-line editor', '{"tags":["a"]}'),
        (2, 'second', 'short', NULL), (3, 'third', 'x', '[1]');
      CREATE TABLE big (id INTEGER PRIMARY KEY, doc JSON);`)
    const items = Array.from(
      { length: 16_000 },
      (_, i) => ({ id: i, name: `item ${i}`, tags: ["x", "y"], price: i * 1.25 })
    )
    db.prepare("INSERT INTO big VALUES (1, ?)").run(JSON.stringify({ items }))
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await ui.page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^notes/ }).click()
    await ui.page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–3 of 3" }).waitFor()
  })
  afterAll(async () => {
    db?.close()
    await ui?.close()
  })

  it("Space opens the row detail with every column; its edits are pending edits, and an invalid JSON value is not staged", async () => {
    const { page } = ui
    await (await cell(notes(), 0, "title")).click()
    await page.keyboard.press("Space")
    await detail().waitFor()
    expect(await detail().getByRole("group").evaluateAll((groups) => groups.map((g) => g.getAttribute("aria-label"))))
      .toEqual(["id", "title", "body", "meta"])
    // long text gets a multi-line editor, JSON a CodeMirror editor
    expect(await detail().getByRole("group", { name: "body" }).locator("textarea").count()).toBe(1)
    const meta = detail().getByRole("group", { name: "meta" }).locator(".cm-content")
    await meta.waitFor()
    await expect.poll(() => meta.innerText()).toContain(`"tags"`)
    await detail().getByRole("textbox", { name: "title" }).fill("first!")
    await meta.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.type(`{"tags": ["a",]}`)
    await detail().getByRole("button", { name: "Stage changes" }).click()
    await detail().getByRole("alert").filter({ hasText: /Not valid JSON/ }).waitFor()
    await detail().getByRole("status").filter({ hasText: /Nothing staged: meta is not valid/ }).waitFor()
    expect(await (await cell(notes(), 0, "title")).textContent()).toBe("first")
    await meta.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.type(`{"tags": ["a", "b"]}`)
    await page.keyboard.press("Control+Enter")
    await detail().getByRole("status").filter({ hasText: "Staged 2 changes" }).waitFor()
    expect(await (await cell(notes(), 0, "title")).getAttribute("class")).toContain("changed")
    await screenshot(page, "rowdetail-after")
    const dialog = await saveDialog("1 change")
    const statements = await dialog.getByLabel("Statements").locator("pre").allTextContents()
    expect(statements).toHaveLength(1)
    expect(statements[0]).toMatch(
      /^UPDATE "notes" SET "title" = 'first!', "meta" = '\{"tags": \["a", "b"\]\}' WHERE "id" = 1$/
    )
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 1 change." }).waitFor()
    expect(db.prepare("SELECT title, meta FROM notes WHERE id = 1").get()).toEqual({
      title: "first!",
      meta: `{"tags": ["a", "b"]}`
    })
    await detail().getByRole("button", { name: "Close" }).click()
    await detail().waitFor({ state: "detached" })
  })

  it("the toolbar button opens the row detail of the selected row; a long text edited there is kept whole", async () => {
    const { page } = ui
    await (await cell(notes(), 0, "title")).click()
    await page.getByRole("button", { name: "Row detail" }).filter({ visible: true }).click()
    await detail().getByText("Row 1").waitFor()
    await detail().getByRole("textbox", { name: "body" }).fill("line one\nline two")
    await detail().getByRole("group", { name: "meta" }).getByLabel("NULL").check()
    await detail().getByRole("button", { name: "Stage changes" }).click()
    const dialog = await saveDialog("1 change")
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `UPDATE "notes" SET "body" = 'line one\nline two', "meta" = NULL WHERE "id" = 1`
    ])
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("button", { name: "Discard" }).filter({ visible: true }).click()
    await page.getByRole("button", { name: "Row detail" }).filter({ visible: true }).click()
  })

  it("Delete marks the selected rows, typing on a cell starts its edit with that character, Ctrl+D duplicates", async () => {
    const { page } = ui
    await (await cell(notes(), 2, "title")).click()
    await page.keyboard.press("Delete")
    await expect.poll(async () => notes().locator("[role=\"row\"][aria-rowindex=\"4\"]").getAttribute("class"))
      .toContain("deleted")
    await (await cell(notes(), 1, "title")).click()
    await page.keyboard.type("Z")
    expect(await page.getByLabel("Cell value").inputValue()).toBe("Z")
    await page.keyboard.type("ed")
    await page.keyboard.press("Enter")
    expect(await (await cell(notes(), 1, "title")).textContent()).toBe("Zed")
    await page.keyboard.press("Control+d")
    await expect.poll(() => columnTexts(notes(), "title")).toEqual(["Zed", "first!", "Zed", "third"])
    const dialog = await saveDialog("3 changes")
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `DELETE FROM "notes" WHERE "id" = 3`,
      `UPDATE "notes" SET "title" = 'Zed' WHERE "id" = 2`,
      `INSERT INTO "notes" ("title", "body", "meta") VALUES ('Zed', 'short', NULL)`
    ])
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("button", { name: "Discard" }).filter({ visible: true }).click()
  })

  it("the cell menu (right-click, Shift+F10): set NULL, filter by this value, hide column, copy as", async () => {
    const { page } = ui
    await (await cell(notes(), 1, "body")).click({ button: "right" })
    const menu = page.getByRole("menu", { name: "Cell actions" })
    await menu.waitFor()
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual([
      "Copy as TSV Ctrl/Cmd+C",
      "Copy as CSV",
      "Copy as JSON",
      "Copy as SQL INSERT",
      "Set NULL Ctrl/Cmd+Shift+N",
      "Row detail Space",
      "Duplicate row Ctrl/Cmd+D",
      "Delete row Delete",
      "Filter by this value",
      "Hide column “body”"
    ])
    await menu.getByRole("menuitem", { name: /Set NULL/ }).click()
    expect(await (await cell(notes(), 1, "body")).getAttribute("class")).toContain("null")
    await page.getByRole("button", { name: "Discard" }).filter({ visible: true }).click()
    // the keyboard: Shift+F10 opens the menu on the focused cell, arrows and Enter choose
    await (await cell(notes(), 0, "title")).click()
    await page.keyboard.press("Shift+F10")
    await menu.waitFor()
    await page.keyboard.press("End")
    await page.keyboard.press("Enter")
    await menu.waitFor({ state: "detached" })
    await expect.poll(() => notes().getByRole("columnheader").count()).toBe(3)
    await page.keyboard.press("Shift+F10")
    await menu.getByRole("menuitem", { name: "Show 1 hidden column" }).click()
    await expect.poll(() => notes().getByRole("columnheader").count()).toBe(4)
    await (await cell(notes(), 2, "title")).click({ button: "right" })
    await menu.getByRole("menuitem", { name: "Filter by this value" }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–1 of 1" }).waitFor()
    expect(await columnTexts(notes(), "title")).toEqual(["third"])
  })

  it("Ctrl+V pastes a TSV range into the cells from the focused one, each value checked before anything is staged", async () => {
    const { page } = ui
    const focusTitle = async () => (await cell(notes(), 0, "title")).click()
    await ui.page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.ui.origin })
    await focusTitle()
    await page.evaluate(() => navigator.clipboard.writeText("not json\tx\n"))
    await (await cell(notes(), 0, "body")).click()
    await page.keyboard.press("Control+v")
    await page.getByText("Nothing pasted: row 1, meta: This column holds JSON: the text is not valid JSON.").waitFor()
    await page.evaluate(() => navigator.clipboard.writeText("T1\tB1\n"))
    await focusTitle()
    await page.keyboard.press("Control+v")
    await page.getByText("Pasted 2 cells: Save shows the statements.").waitFor()
    expect(await columnTexts(notes(), "title")).toEqual(["T1"])
    expect(await columnTexts(notes(), "body")).toEqual(["B1"])
    await page.evaluate(() => navigator.clipboard.writeText("a\tb\n"))
    await (await cell(notes(), 0, "meta")).click()
    await page.keyboard.press("Control+v")
    await page.getByText("Nothing pasted: the 1×2 range does not fit from this cell.").waitFor()
    await page.getByRole("button", { name: "Discard" }).filter({ visible: true }).click()
  })

  it("opens a 1 MB JSON value in the row detail (measured, reported)", async () => {
    const { page } = ui
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^big/ }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–1 of 1" }).waitFor()
    const big = grid(page, "Rows")
    await (await cell(big, 0, "id")).click()
    const size = (db.prepare("SELECT length(doc) AS n FROM big").get() as { n: number }).n
    // the longest gap between animation frames and the longest task, from Space to the editor shown
    const report = await measureFrames(
      page,
      () => page.keyboard.press("Space"),
      () => detail().getByRole("group", { name: "doc" }).locator(".cm-content").waitFor()
    )
    console.log(frameLine(`row detail of a ${(size / 1e6).toFixed(2)} MB JSON value`, report))
    expect(size).toBeGreaterThan(1_000_000)
    expect(await detail().getByRole("group", { name: "doc" }).locator(".cm-line").count()).toBeGreaterThan(0)
  })
})
