import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, columnTexts, grid } from "../support/Grid.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

/** Browser tests of the views on the sample SQLite connection (D-60), against the real server. */
describe("UI on the sample SQLite connection", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readWrite" })
  })
  afterAll(() => ui?.close())

  it("the key URL is exchanged for the cookie and the Connections view lists the sample connection", async () => {
    const { page } = ui
    expect(new URL(page.url()).search).toBe("")
    const row = page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Sample \(SQLite\)/ })
    await row.waitFor()
    expect(await row.textContent()).toContain("Read and write")
    await screenshot(page, "connections")
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Choose PostgreSQL" }).click()
    await page.getByRole("textbox", { name: "Host" }).waitFor()
    expect(await page.getByLabel("Password").getAttribute("type")).toBe("password")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("alert").filter({ hasText: "Give the connection a name." }).waitFor()
    await screenshot(page, "connection-form")
    await page.getByRole("button", { name: "Cancel" }).click()
  })

  it("Browse: the sidebar shows row counts, orders opens in the grid, a header click sorts and the filter bar filters", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    const sidebar = page.getByRole("complementary", { name: "Tables" })
    await sidebar.getByRole("button", { name: /orders\s*1,200/ }).click()
    const rows = grid(page, "Rows")
    await page.getByLabel("Page status").filter({ hasText: "Rows 1–1,000 of 1,200" }).waitFor()
    const firstId = async () => (await cell(rows, 0, "id")).textContent()
    expect(await firstId()).toBe("1")
    const idHeader = rows.getByRole("columnheader").filter({
      has: page.locator(".th-name", { hasText: /^id( [▲▼])?$/ })
    })
    await idHeader.click()
    await rows.getByRole("columnheader").filter({ hasText: "id ▲" }).waitFor()
    await idHeader.click()
    await rows.getByRole("columnheader").filter({ hasText: "id ▼" }).waitFor()
    await expect.poll(firstId).toBe("1200")
    await page.getByRole("button", { name: "Next ▶" }).click()
    await page.getByLabel("Page status").filter({ hasText: "Rows 1,001–1,200 of 1,200" }).waitFor()
    await page.getByRole("button", { name: "Add filter" }).click()
    await page.getByLabel("Filter column").selectOption("status")
    await page.getByLabel("Filter value").fill("cancelled")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByLabel("Page status").filter({ hasText: /Rows 1–\d+ of \d+/ }).waitFor()
    const statuses = await columnTexts(rows, "status")
    expect(statuses.length).toBeGreaterThan(0)
    expect(statuses.length).toBeLessThan(1200)
    expect(new Set(statuses)).toEqual(new Set(["cancelled"]))
    await screenshot(page, "browse-orders")
  })

  it("Structure shows the columns and the DDL; Console runs a query and asks before a write", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Structure" }).click()
    const columns = page.getByRole("table", { name: "Columns" })
    await columns.getByRole("row", { name: /customer_id/ }).waitFor()
    expect(await page.getByLabel("DDL", { exact: true }).textContent()).toContain("CREATE TABLE")
    await screenshot(page, "structure")
    await page.getByRole("tab", { name: "Console" }).click()
    await page.getByLabel("SQL").fill("SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status")
    await page.getByRole("button", { name: "Run", exact: true }).click()
    const results = grid(page, "Results")
    await results.getByRole("columnheader").filter({ hasText: /^n$/ }).waitFor()
    expect(Number(await results.getAttribute("aria-rowcount"))).toBeGreaterThan(2)
    await screenshot(page, "console")
    await page.getByLabel("SQL").fill("DELETE FROM order_items")
    await page.getByRole("button", { name: "Run", exact: true }).click()
    const question = page.getByRole("alertdialog", { name: "Confirm the statement" })
    await question.getByLabel("Preview").filter({ hasText: /will delete [\d,]+ rows from order_items/ }).waitFor()
    await question.getByRole("button", { name: "Don't run" }).click()
    await question.waitFor({ state: "detached" })
  })

  it("MCP: status names the endpoint; a new token's value is shown once; settings and activity load", async () => {
    const { page, server } = ui
    await page.getByRole("button", { name: "MCP" }).click()
    await page.getByRole("table", { name: "Server status" }).getByText(server.url).waitFor()
    await screenshot(page, "mcp-status")
    await page.getByRole("tab", { name: "Tokens" }).click()
    await page.getByLabel("Token name").fill("Browser test")
    await page.getByLabel("Access level").selectOption("readWrite")
    await page.getByRole("button", { name: "Create token" }).click()
    const value = await page.getByLabel("Token value").textContent()
    expect(value).toMatch(/^dbd_[A-Za-z0-9_-]{43}$/)
    const row = page.getByRole("table", { name: "Tokens" }).getByRole("row", { name: /Browser test/ })
    await row.waitFor()
    expect(await row.textContent()).toContain(value!.slice(0, 8))
    expect(await row.textContent()).not.toContain(value!)
    await screenshot(page, "mcp-tokens")
    await page.getByRole("button", { name: "I have copied it" }).click()
    await page.getByLabel("Token value").waitFor({ state: "detached" })
    const listed = await (await page.request.get(`${ui.ui.origin}/api/tokens`)).text()
    expect(listed).not.toContain(value!)
    page.once("dialog", (dialog) => void dialog.accept())
    await row.getByRole("button", { name: "Revoke" }).click()
    await row.getByText("revoked").waitFor()
    await page.getByRole("tab", { name: "Activity" }).click()
    await page.getByRole("table", { name: "Activity" }).getByRole("row", { name: /token\.created/ }).first().waitFor()
    await screenshot(page, "mcp-activity")
    await page.getByRole("tab", { name: "Settings" }).click()
    await page.getByLabel("Most rows an AI client may ask for").waitFor()
    await screenshot(page, "mcp-settings")
  })

  it("an MCP write waits for the approval modal: the statement is shown, Deny has focus, Approve lets the call finish", async () => {
    const { page, server } = ui
    const call = postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: await sampleId(ui), query: "UPDATE orders SET status = 'refunded' WHERE id = 7" }
      }),
      { authorization: `Bearer ${server.token}` }
    )
    const modal = page.getByRole("dialog")
    await modal.waitFor()
    expect(await modal.getByLabel("Statement").textContent()).toBe("UPDATE orders SET status = 'refunded' WHERE id = 7")
    // D-69: the dry run, rolled back, under the statement
    expect(await modal.getByLabel("Preview").textContent()).toMatch(
      /^Dry run \(rolled back\): will change 1 row in orders\.id=7: status: '\w+' → 'refunded'$/
    )
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Deny")
    await screenshot(page, "approval-modal")
    await modal.getByRole("button", { name: "Approve" }).click()
    const response = await call
    expect(response.status).toBe(200)
    expect(response.json.result.content[0].text).not.toMatch(/^[a-z_]+: /)
    expect(response.json.result.structuredContent.rows_affected).toBe(1)
    await modal.waitFor({ state: "detached" })
  })

  it("a denied write is refused to the MCP client", async () => {
    const { page, server } = ui
    const call = postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: await sampleId(ui), query: "DELETE FROM orders WHERE id = 8" }
      }),
      { authorization: `Bearer ${server.token}` }
    )
    await page.getByRole("dialog").getByRole("button", { name: "Deny" }).click()
    const response = await call
    expect(response.json.result.isError).toBe(true)
    expect(response.json.result.content[0].text).toMatch(/^denied: /)
  })
})

const sampleId = async (ui: UiSession): Promise<string> => {
  const list = (await (await ui.page.request.get(`${ui.ui.origin}/api/connections`)).json()) as Array<{ id: string }>
  return list[0]!.id
}
