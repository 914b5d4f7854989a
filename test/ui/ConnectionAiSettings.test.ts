import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { grid } from "../support/Grid.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

/** D-65 in the browser: the connection form's masking rules apply to AI clients, and the UI itself still shows the values. */
describe("UI: a connection's masking rules", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readWrite" })
  })
  afterAll(() => ui?.close())

  it("D-65: rules typed in the form mask a column for MCP callers; a line that is not a rule is refused with the form to use", async () => {
    const { page, server } = ui
    const row = page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Sample \(SQLite\)/ })
    await row.getByRole("button", { name: "Edit" }).click()
    const rules = page.getByRole("textbox", { name: "Masking rules" })
    await rules.fill("blur customers.email")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("alert").filter({ hasText: "Masking rules, line 1: write mask or hide, then a pattern" })
      .waitFor()
    await rules.fill("mask customers.email\nhide *.last_name")
    await screenshot(page, "connection-masking-rules")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("table", { name: "Connections" }).waitFor()

    const listed = await postMcp(server.url, modernRequest("tools/call", { name: "list_connections", arguments: {} }), {
      authorization: `Bearer ${server.token}`
    })
    const id = listed.json.result.structuredContent.connections[0].id
    const answer = await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: id, query: "SELECT * FROM customers WHERE id = 1" }
      }),
      { authorization: `Bearer ${server.token}` }
    )
    const result = answer.json.result.structuredContent
    expect(result.columns).not.toContain("last_name")
    expect(result.rows[0][result.columns.indexOf("email")]).toMatch(/^\[masked: text, \d+ bytes\]$/)

    await page.getByRole("button", { name: "Sample (SQLite)" }).first().click()
    await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /customers/ }).click()
    const rows = grid(page, "Rows")
    await rows.getByRole("columnheader").filter({ hasText: "last_name" }).waitFor()
    await rows.getByRole("gridcell").filter({ hasText: "@" }).first().waitFor()
  })
})
