import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Tokens } from "../../src/services/Tokens.ts"
import { openUi, type UiSession } from "../support/Browser.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

/** The MCP panel's curated tools and toolsets in a real Chromium (D-90, D-91). */
describe("MCP panel: curated tools and toolsets", () => {
  let ui: UiSession
  let token: string
  beforeAll(async () => {
    ui = await openUi()
    token = (await Effect.runPromise(
      Context.get(ui.server.context as Context.Context<Tokens>, Tokens).create({
        name: "panel test",
        access: "readOnly",
        connections: "all"
      })
    )).value
    writeFileSync(
      join(ui.server.home, "tools.json"),
      JSON.stringify({
        version: 1,
        tools: [{
          name: "one_row",
          description: "One row",
          connection: "Sample (SQLite)",
          sql: "SELECT :n AS n",
          parameters: [{ name: "n", type: "integer" }]
        }]
      })
    )
    await ui.page.getByRole("button", { name: "MCP" }).click()
  }, 120_000)
  afterAll(() => ui?.close())

  it("the Curated tools tab lists a tool with its parameters; Test runs it with a sample argument bound; Disable takes it out of tools/list", async () => {
    const { page, server } = ui
    await page.getByRole("tab", { name: "Curated tools" }).click()
    const row = page.getByRole("table", { name: "Curated tools" }).getByRole("row").filter({ hasText: "one_row" })
    await row.filter({ hasText: "n: integer" }).waitFor()
    await row.getByRole("button", { name: "Test" }).click()
    await page.getByLabel("Sample n").fill("41")
    await page.getByRole("button", { name: "Run test" }).click()
    await page.getByRole("table", { name: "Test result" }).getByRole("cell", { name: "41" }).waitFor()
    await page.getByLabel("Sample n").fill("1; DROP TABLE x")
    await page.getByRole("button", { name: "Run test" }).click()
    await page.getByRole("alert").filter({ hasText: "n: expected a whole number" }).waitFor()
    const listed = async () =>
      ((await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${token}` })).json.result
        .tools as ReadonlyArray<{ name: string }>).map((tool) => tool.name)
    expect(await listed()).toContain("one_row")
    await row.getByRole("button", { name: "Disable" }).click()
    await row.filter({ hasText: "disabled" }).waitFor()
    expect(JSON.parse(readFileSync(join(server.home, "tools.json"), "utf8")).tools[0].disabled).toBe(true)
    // The server re-reads the file within a second.
    await expect.poll(listed, { timeout: 5_000 }).not.toContain("one_row")
  })

  it("a token created with the lean toolset lists three built-in tools and the curated ones", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Tokens" }).click()
    await page.getByLabel("Token name").fill("Lean client")
    await page.getByLabel("Token tools").fill("lean")
    await page.getByRole("button", { name: "Create token" }).click()
    const value = (await page.getByLabel("Token value").textContent())!.trim()
    await page.getByRole("table", { name: "Tokens" }).getByRole("row").filter({ hasText: "Lean client" }).filter({
      hasText: "lean"
    }).waitFor()
    const answer = await postMcp(ui.server.url, modernRequest("tools/list"), { authorization: `Bearer ${value}` })
    const names = (answer.json.result.tools as ReadonlyArray<{ name: string }>).map((tool) => tool.name)
    // one_row is disabled by the test before; were it offered, the lean preset would list it too.
    expect(names.filter((name) => name !== "one_row")).toEqual(["describe_table", "execute_query", "list_connections"])
  })
})
