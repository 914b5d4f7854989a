import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { frameLine, measureFrames } from "../support/Frames.ts"
import { cell, columnTexts, grid } from "../support/Grid.ts"

/**
 * D-100: Ctrl/Cmd+V of a spreadsheet range in a real Chromium on the sample SQLite — lines past the last row become
 * new rows, every value is checked against its column's type before anything is staged, and nothing reaches the
 * database before the Save dialog's exact statements are applied.
 */
describe("pasting a range past the last row", () => {
  let ui: UiSession
  let db: Database.Database
  const rows = () => grid(ui.page, "Rows")
  const paste = async (text: string) => {
    await ui.page.evaluate((t) => navigator.clipboard.writeText(t), text)
    await ui.page.keyboard.press("Control+v")
  }
  const openTable = async (name: string, status: string | RegExp) => {
    await ui.page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: new RegExp(`^${name}`) })
      .click()
    await ui.page.getByLabel("Page status").filter({ visible: true, hasText: status }).waitFor()
  }

  beforeAll(async () => {
    ui = await openUi()
    db = new Database(join(ui.server.home, "sample.db"))
    db.exec(`CREATE TABLE stock (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL);
      INSERT INTO stock VALUES (1, 'bolt', 10, 0.5), (2, 'nut', 20, 0.25);
      CREATE TABLE wide (id INTEGER PRIMARY KEY, c1 TEXT, c2 INTEGER, c3 TEXT, c4 REAL, c5 TEXT, c6 INTEGER, c7 TEXT, c8 TEXT, c9 INTEGER);
      INSERT INTO wide VALUES (1, 'a', 1, 'b', 1.5, 'c', 2, 'd', 'e', 3);`)
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.ui.origin })
    await ui.page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await openTable("stock", "Rows 1–2 of 2")
  })
  afterAll(async () => {
    db?.close()
    await ui?.close()
  })

  it("D-100: a bad value in an overflow line is named and nothing is staged; a good range edits the last row and adds the rest as new rows, saved only by the Save dialog", async () => {
    const { page } = ui
    const save = page.getByRole("button", { name: /^Save/ }).filter({ visible: true })
    await (await cell(rows(), 1, "name")).click()
    await paste("washer\t30\nscrew\tmany\n")
    await page.getByText("Nothing pasted: new row 1, qty: Enter a number (or set NULL with Ctrl+Shift+N).").waitFor()
    expect(await save.textContent()).toBe("Save")
    expect(await columnTexts(rows(), "name")).toEqual(["bolt", "nut"])

    await (await cell(rows(), 1, "name")).click()
    await paste("washer\t30\nscrew\t40\nrivet\t5\n")
    await page.getByText("Pasted 6 cells (2 new rows): Save shows the statements.").waitFor()
    // new rows join the other new rows above the read rows, in the order pasted
    expect(await columnTexts(rows(), "name")).toEqual(["screw", "rivet", "bolt", "washer"])
    expect(await save.textContent()).toBe("Save (3)")
    await screenshot(page, "paste-new-rows")
    expect(db.prepare("SELECT count(*) AS n FROM stock").get()).toEqual({ n: 2 })

    await page.keyboard.press("Control+s")
    const dialog = page.getByRole("dialog", { name: "Save 3 changes" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `UPDATE "stock" SET "name" = 'washer', "qty" = 30 WHERE "id" = 2`,
      `INSERT INTO "stock" ("name", "qty") VALUES ('screw', 40)`,
      `INSERT INTO "stock" ("name", "qty") VALUES ('rivet', 5)`
    ])
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 3 changes." }).waitFor()
    expect(db.prepare("SELECT name, qty FROM stock ORDER BY id").all()).toEqual([
      { name: "bolt", qty: 10 },
      { name: "washer", qty: 30 },
      { name: "screw", qty: 40 },
      { name: "rivet", qty: 5 }
    ])
  })

  it("D-100: a range wider than the columns right of the focused cell is refused whole", async () => {
    const { page } = ui
    await (await cell(rows(), 0, "price")).click()
    await paste("1\t2\n")
    await page.getByText("Nothing pasted: the 1×2 range does not fit from this cell.").waitFor()
    expect(await page.getByRole("button", { name: /^Save/ }).filter({ visible: true }).textContent()).toBe("Save")
  })

  it("D-100: 10,000 pasted cells (1,000 lines × 10 columns) are staged in one go and the page stays responsive (measured, reported)", async () => {
    const { page } = ui
    await openTable("wide", "Rows 1–1 of 1")
    await (await cell(rows(), 0, "c1")).click()
    const text = Array.from(
      { length: 1000 },
      (_, i) => [`t${i}`, i, `u${i}`, i / 4, `v${i}`, i * 2, `w${i}`, `x${i}`, i * 3, `y${i}`].join("\t")
    ).join("\n")
    // the first line edits the one read row from c1 on; the tenth value of each line lands past c9: one column too many
    await paste(text)
    await page.getByText("Nothing pasted: the 1000×10 range does not fit from this cell.").waitFor()
    await (await cell(rows(), 0, "id")).click()
    const withIds = Array.from(
      { length: 1000 },
      (_, i) => [1000 + i, `t${i}`, i, `u${i}`, i / 4, `v${i}`, i * 2, `w${i}`, `x${i}`, i * 3].join("\t")
    ).join("\n")
    await page.evaluate((t) => navigator.clipboard.writeText(t), withIds)
    // the machine's own noise: the same measurement while nothing happens
    console.log(
      frameLine(
        "idle page (baseline)",
        await measureFrames(page, () => page.waitForTimeout(300), async () => undefined)
      )
    )
    const report = await measureFrames(
      page,
      () => page.keyboard.press("Control+v"),
      () => page.getByText("Pasted 10000 cells (999 new rows): Save shows the statements.").waitFor()
    )
    console.log(frameLine("paste of 10,000 cells", report))
    expect(await page.getByRole("button", { name: /^Save/ }).filter({ visible: true }).textContent()).toBe(
      "Save (1000)"
    )
    expect(db.prepare("SELECT count(*) AS n FROM wide").get()).toEqual({ n: 1 })
    await page.getByRole("button", { name: "Discard" }).filter({ visible: true }).click()
  })
})
