import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, type UiSession } from "../support/Browser.ts"
import { cell, columnTexts, grid } from "../support/Grid.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { tempHome } from "../support/TestServer.ts"

/** PostgreSQL returns an updated row where its new tuple lies: only an ORDER BY keeps a page's rows in place (B6). */
describePostgres("the grid on PostgreSQL", () => {
  let postgres: PostgresServer
  let ui: UiSession
  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`CREATE TABLE accounts (id bigint PRIMARY KEY, display_name text);
      INSERT INTO accounts SELECT g, CASE WHEN g = 5 THEN NULL ELSE 'account ' || g END FROM generate_series(1, 1500) g;
      GRANT ALL ON accounts TO ${postgres.user};`)
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

  it("an edited row keeps its place: every page is ordered by the primary key (B6)", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Harness PG" }).first().click()
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /accounts/ }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 1,?500/ }).waitFor()
    const rows = grid(page, "Rows")
    await (await cell(rows, 4, "display_name")).dblclick()
    await page.getByLabel("Cell value").fill("Five")
    await page.getByLabel("Cell value").press("Enter")
    await page.keyboard.press("Control+s")
    await page.getByRole("dialog", { name: "Save 1 change" }).getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 1 change." }).waitFor()
    // the page is read again after the save: wait for the saved value, then check every row kept its place
    await expect.poll(async () => (await cell(rows, 4, "display_name")).textContent(), { timeout: 10_000 }).toBe("Five")
    expect((await columnTexts(rows, "id")).slice(0, 7)).toEqual(["1", "2", "3", "4", "5", "6", "7"])
  })
})
