import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { tempHome } from "../support/TestServer.ts"

/** The database switcher on MariaDB: another database's tree and a table tab on it (read, Save, Structure). */
describeMariadb("the database switcher on MariaDB", () => {
  let mariadb: MariadbServer
  let ui: UiSession
  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL);
      INSERT INTO products VALUES (1, 'Lamp');
      CREATE TABLE ${mariadb.otherDatabase}.gadgets (id INT PRIMARY KEY, label VARCHAR(40) NOT NULL);
      INSERT INTO ${mariadb.otherDatabase}.gadgets VALUES (1, 'Hook'), (2, 'Clip')`)
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id: randomUUID(),
          name: "Store (MariaDB)",
          type: "mysql",
          host: mariadb.host,
          port: mariadb.port,
          database: mariadb.database,
          user: mariadb.user,
          password: mariadb.password,
          sslMode: "disabled",
          externalAccess: "readWrite",
          aiPolicy: "alwaysAllow",
          confirmQueries: "writes"
        }]
      }),
      { mode: 0o600 }
    )
    ui = await openUi({ home })
    await ui.page.setViewportSize({ width: 1440, height: 900 })
  }, 120_000)
  afterAll(async () => {
    await ui?.close()
    await mariadb?.stop()
  }, 60_000)

  it("D-98 switching the database reads its tables; a table tab on it reads, saves an edit and shows its structure", async () => {
    const { page } = ui
    const sidebar = page.getByRole("complementary", { name: "Tables" }).filter({ visible: true })
    const tree = sidebar.getByRole("tree")
    await page.getByRole("button", { name: "Store (MariaDB)" }).first().click()
    await tree.getByRole("button", { name: /^products/ }).waitFor()
    await sidebar.getByLabel("Database", { exact: true }).selectOption(mariadb.otherDatabase)
    await tree.getByRole("button", { name: /^gadgets/ }).waitFor()
    expect(await tree.getByRole("button", { name: /^products/ }).count()).toBe(0)
    await tree.getByRole("button", { name: /^gadgets/ }).click()
    await page.getByRole("tab", { name: `gadgets (${mariadb.otherDatabase})`, selected: true }).waitFor()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 2$/ }).waitFor()
    await (await cell(grid(page, "Rows"), 1, "label")).dblclick()
    await page.getByLabel("Cell value").fill("Clamp")
    await page.getByLabel("Cell value").press("Enter")
    await page.keyboard.press("Control+s")
    await page.getByRole("dialog", { name: "Save 1 change" }).getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 1 change." }).waitFor()
    const [saved] = await mariadb.admin().query(`SELECT label FROM ${mariadb.otherDatabase}.gadgets WHERE id = 2`)
    expect(saved).toEqual([{ label: "Clamp" }])
    await page.getByRole("tab", { name: "Structure", exact: true }).filter({ visible: true }).click()
    await page.getByRole("table", { name: "Columns" }).filter({ visible: true }).getByRole("row", { name: /^label\b/ })
      .waitFor()
  })
})
