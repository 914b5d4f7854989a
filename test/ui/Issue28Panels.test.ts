import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/** Issue 28's UI parts in a real browser against the real server: the policy explainer of MCP › Settings. */
describe("issue 28 in the UI", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readOnly" })
  })
  afterAll(() => ui?.close())

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
