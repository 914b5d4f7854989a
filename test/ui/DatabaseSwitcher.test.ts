import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { tempHome } from "../support/TestServer.ts"

const SECOND = "dbdesk_second"

/** The database switcher on PostgreSQL: the tree, a table tab (read, edit, save) and a console of another database. */
describePostgres("the database switcher on PostgreSQL", () => {
  let postgres: PostgresServer
  let ui: UiSession
  let id = ""
  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`CREATE TABLE accounts (id bigint PRIMARY KEY, display_name text);
      INSERT INTO accounts VALUES (1, 'first database');
      GRANT ALL ON accounts TO ${postgres.user};`)
    const bootstrap = await postgres.client({ database: "postgres" })
    await bootstrap.query(`CREATE DATABASE ${SECOND} OWNER ${postgres.user}`)
    await bootstrap.end()
    const second = await postgres.client({ database: SECOND, role: "app" })
    await second.query(`CREATE TABLE ledger (id int PRIMARY KEY, note text);
      INSERT INTO ledger VALUES (1, 'one'), (2, 'two'), (3, 'three')`)
    await second.end()
    const home = tempHome()
    id = randomUUID()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id,
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
    await ui.page.setViewportSize({ width: 1440, height: 900 })
  })
  afterAll(async () => {
    await ui?.close()
    await postgres?.stop()
  })

  const sidebar = () => ui.page.getByRole("complementary", { name: "Tables" }).filter({ visible: true })
  const tree = () => sidebar().getByRole("tree")

  it("D-98 the UI API reads another database of the server when asked, the connection's own otherwise", async () => {
    const overview =
      await (await ui.page.request.get(`${ui.ui.origin}/api/connections/${id}/catalog?database=${SECOND}`)).json()
    expect(overview).toMatchObject({ database: SECOND, schemas: ["public"] })
    const tables = await (await ui.page.request.get(`${ui.ui.origin}/api/connections/${id}/tables?database=${SECOND}`))
      .json()
    expect(tables.tables.map((t: any) => t.name)).toEqual(["ledger"])
    const own = await (await ui.page.request.get(`${ui.ui.origin}/api/connections/${id}/tables`)).json()
    expect(own.tables.map((t: any) => t.name)).toEqual(["accounts"])
  })

  it("D-98 switching the database reads its tree; a table tab on it reads, saves an edit, and keeps its database after a reload", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Harness PG" }).first().click()
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    await sidebar().getByLabel("Database", { exact: true }).selectOption(SECOND)
    await tree().getByRole("button", { name: /^ledger/ }).waitFor()
    expect(await tree().getByRole("button", { name: /^accounts/ }).count()).toBe(0)
    await tree().getByRole("button", { name: /^ledger/ }).click()
    await page.getByRole("tab", { name: `ledger (${SECOND})`, selected: true }).waitFor()
    expect(page.url()).toContain(`/db/${SECOND}/table/ledger`)
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 3$/ }).waitFor()
    const rows = grid(page, "Rows")
    await (await cell(rows, 1, "note")).dblclick()
    await page.getByLabel("Cell value").fill("deux")
    await page.getByLabel("Cell value").press("Enter")
    await page.keyboard.press("Control+s")
    await page.getByRole("dialog", { name: "Save 1 change" }).getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 1 change." }).waitFor()
    const saved = await postgres.client({ database: SECOND })
    expect((await saved.query("SELECT note FROM ledger WHERE id = 2")).rows).toEqual([{ note: "deux" }])
    await saved.end()
    await screenshot(page, "database-switcher-postgres")
    // the switcher back on the connection's own database: the open tab keeps reading the second one
    await sidebar().getByLabel("Database", { exact: true }).selectOption(postgres.database)
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    await page.reload()
    await page.getByRole("tab", { name: `ledger (${SECOND})`, selected: true }).waitFor()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 3$/ }).waitFor()
    await expect.poll(async () => (await cell(grid(page, "Rows"), 1, "note")).textContent(), { timeout: 10_000 }).toBe(
      "deux"
    )
  })

  it("D-98 a console opened while another database is chosen runs there, and says so in its title", async () => {
    const { page } = ui
    await sidebar().getByLabel("Database", { exact: true }).selectOption(SECOND)
    await tree().getByRole("button", { name: /^ledger/ }).waitFor()
    await page.getByRole("button", { name: "New console" }).click()
    await page.getByRole("tab", { name: new RegExp(`^Console \\d+ \\(${SECOND}\\)$`), selected: true }).waitFor()
    const editor = page.getByLabel("SQL").filter({ visible: true })
    await editor.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Delete")
    await editor.fill("SELECT current_database() AS here, count(*) AS notes FROM ledger")
    await page.keyboard.press("Control+Enter")
    await expect.poll(async () => (await cell(grid(page, "Results"), 0, "here")).textContent().catch(() => ""), {
      timeout: 15_000
    }).toBe(SECOND)
    await page.reload()
    await page.getByRole("tab", { name: new RegExp(`^Console \\d+ \\(${SECOND}\\)$`), selected: true }).waitFor()
  })

  it("D-98 choosing the database already shown keeps its tree; switching back before the other database's objects arrive shows the own objects, not the late answer", async () => {
    const { page } = ui
    await sidebar().getByLabel("Database", { exact: true }).selectOption(postgres.database)
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    await sidebar().getByLabel("Database", { exact: true }).selectOption(postgres.database)
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    // the second database's object list answers only after the switcher is back on the connection's own database
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let asked = false
    const secondObjects = (url: URL) =>
      url.pathname.endsWith(`/connections/${id}/catalog/objects`) && url.searchParams.get("database") === SECOND
    await page.route(secondObjects, async (route) => {
      asked = true
      await held
      await route.continue()
    })
    // a reload forgets the cached reads, so the second database's objects are asked for again
    await sidebar().getByTitle("Reload the list and the row counts").click()
    await sidebar().getByLabel("Database", { exact: true }).selectOption(SECOND)
    await expect.poll(() => asked, { timeout: 10_000 }).toBe(true)
    await sidebar().getByLabel("Database", { exact: true }).selectOption(postgres.database)
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    const answered = page.waitForResponse((response) => secondObjects(new URL(response.url())))
    release()
    await (await answered).finished()
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    expect(await tree().getByRole("button", { name: /^ledger/ }).count()).toBe(0)
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    await page.unroute(secondObjects)
  })

  it("D-98 Open in console from a table tab on another database opens a console on that database, whatever the switcher says", async () => {
    const { page } = ui
    await sidebar().getByLabel("Database", { exact: true }).selectOption(postgres.database)
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    await page.getByRole("tab", { name: `ledger (${SECOND})` }).click()
    await page.getByRole("button", { name: "Open in console" }).filter({ visible: true }).click()
    await page.getByRole("tab", { name: new RegExp(`^Console \\d+ \\(${SECOND}\\)$`), selected: true }).waitFor()
    await expect.poll(() => page.locator(".cm-content:visible").textContent()).toContain("ledger")
    await page.getByLabel("SQL").filter({ visible: true }).click()
    await page.keyboard.press("Control+Enter")
    await expect.poll(async () => (await cell(grid(page, "Results"), 1, "note")).textContent().catch(() => ""), {
      timeout: 15_000
    }).toBe("deux")
    await screenshot(page, "database-switcher-console")
  })
})
