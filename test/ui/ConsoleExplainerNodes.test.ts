import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { books } from "../search/EngineHelpers.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { columnTexts, grid } from "../support/Grid.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"

/** D-87's UI parts in a real browser against the real server: "Open in console", the explainer, node health. */
describe("D-87 in the UI: open in console, the policy explainer, cluster nodes", () => {
  let ui: UiSession
  let engines: Array<RunningEngine> = []
  beforeAll(async () => {
    ui = await openUi({ token: "readOnly" })
    engines = await Promise.all([1, 2, 3].map(() => startEngine({ version: 29 })))
    for (const engine of engines) await engine.createCollection(books)
  })
  afterAll(async () => {
    await ui?.close()
    await Promise.all(engines.map((engine) => engine.stop().catch(() => undefined)))
  })

  it("'Open in console' on a sorted Data view opens the console with its SELECT, which gives the grid's rows", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /products/ }).click()
    const rows = grid(page, "Rows")
    const header = (label: RegExp) =>
      rows.getByRole("columnheader").filter({ has: page.locator(".th-name", { hasText: label }) })
    await rows.and(page.locator("[aria-rowcount=\"61\"]")).waitFor()
    await header(/^price$/).click()
    await header(/^price ▲$/).waitFor()
    await header(/^price ▲$/).click()
    await header(/^price ▼$/).waitFor()
    const gridIds = await columnTexts(rows, "id")
    const gridPrices = await columnTexts(rows, "price")
    await page.getByRole("button", { name: "Open in console" }).click()
    const sql = page.locator(".cm-content:visible")
    await sql.waitFor()
    expect(await sql.textContent()).toBe(
      "SELECT * FROM \"products\" ORDER BY \"price\" DESC, \"id\" ASC LIMIT 1000 OFFSET 0"
    )
    await page.getByRole("button", { name: "Run", exact: true }).click()
    const results = grid(page, "Results")
    await results.and(page.locator("[aria-rowcount=\"61\"]")).waitFor()
    const resultIds = await columnTexts(results, "id")
    const resultPrices = await columnTexts(results, "price")
    // Both grids are virtualized: compare the rows both have rendered, top first (at least 10 of the 60).
    const shown = Math.min(gridIds.length, resultIds.length)
    expect(shown).toBeGreaterThanOrEqual(10)
    expect(resultIds.slice(0, shown)).toEqual(gridIds.slice(0, shown))
    expect(resultPrices.slice(0, shown)).toEqual(gridPrices.slice(0, shown))
    await screenshot(page, "open-in-console")
  })

  it("the policy explainer in MCP › Settings lists the gates in order and the outcome of a write from a readOnly token", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "MCP" }).click()
    await page.getByRole("tab", { name: "Settings" }).click()
    const panel = page.getByRole("region", { name: "Policy explainer" })
    await panel.getByLabel("Token").selectOption({ label: "test readOnly (read only)" })
    await panel.getByLabel("Statement to explain").fill("DELETE FROM orders WHERE id = 3")
    await panel.getByRole("button", { name: "Explain" }).click()
    const outcome = panel.getByRole("status", { name: "Outcome" })
    await outcome.waitFor()
    expect(await outcome.textContent()).toBe(
      "Outcome: Refused at “Write scope”: This statement changes data, which needs the tools:write scope."
    )
    const gates = await panel.getByRole("list", { name: "Gates" }).locator("li").allTextContents()
    expect(gates.map((gate) => gate.split(":")[0])).toEqual([
      "✔ passes Tool scope",
      "✔ passes External access",
      "✔ passes AI policy",
      "✔ passes Token allowlist",
      "✔ passes Access dialog",
      "✔ passes Classifier verdict",
      "✔ passes Destructive-tool requirement",
      "✖ stops here Write scope"
    ])
    await screenshot(page, "policy-explainer")
  })

  it("the connection form's Options tab and the Server Dashboard list each node of a cluster with its health", async () => {
    const { page, server } = ui
    const [one, two, three] = engines as [RunningEngine, RunningEngine, RunningEngine]
    await Effect.runPromise(
      Context.get(server.context, Connections).add({
        name: "Books cluster",
        type: "search",
        host: one.host,
        port: one.port,
        apiKey: one.apiKey,
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes",
        nodes: `http://127.0.0.1:${two.port}, http://127.0.0.1:${three.port}`,
        randomizeNodes: false
      })
    )
    await two.stop()
    await page.reload()
    await page.getByRole("button", { name: "Connections" }).click()
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Books cluster/ }).getByRole(
      "button",
      { name: "Edit" }
    ).click()
    await page.getByRole("tab", { name: "Options" }).click()
    expect(await page.getByLabel("More nodes").inputValue()).toBe(
      `http://127.0.0.1:${two.port}, http://127.0.0.1:${three.port}`
    )
    const health = async () => {
      const table = page.getByRole("table", { name: "Node health" })
      await table.locator("tbody tr").nth(2).waitFor()
      return (await table.locator("tbody tr").allTextContents()).map((row) => row.replace(/ok · \d+ ms/, "ok"))
    }
    const inForm = await health()
    expect(inForm[0]).toBe(`node 1http://127.0.0.1:${one.port}healthyok`)
    expect(inForm[1]).toMatch(
      new RegExp(
        `^node 2http://127\\.0\\.0\\.1:${two.port}healthyCould not reach Typesense at http://127\\.0\\.0\\.1:${two.port}: `
      )
    )
    expect(inForm[2]).toBe(`node 3http://127.0.0.1:${three.port}healthyok`)
    await screenshot(page, "cluster-form")
    await page.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Books cluster/ }).getByRole(
      "button",
      { name: "Open" }
    ).click()
    await page.getByRole("tab", { name: "Server Dashboard" }).click()
    // the dashboard's own reads went through the cluster: node 2 failed them over, so dbdesk's client now counts it unhealthy
    // the nodes panel may answer before the dashboard's own reads: wait for those, then check the nodes again
    await page.getByText(/^Updated .+ · every 5 s$/).waitFor()
    await page.getByRole("button", { name: "Check nodes" }).click()
    await page.getByRole("table", { name: "Node health" }).locator("tbody tr").nth(1).filter({ hasText: "unhealthy" })
      .waitFor()
    const onDashboard = await health()
    expect(onDashboard[0]).toBe(inForm[0])
    expect(onDashboard[1]).toMatch(
      new RegExp(
        `^node 2http://127\\.0\\.0\\.1:${two.port}unhealthy since .+: Could not reach Typesense at .+Could not reach Typesense at `
      )
    )
    expect(onDashboard[2]).toBe(inForm[2])
    await screenshot(page, "cluster-dashboard")
  })
})
