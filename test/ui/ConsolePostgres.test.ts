import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import {
  cancelledByRequest,
  eventually,
  type PostgresServer,
  runningStatements,
  startPostgres
} from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { tempHome } from "../support/TestServer.ts"

/** The console's Cancel reaches PostgreSQL as a real cancel request, as an MCP cancel does. */
describePostgres("the console on PostgreSQL", () => {
  let postgres: PostgresServer
  let ui: UiSession
  beforeAll(async () => {
    postgres = await startPostgres()
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
    ui = await openUi({ home, settings: { limits: { queryTimeoutSeconds: 120 } } })
  })
  afterAll(async () => {
    await ui?.close()
    await postgres?.stop()
  })

  it("Cancel stops a running pg_sleep with a cancel request; nothing stays in pg_stat_activity; the session serves the next statement", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Harness PG" }).first().click()
    await page.getByRole("tab", { name: "Console" }).click()
    const editor = page.getByLabel("SQL")
    await editor.click()
    await page.keyboard.press("Control+a")
    await editor.fill("SELECT pg_sleep(60) AS ui_cancel_marker")
    await page.keyboard.press("Control+Enter")
    await eventually(async () => (await runningStatements(postgres, "ui_cancel_marker")) === 1, "pg_sleep running")
    await page.getByRole("button", { name: "Cancel", exact: true }).click()
    await page.getByRole("status").filter({ hasText: "Cancelled: the statement was stopped on the database." })
      .waitFor()
    await eventually(() => cancelledByRequest(postgres, "ui_cancel_marker"), "the server logged the cancel request")
    expect(await runningStatements(postgres, "ui_cancel_marker")).toBe(0)
    await screenshot(page, "console-postgres-cancelled")
    await editor.click()
    await page.keyboard.press("Control+a")
    await editor.fill("SELECT 41 + 1 AS after_cancel")
    await page.keyboard.press("Control+Enter")
    await page.locator("[role=\"grid\"][aria-label=\"Results\"] [role=\"gridcell\"]").filter({ hasText: "42" })
      .waitFor()
  })

  it("result headers show each column's type from the RowDescription, muted beside its name", async () => {
    const { page } = ui
    const editor = page.getByLabel("SQL")
    await editor.click()
    await page.keyboard.press("Control+a")
    await editor.fill(
      "SELECT 1::int4 AS i, 2::int8 AS b, 'x'::text AS t, now() AS ts, '{a}'::text[] AS arr, '{}'::jsonb AS j, 1.5::numeric(4,1) AS n"
    )
    await page.keyboard.press("Control+Enter")
    const headers = page.locator("[role=\"grid\"][aria-label=\"Results\"] [role=\"columnheader\"]")
    await headers.first().waitFor()
    await expect.poll(() => headers.locator(".th-type").allTextContents()).toEqual([
      "integer",
      "bigint",
      "text",
      "timestamptz",
      "text[]",
      "jsonb",
      "numeric"
    ])
    await screenshot(page, "console-postgres-types")
  })
})
