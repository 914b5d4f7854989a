import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/** Issue 28's UI parts in a real browser against the real server: "Open in console", the policy explainer. */
describe("issue 28 in the UI", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readOnly" })
  })
  afterAll(() => ui?.close())

  it("item 2: 'Open in console' on a sorted Data view opens the console with its SELECT, which gives the grid's rows", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /products/ }).click()
    const grid = page.getByRole("table", { name: "Rows" })
    await page.getByLabel("Page status").filter({ hasText: "Rows 1–60" }).waitFor()
    await grid.getByRole("columnheader", { name: /^price/ }).click()
    await grid.getByRole("columnheader", { name: "price ▲" }).waitFor()
    await grid.getByRole("columnheader", { name: "price ▲" }).click()
    await grid.getByRole("columnheader", { name: "price ▼" }).waitFor()
    const gridRows = await grid.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.textContent))
    await page.getByRole("button", { name: "Open in console" }).click()
    const sql = page.getByLabel("SQL")
    await sql.waitFor()
    expect(await sql.inputValue()).toBe("SELECT * FROM \"products\" ORDER BY \"price\" DESC LIMIT 1000 OFFSET 0")
    await page.getByRole("button", { name: "Run" }).click()
    const results = page.getByRole("table", { name: "Results" })
    await results.waitFor()
    expect(await results.locator("tbody tr").count()).toBe(60)
    expect(await results.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.textContent))).toEqual(gridRows)
    await screenshot(page, "open-in-console")
  })

  it("item 3: the policy explainer in MCP › Settings lists the gates in order and the outcome of a write from a readOnly token", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "MCP" }).click()
    await page.getByRole("tab", { name: "Settings" }).click()
    const panel = page.getByRole("region", { name: "Policy explainer" })
    await panel.getByLabel("Token").selectOption({ label: "test readOnly (readOnly)" })
    await panel.getByLabel("Statement to explain").fill("DELETE FROM orders WHERE id = 3")
    await panel.getByRole("button", { name: "Explain" }).click()
    const outcome = panel.getByRole("status", { name: "Outcome" })
    await outcome.waitFor()
    expect(await outcome.textContent()).toBe("Outcome: refused with JSON-RPC error -33007 (HTTP 403): This statement changes data, which needs the tools:write scope {\"requiredScopes\":[\"tools:read\",\"tools:write\"]}")
    const gates = await panel.getByRole("list", { name: "Gates" }).locator("li").allTextContents()
    expect(gates.map((gate) => gate.split(" (")[0])).toEqual([
      "pass Tool scope", "pass External access", "pass AI policy", "pass Token allowlist", "pass Access dialog",
      "pass Classifier verdict", "pass Destructive-tool requirement", "stops Write scope"
    ])
    await screenshot(page, "policy-explainer")
  })
})
