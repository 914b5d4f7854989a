import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

const INTERNAL = /§|\bissue\b|wire contract|product-decisions/i
const CAMEL_KEYS =
  /\b(defaultRows|maxRows|queryTimeoutSeconds|requestsPerMinute|concurrentPerCaller|readWrite|readOnly|fullAccess)\b/

/**
 * The MCP panel speaks to users: the policy explainer and the settings in plain words (no document, section or issue
 * cited, no setting keys), activity rows with their connection and statement and a detail view, and an access
 * dialog that says what the client wants to run.
 */
describe("the MCP panel in plain words", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readWrite" })
    await ui.page.getByRole("button", { name: "MCP" }).click()
  })
  afterAll(() => ui?.close())

  it("the policy explainer cites no internal document: each gate says what it checks and where to change it", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Settings" }).click()
    const panel = page.getByRole("region", { name: "Policy explainer" })
    await panel.getByRole("button", { name: "Explain" }).click()
    await panel.getByRole("status", { name: "Outcome" }).waitFor()
    const text = (await panel.textContent()) ?? ""
    expect(text).not.toMatch(INTERNAL)
    const gates = await panel.getByRole("list", { name: "Gates" }).locator("li").allTextContents()
    // the harness names its token "test readWrite", so only the explanation itself is searched for setting keys
    expect(gates.join("\n")).not.toMatch(CAMEL_KEYS)
    expect(gates.length).toBeGreaterThan(5)
    for (const gate of gates) expect(gate).toMatch(/Checks .+\. Change it in .+\./)
    expect(await panel.getByRole("status", { name: "Outcome" }).textContent()).toBe(
      "Outcome: It runs once the user approves the statement."
    )
    await screenshot(page, "policy-explainer-plain")
  })

  it("settings show labels with what they limit, not setting keys", async () => {
    const settings = ui.page.getByRole("region", { name: "Settings" }).or(
      ui.page.locator("section[aria-label=\"Settings\"]")
    ).first()
    await settings.getByLabel("Most rows an AI client may ask for").waitFor()
    const text = (await settings.textContent()) ?? ""
    expect(text).not.toMatch(CAMEL_KEYS)
    expect(text).not.toMatch(INTERNAL)
  })

  it("the access dialog shows what the client wants to run; the activity row names the connection and the statement and opens a detail view", async () => {
    const { page, server } = ui
    const store = Context.get(server.context, Connections)
    const [sample] = await Effect.runPromise(store.list)
    await Effect.runPromise(store.update(sample!.id, { aiPolicy: "askEachTime" }))
    const statement = "SELECT count(*) AS n FROM customers WHERE id < 42"
    const call = postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: sample!.id, query: statement }
      }),
      {
        authorization: `Bearer ${server.token}`
      }
    )
    const dialog = page.getByRole("dialog")
    await dialog.getByLabel("What it wants to run").filter({ hasText: statement }).waitFor({ timeout: 30_000 })
    await screenshot(page, "access-dialog-wants")
    await dialog.getByRole("button", { name: "Approve" }).click()
    const answer = await call
    expect(answer.json.result.isError).not.toBe(true)
    await page.getByRole("tab", { name: "Activity" }).click()
    const table = page.getByRole("table", { name: "Activity" })
    await page.getByRole("button", { name: "Refresh" }).click()
    const row = table.getByRole("row").filter({ hasText: "tool.call" }).filter({ hasText: statement })
    await row.first().waitFor({ timeout: 20_000 })
    expect(await row.first().textContent()).toContain("Sample (SQLite)")
    await row.first().getByRole("button", { name: /^Details of activity/ }).click()
    const detail = page.getByRole("dialog", { name: /^Activity #\d+$/ })
    expect(await detail.getByLabel("Statement").textContent()).toBe(statement)
    await detail.getByRole("table", { name: "Activity detail" }).getByText("Sample (SQLite)").waitFor()
    await screenshot(page, "activity-detail")
    await page.keyboard.press("Escape")
    await detail.waitFor({ state: "detached" })
  })

  it("every activity row of an approved write names the client the same way (name, and version apart)", async () => {
    const { page, server } = ui
    const [sample] = await Effect.runPromise(Context.get(server.context, Connections).list)
    const meta = { "io.modelcontextprotocol/clientInfo": { name: "plain-words-script", version: "2.0.0" } }
    const call = postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: sample!.id, query: "UPDATE customers SET first_name = first_name WHERE id = 1" },
        _meta: meta
      }),
      { authorization: `Bearer ${server.token}` }
    )
    for (let answered = 0; answered < 2; answered++) {
      const approve = page.getByRole("dialog").getByRole("button", { name: "Approve" })
      const settled = await Promise.race([
        approve.waitFor({ timeout: 30_000 }).then(() => "dialog"),
        call.then(() => "done")
      ])
      if (settled === "done") break
      await approve.click()
      await page.waitForTimeout(300)
    }
    expect((await call).json.result.isError).not.toBe(true)
    const rows = (await (await page.request.get(`${ui.ui.origin}/api/activity?limit=200`)).json()) as Array<
      { action: string; clientName: string | null; clientVersion: string | null }
    >
    const mine = rows.filter((row) => row.clientName?.startsWith("plain-words-script"))
    expect(mine.map((row) => row.action)).toEqual(
      expect.arrayContaining(["tool.call", "approval.asked", "approval.preview", "approval.approved"])
    )
    expect(new Set(mine.map((row) => `${row.clientName}|${row.clientVersion}`))).toEqual(
      new Set(["plain-words-script|2.0.0"])
    )
  })
})
