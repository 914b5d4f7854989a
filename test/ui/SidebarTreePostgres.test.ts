import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { tempHome } from "../support/TestServer.ts"

/** The sidebar tree on PostgreSQL: schemas loaded on expand, each object's kind, the schema switcher, a cross-schema key. */
describePostgres("the sidebar tree on PostgreSQL", () => {
  let postgres: PostgresServer
  let ui: UiSession
  let id = ""
  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`CREATE TABLE accounts (id bigint PRIMARY KEY, display_name text);
      INSERT INTO accounts SELECT g, 'account ' || g FROM generate_series(1, 20) g;
      CREATE VIEW active_accounts AS SELECT * FROM accounts WHERE id < 10;
      CREATE FUNCTION add_tax(amount numeric) RETURNS numeric LANGUAGE sql AS 'SELECT amount * 1.2';
      CREATE SCHEMA analytics;
      CREATE TABLE analytics.page_views (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts(id), path text);
      INSERT INTO analytics.page_views SELECT g, (g % 20) + 1, '/p/' || g FROM generate_series(1, 300) g;
      CREATE MATERIALIZED VIEW analytics.daily AS SELECT account_id, count(*) AS views FROM analytics.page_views GROUP BY 1;
      GRANT ALL ON ALL TABLES IN SCHEMA public, analytics TO ${postgres.user};
      GRANT USAGE ON SCHEMA analytics TO ${postgres.user};`)
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

  const tree = () => ui.page.getByRole("complementary", { name: "Tables" }).filter({ visible: true }).getByRole("tree")
  const focused = () => ui.page.evaluate(() => document.activeElement?.getAttribute("title"))

  it("D-98 the API lists the schemas first and a schema's objects with their kinds on request", async () => {
    const overview = await (await ui.page.request.get(`${ui.ui.origin}/api/connections/${id}/catalog`)).json()
    expect(overview).toMatchObject({
      database: postgres.database,
      schemas: ["analytics", "public"],
      defaultSchema: "public"
    })
    expect(overview.databases).toContain(postgres.database)
    const analytics =
      await (await ui.page.request.get(`${ui.ui.origin}/api/connections/${id}/catalog/objects?schema=analytics`)).json()
    expect(analytics.objects).toEqual([
      {
        name: "analytics.page_views",
        label: "page_views",
        schema: "analytics",
        kind: "table",
        rowCount: 300,
        signature: null
      },
      expect.objectContaining({ name: "analytics.daily", kind: "materializedView" })
    ])
    const publicObjects =
      await (await ui.page.request.get(`${ui.ui.origin}/api/connections/${id}/catalog/objects?schema=public`)).json()
    expect(publicObjects.objects.map((o: any) => [o.name, o.kind])).toEqual([["accounts", "table"], [
      "active_accounts",
      "view"
    ], ["add_tax", "function"]])
    expect(publicObjects.objects[2].signature).toBe("amount numeric")
  })

  it("D-98 public is open, another schema loads when expanded with the keyboard; Enter opens its table; a function opens its definition", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Harness PG" }).first().click()
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
    expect(await tree().getByRole("button", { name: /^page_views/ }).count()).toBe(0)
    const analytics = tree().getByRole("treeitem", { name: "analytics" })
    expect(await analytics.getAttribute("aria-expanded")).toBe("false")
    await analytics.getByRole("button").focus()
    await page.keyboard.press("ArrowRight")
    await tree().getByRole("button", { name: /^page_views/ }).waitFor()
    expect(await analytics.getAttribute("aria-expanded")).toBe("true")
    expect(await tree().getByRole("button", { name: /^daily/ }).getAttribute("data-kind")).toBe("materializedView")
    expect(await tree().getByRole("button", { name: /^add_tax/ }).getAttribute("data-kind")).toBe("function")
    expect(await tree().getByRole("button", { name: /^page_views/ }).locator(".tree-count").textContent()).toBe("300")
    // tables first, then materialized views: Right enters the schema, Down and Up move
    await page.keyboard.press("ArrowRight")
    await expect.poll(focused).toBe("analytics.page_views (table)")
    await page.keyboard.press("ArrowDown")
    await expect.poll(focused).toBe("analytics.daily (materialized view)")
    await page.keyboard.press("ArrowUp")
    await expect.poll(focused).toBe("analytics.page_views (table)")
    await screenshot(page, "sidebar-tree-postgres")
    await page.keyboard.press("Enter")
    await page.getByRole("tab", { name: "analytics.page_views", selected: true }).waitFor()
    await page.getByLabel("Page status").filter({ visible: true, hasText: "of 300" }).waitFor()
    // Left goes back to the schema, and Left again collapses it
    await tree().getByRole("button", { name: /^page_views/ }).focus()
    await page.keyboard.press("ArrowLeft")
    await expect.poll(focused).toBe("Schema analytics")
    await page.keyboard.press("ArrowLeft")
    await expect.poll(() => analytics.getAttribute("aria-expanded")).toBe("false")
    await tree().getByRole("button", { name: /^add_tax/ }).click()
    await expect.poll(() => page.locator(".cm-content:visible").textContent()).toContain(
      `pg_get_functiondef('"public"."add_tax"(amount numeric)'::regprocedure)`
    )
  })

  it("D-98 the schema switcher shows one schema's objects, and the console resolves names in it", async () => {
    const { page } = ui
    const sidebar = page.getByRole("complementary", { name: "Tables" }).filter({ visible: true })
    await sidebar.getByLabel("Schema").selectOption("analytics")
    await tree().getByRole("button", { name: /^page_views/ }).waitFor()
    expect(await tree().getByRole("button", { name: /^accounts/ }).count()).toBe(0)
    // a console run now resolves unqualified names in that schema first
    await page.getByRole("button", { name: "New console" }).click()
    const editor = page.getByLabel("SQL").filter({ visible: true })
    await editor.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Delete")
    await editor.fill("SELECT count(*) AS seen FROM page_views")
    await page.keyboard.press("Control+Enter")
    await expect.poll(async () => (await cell(grid(page, "Results"), 0, "seen")).textContent().catch(() => ""), {
      timeout: 15_000
    }).toBe("300")
    await sidebar.getByLabel("Schema").selectOption("")
    await tree().getByRole("button", { name: /^accounts/ }).waitFor()
  })

  it("D-99 a key into another schema's table opens the referenced account filtered", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "analytics.page_views" }).click()
    const rows = grid(page, "Rows")
    const first = await cell(rows, 0, "account_id")
    await expect.poll(() => first.textContent()).toBe("2")
    await first.click()
    await page.keyboard.press("Control+Enter")
    await page.getByRole("tab", { name: "accounts", selected: true, exact: true }).waitFor()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 1$/ }).waitFor()
    expect(await (await cell(grid(page, "Rows"), 0, "display_name")).textContent()).toBe("account 2")
  })
})
