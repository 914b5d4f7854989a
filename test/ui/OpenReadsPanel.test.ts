import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { expectNoHandle, fetchMore, query } from "../support/Continuation.ts"
import { openUi, type UiSession } from "../support/Browser.ts"
import { connectModernClient } from "../support/McpClients.ts"

/** D-93: the MCP panel's Open reads tab in a real Chromium: a read an AI client left open is listed and closed. */
describe("MCP panel: open reads", () => {
  let ui: UiSession
  let client: Client
  let id = ""
  beforeAll(async () => {
    const path = join(mkdtempSync(join(tmpdir(), "dbdesk-reads-")), "numbers.db")
    const db = new Database(path)
    db.exec("CREATE TABLE numbers (n INTEGER PRIMARY KEY)")
    const insert = db.prepare("INSERT INTO numbers VALUES (?)")
    for (let n = 1; n <= 40; n++) insert.run(n)
    db.close()
    ui = await openUi({ token: "readOnly" })
    id = (await Effect.runPromise(
      Context.get(ui.server.context as Context.Context<Connections>, Connections).add({
        name: "Numbers",
        type: "sqlite",
        path,
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow"
      })
    )).id
    client = await connectModernClient(ui.server.url, { token: ui.server.token! })
    await ui.page.getByRole("button", { name: "MCP" }).click()
  }, 120_000)
  afterAll(async () => {
    await client?.close()
    await ui?.close()
  })

  it("D-93: the Open reads tab lists a cut answer (connection, statement, rows so far, when it ends); Close ends it for the AI client", async () => {
    const { page } = ui
    const first = await query(client, id, "SELECT n FROM numbers ORDER BY n", 7)
    await page.getByRole("tab", { name: "Open reads" }).click()
    const row = page.getByRole("table", { name: "Open reads" }).getByRole("row").filter({
      hasText: "SELECT n FROM numbers ORDER BY n"
    })
    await row.filter({ hasText: "Numbers" }).filter({ has: page.getByRole("cell", { name: "7", exact: true }) })
      .waitFor()
    await page.screenshot({ path: "/work/wt/_shots/cont-open-reads.png" }).catch(() => undefined)
    await row.getByRole("button", { name: "Close" }).focus()
    await page.keyboard.press("Enter")
    await page.getByText("No open reads.").waitFor()
    expectNoHandle(await fetchMore(client, first.handle!))
  })
})
