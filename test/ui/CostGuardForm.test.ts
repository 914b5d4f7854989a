import { Context, Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

// D-95: the cost guard's setting and budgets in the connection form.
describe("UI: a connection's cost guard", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi()
  })
  afterAll(() => ui?.close())

  const stored = (name: string) =>
    JSON.parse(readFileSync(join(ui.server.home, "connections.json"), "utf8")).connections.find((
      connection: { name: string }
    ) => connection.name === name)
  /** Save tests the connection first; nothing answers at this address, so the form offers Save anyway. */
  const save = async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Save", exact: true }).click()
    const anyway = page.getByRole("button", { name: "Save anyway" })
    await anyway.or(page.getByRole("table", { name: "Connections" })).first().waitFor({ timeout: 30_000 })
    if (await anyway.isVisible()) await anyway.click()
    await page.getByRole("table", { name: "Connections" }).waitFor()
  }

  it("D-95: a PostgreSQL connection is saved with the guard and its two budgets; off by default, and off again removes it", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Choose PostgreSQL" }).click()
    await page.getByLabel("Name").fill("Warehouse")
    await page.getByLabel("Host").fill("127.0.0.1")
    await page.getByLabel("Port").fill("1")
    await page.getByLabel("Database", { exact: true }).fill("dw")
    await page.getByLabel("User").fill("analyst")
    expect(await page.getByLabel("Cost guard").inputValue()).toBe("off")
    expect(await page.getByLabel("Largest read (estimated rows)").count()).toBe(0)
    await page.getByLabel("Cost guard").selectOption("refuse")
    expect(await page.getByLabel("Largest read (estimated rows)").getAttribute("placeholder")).toBe("1,000,000")
    await page.getByLabel("Largest read (estimated rows)").fill("5000")
    await page.getByLabel("Largest read (estimated cost)").fill("20000")
    await page.getByText("is refused, with advice to add a WHERE, an index or a LIMIT").waitFor()
    await screenshot(page, "cost-guard-form")
    if (process.env["DBDESK_COST_SHOTS"] !== undefined) {
      await page.screenshot({ path: process.env["DBDESK_COST_SHOTS"] })
    }
    await save()
    expect(stored("Warehouse")).toMatchObject({ costGuard: "refuse", costMaxRows: 5000, costMaxCost: 20000 })

    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Warehouse/ }).getByRole("button", {
      name: "Edit"
    }).click()
    expect(await page.getByLabel("Cost guard").inputValue()).toBe("refuse")
    expect(await page.getByLabel("Largest read (estimated rows)").inputValue()).toBe("5000")
    await page.getByLabel("Largest read (estimated cost)").fill("")
    await page.getByLabel("Cost guard").selectOption("ask")
    await save()
    const asked = stored("Warehouse")
    expect(asked).toMatchObject({ costGuard: "ask", costMaxRows: 5000 })
    expect(asked.costMaxCost).toBeUndefined()

    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Warehouse/ }).getByRole("button", {
      name: "Edit"
    }).click()
    await page.getByLabel("Cost guard").selectOption("off")
    await save()
    expect(stored("Warehouse").costGuard).toBeUndefined()
  })

  it("D-95: a MySQL/MariaDB connection has a rows budget only, and a SQLite connection no cost guard", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Choose MySQL / MariaDB" }).click()
    await page.getByLabel("Cost guard").selectOption("ask")
    await page.getByLabel("Largest read (estimated rows)").waitFor()
    expect(await page.getByLabel("Largest read (estimated cost)").count()).toBe(0)
    await page.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Choose SQLite" }).click()
    await page.getByLabel("Name").waitFor()
    expect(await page.getByLabel("Cost guard").count()).toBe(0)
  })
})

describe("UI: the policy explainer shows the cost guard", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readOnly" })
    // the explainer runs nothing, so the connection need not reach a server
    await Effect.runPromise(
      Context.get(ui.server.context, Connections).add({
        name: "Lake",
        type: "postgresql",
        host: "127.0.0.1",
        database: "lake",
        user: "analyst",
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow",
        costGuard: "ask",
        costMaxRows: 5000
      })
    )
    await ui.page.reload()
  })
  afterAll(() => ui?.close())

  it("D-95: a read on a guarded connection lists the Cost guard gate with its budget, what happens above it and where to change it", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "MCP" }).click()
    await page.getByRole("tab", { name: "Settings" }).click()
    const panel = page.getByRole("region", { name: "Policy explainer" })
    await panel.getByLabel("Connection").selectOption({ label: "Lake" })
    await panel.getByLabel("Statement to explain").fill("SELECT * FROM events ORDER BY at")
    await panel.getByRole("button", { name: "Explain" }).click()
    const outcome = panel.getByRole("status", { name: "Outcome" })
    await outcome.waitFor()
    expect(await outcome.textContent()).toBe(
      "Outcome: It runs at once, if the planner's estimate is within the cost budget (above it, the user is asked first)."
    )
    const gate = panel.getByRole("list", { name: "Gates" }).locator("li").filter({ hasText: "Cost guard" })
    const text = await gate.textContent()
    expect(text).toContain(
      "✔ passes Cost guard: checked as it runs: the planner's estimate (EXPLAIN, which runs nothing) must stay within 5,000 estimated rows and an estimated cost of 1,000,000; above that you are asked to approve it, with the estimate shown"
    )
    expect(text).toContain("Change it in Connections › Edit › Cost guard.")
    await gate.scrollIntoViewIfNeeded()
    await screenshot(page, "cost-guard-explainer")
    if (process.env["DBDESK_COST_SHOTS_EXPLAINER"] !== undefined) {
      await page.screenshot({ path: process.env["DBDESK_COST_SHOTS_EXPLAINER"] })
    }
  })
})
