import Database from "better-sqlite3"
import { Context, Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Tokens } from "../../src/services/Tokens.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { modernRequest, postMcp, tempHome } from "../support/TestServer.ts"

const STATEMENT = "SELECT id, region, placed_at FROM orders WHERE region = :region AND placed_at >= :since ORDER BY id"

/**
 * D-90 in a real Chromium: a statement typed in the console is saved and exposed to AI clients from the Save dialog,
 * then the official client lists it and calls it with typed arguments; the MCP panel edits, tests and disables it.
 */
describe("curated tools made in the UI", () => {
  let ui: UiSession
  let token: string
  const toolsFile = () =>
    JSON.parse(readFileSync(join(ui.server.home, "tools.json"), "utf8")).tools as Array<Record<string, unknown>>
  const client = () => connectModernClient(ui.server.url, { token })
  /** A raw tools/list: the official client keeps its list for the cache hint (300 s), as the contract allows. */
  const rawList = async () =>
    (await postMcp(ui.server.url, modernRequest("tools/list"), { authorization: `Bearer ${token}` })).json.result
      .tools as ReadonlyArray<{ name: string; inputSchema: any }>

  beforeAll(async () => {
    const home = tempHome()
    const path = join(home, "shop.db")
    const db = new Database(path)
    db.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT NOT NULL, placed_at TEXT NOT NULL);
      INSERT INTO orders (region, placed_at) VALUES ('north', '2026-01-05T10:00:00Z'), ('north', '2025-12-01T00:00:00Z'), ('south', '2026-02-01T00:00:00Z')`)
    db.close()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id: "shop",
          name: "Shop",
          type: "sqlite",
          path,
          externalAccess: "readWrite",
          aiPolicy: "alwaysAllow",
          confirmQueries: "writes"
        }]
      }),
      { mode: 0o600 }
    )
    ui = await openUi({ home })
    token = (await Effect.runPromise(
      Context.get(ui.server.context as Context.Context<Tokens>, Tokens).create({
        name: "save test",
        access: "readOnly",
        connections: "all"
      })
    )).value
    await ui.page.getByRole("button", { name: "Shop" }).first().click()
    await ui.page.getByRole("tab", { name: "Console" }).click()
    await ui.page.getByLabel("SQL").waitFor()
  }, 120_000)
  afterAll(() => ui?.close())

  it("D-90: the console's Save dialog exposes the statement as a typed tool; the official client lists it and calls it with typed arguments", async () => {
    const { page } = ui
    const editor = page.getByLabel("SQL")
    await editor.click()
    await editor.fill(STATEMENT)
    await page.getByLabel("Query name").fill("Orders by region")
    await page.getByRole("button", { name: "Save query" }).click()
    const dialog = page.getByRole("dialog", { name: "Save query" })
    await dialog.getByLabel("Expose to AI clients").check()
    // The name is suggested from the query's and checked as typed: MCP's name rule, then the built-in tools.
    expect(await dialog.getByLabel("Tool name", { exact: true }).inputValue()).toBe("orders_by_region")
    const save = dialog.getByRole("button", { name: "Save", exact: true })
    await dialog.getByLabel("Tool name", { exact: true }).fill("orders by region")
    await dialog.getByLabel("Tool name problem").filter({ hasText: "1 to 128 letters, digits, _, - or ." }).waitFor()
    expect(await save.isDisabled()).toBe(true)
    await dialog.getByLabel("Tool name", { exact: true }).fill("execute_query")
    await dialog.getByLabel("Tool name problem").filter({ hasText: "execute_query is the name of a built-in tool." })
      .waitFor()
    expect(await save.isDisabled()).toBe(true)
    await dialog.getByLabel("Tool name", { exact: true }).fill("orders_by_region")
    await dialog.getByLabel("Tool name problem").waitFor({ state: "detached" })
    await dialog.getByLabel("Tool description").fill("Orders of one region placed since a time")
    // One set of fields per :name found in the text.
    expect(await dialog.getByRole("group", { name: /^Parameter / }).count()).toBe(2)
    await dialog.getByLabel("Type of region").selectOption("enum")
    await dialog.getByLabel("Values of region").fill("north, south")
    await dialog.getByLabel("Type of since").selectOption("timestamp")
    await dialog.getByLabel("Default of since").fill("2000-01-01T00:00:00Z")
    await dialog.getByLabel("Approved in advance").check()
    await dialog.getByRole("note").filter({ hasText: "run it without asking you" }).waitFor()
    await dialog.getByLabel("Approved in advance").uncheck()
    await screenshot(page, "curated-save-dialog")
    await dialog.getByLabel("Tool description").press("Control+Enter")
    await page.getByRole("status", { name: "Saved" }).filter({
      hasText: "Saved the tool orders_by_region on Shop: it reads"
    }).waitFor()
    await page.getByRole("list", { name: "Saved queries" }).getByRole("button", {
      name: "Orders by region",
      exact: true
    }).waitFor()
    expect(toolsFile()).toEqual([{
      name: "orders_by_region",
      description: "Orders of one region placed since a time",
      connection: "shop",
      sql: STATEMENT,
      parameters: [{ name: "region", type: "enum", values: ["north", "south"] }, {
        name: "since",
        type: "timestamp",
        default: "2000-01-01T00:00:00Z"
      }]
    }])

    await expect.poll(async () => (await rawList()).map((tool) => tool.name), { timeout: 5_000 }).toContain(
      "orders_by_region"
    )
    const mcp = await client()
    try {
      const listed = (await mcp.listTools()).tools.find((tool) => tool.name === "orders_by_region")
      expect(listed?.inputSchema).toEqual({
        type: "object",
        properties: {
          region: { type: "string", enum: ["north", "south"] },
          since: { type: "string", format: "date-time", default: "2000-01-01T00:00:00Z" }
        },
        required: ["region"]
      })
      const result: any = await mcp.callTool({
        name: "orders_by_region",
        arguments: { region: "north", since: "2026-01-01T00:00:00Z" }
      })
      expect(result.isError, JSON.stringify(result)).toBe(false)
      expect(result.structuredContent.rows).toEqual([[1, "north", "2026-01-05T10:00:00Z"]])
      const defaulted: any = await mcp.callTool({ name: "orders_by_region", arguments: { region: "north" } })
      expect(defaulted.structuredContent.rows.map((row: Array<unknown>) => row[0])).toEqual([1, 2])
      // An injection attempt is a value the enum does not hold: refused as an argument, nothing runs.
      const injected: any = await mcp.callTool({
        name: "orders_by_region",
        arguments: { region: "north' OR '1'='1", since: "2000-01-01T00:00:00Z" }
      })
      expect(injected.isError).toBe(true)
      expect(injected.structuredContent.error.code).toBe("invalid_argument")
    } finally {
      await mcp.close()
    }
  })

  it("D-90: the MCP panel's Curated tools tab edits a tool with the same form, tests it with sample arguments and disables it", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "MCP" }).click()
    await page.getByRole("tab", { name: "Curated tools" }).click()
    const row = page.getByRole("table", { name: "Curated tools" }).getByRole("row").filter({
      hasText: "orders_by_region"
    })
    const form = page.getByRole("group", { name: "Edit orders_by_region" })
    // Esc closes the form; the keys are in the shortcut list.
    await row.getByRole("button", { name: "Edit" }).click()
    await form.getByLabel("Tool description").press("Escape")
    await form.waitFor({ state: "detached" })
    await page.getByRole("button", { name: "Shortcuts" }).click()
    await page.getByRole("table", { name: "Shortcuts" }).getByText(
      "Cmd/Ctrl+Enter in the Save query dialog or a curated tool's Edit form"
    ).waitFor()
    await page.keyboard.press("Escape")
    await row.getByRole("button", { name: "Edit" }).click()
    expect(await form.getByLabel("Tool description").inputValue()).toBe("Orders of one region placed since a time")
    expect(await form.getByLabel("Type of region").inputValue()).toBe("enum")
    await form.getByLabel("Type of region").selectOption("text")
    await form.getByLabel("Pattern of region").fill("[a-z]+")
    await form.getByLabel("Maximum length of region").fill("10")
    await form.getByLabel("Tool description").fill("Orders of a region since a time")
    await screenshot(page, "curated-edit")
    await form.getByRole("button", { name: "Save changes" }).click()
    await page.getByRole("status", { name: "Saved" }).filter({ hasText: "Saved the tool orders_by_region" }).waitFor()
    await row.filter({ hasText: "region: text" }).waitFor()
    expect(toolsFile()[0]).toMatchObject({
      description: "Orders of a region since a time",
      parameters: [{ name: "region", type: "text", max: 10, pattern: "[a-z]+" }, {
        name: "since",
        type: "timestamp",
        default: "2000-01-01T00:00:00Z"
      }]
    })

    const mcp = await client()
    try {
      const schema = async () =>
        (await rawList()).find((tool) => tool.name === "orders_by_region")?.inputSchema.properties?.["region"]
      await expect.poll(schema, { timeout: 5_000 }).toEqual({ type: "string", maxLength: 10, pattern: "^(?:[a-z]+)$" })

      await row.getByRole("button", { name: "Test" }).click()
      await page.getByLabel("Sample region").fill("south")
      await page.getByRole("button", { name: "Run test" }).click()
      await page.getByRole("table", { name: "Test result" }).getByRole("cell", { name: "2026-02-01T00:00:00Z" })
        .waitFor()
      await page.getByLabel("Sample region").fill("south'--")
      await page.getByRole("button", { name: "Run test" }).click()
      await page.getByRole("alert").filter({ hasText: "region: expected text matching [a-z]+" }).waitFor()

      await row.getByRole("button", { name: "Disable" }).click()
      await row.filter({ hasText: "disabled" }).waitFor()
      await expect.poll(async () => (await rawList()).map((tool) => tool.name), { timeout: 5_000 }).not.toContain(
        "orders_by_region"
      )
    } finally {
      await mcp.close()
    }
  })
})
