import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { tempHome } from "../support/TestServer.ts"

/** The row detail on PostgreSQL (D-86): a jsonb column in CodeMirror's JSON editor, checked before it is staged. */
describePostgres("the row detail on PostgreSQL", () => {
  let postgres: PostgresServer
  let ui: UiSession
  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`CREATE TABLE settings (id bigint PRIMARY KEY, name text, doc jsonb);
      INSERT INTO settings VALUES (1, 'theme', '{"dark": true, "size": 12}'), (2, 'empty', NULL);
      GRANT ALL ON settings TO ${postgres.user};`)
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id: randomUUID(),
          name: "Harness PG",
          type: "postgresql",
          host: postgres.host,
          port: postgres.port,
          database: postgres.database,
          user: postgres.user,
          password: postgres.password,
          sslMode: "disable",
          externalAccess: "readWrite",
          aiPolicy: "alwaysAllow",
          confirmQueries: "writes"
        }]
      }),
      { mode: 0o600 }
    )
    ui = await openUi({ home })
  })
  afterAll(async () => {
    await ui?.close()
    await postgres?.stop()
  })

  it("edits a jsonb value in the row detail: invalid JSON is refused with the reason, valid JSON is saved by the exact UPDATE", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Harness PG" }).first().click()
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /settings/ }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 2/ }).waitFor()
    await (await cell(grid(page, "Rows"), 0, "name")).click()
    await page.keyboard.press("Space")
    const detail = page.getByRole("complementary", { name: "Row detail" })
    const doc = detail.getByRole("group", { name: "doc" }).locator(".cm-content")
    await doc.waitFor()
    await expect.poll(() => doc.innerText()).toContain(`"dark": true`)
    await doc.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.type(`{"dark": false, "size": }`)
    await page.keyboard.press("Control+Enter")
    await detail.getByRole("alert").filter({ hasText: /Not valid JSON \(line 1\)/ }).waitFor()
    await detail.getByRole("status").filter({ hasText: "Nothing staged" }).waitFor()
    await page.keyboard.press("Backspace")
    await page.keyboard.type(`14}`)
    await page.keyboard.press("Control+Enter")
    await detail.getByRole("status").filter({ hasText: "Staged 1 change" }).waitFor()
    await page.keyboard.press("Control+s")
    const dialog = page.getByRole("dialog", { name: "Save 1 change" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `UPDATE "settings" SET "doc" = '{"dark": false, "size": 14}' WHERE "id" = 1`
    ])
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 1 change." }).waitFor()
    expect(await postgres.sql(`SELECT doc->>'size' AS size FROM settings WHERE id = 1`)).toEqual([{ size: "14" }])
  })
})
