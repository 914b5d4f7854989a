import Database from "better-sqlite3"
import { join } from "node:path"
import type { Request } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"

/**
 * The workspace in a real Chromium against the real server: several connections open with their own tabs, the
 * address naming what is open, and nothing unsaved lost without asking (switching, closing, reloading).
 */
describe("the workspace", () => {
  let ui: UiSession
  let secondId = ""
  const sampleId = async () =>
    ((await (await ui.page.request.get(`${ui.ui.origin}/api/connections`)).json()) as Array<
      { id: string; name: string }
    >).find((c) => c.name === "Sample (SQLite)")!.id
  const nav = () => ui.page.getByRole("navigation", { name: "Views" })
  const tables = () => ui.page.getByRole("complementary", { name: "Tables" }).filter({ visible: true })
  const status = () => ui.page.getByLabel("Page status").filter({ visible: true })
  const apiRequests = () => {
    const seen: Array<string> = []
    const listener = (request: Request) => {
      if (new URL(request.url()).pathname.startsWith("/api/")) seen.push(request.url())
    }
    ui.page.on("request", listener)
    return { seen, stop: () => ui.page.off("request", listener) }
  }

  beforeAll(async () => {
    ui = await openUi()
    const second = new Database(join(ui.server.home, "second.db"))
    second.exec("CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT, email TEXT, amount REAL, created_at TEXT)")
    const insert = second.prepare("INSERT INTO big VALUES (?, ?, ?, ?, ?)")
    second.transaction(() => {
      for (let i = 1; i <= 20_000; i++) {
        insert.run(
          i,
          `name ${i}`,
          `user${i}@example.com`,
          i / 4,
          `2026-11-${String((i % 28) + 1).padStart(2, "0")} 10:00:00`
        )
      }
    })()
    second.close()
    const sample = new Database(join(ui.server.home, "sample.db"))
    sample.exec(
      "CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO events VALUES (1, 'one'), (2, 'two'), (3, 'three');"
    )
    sample.close()
    const added = await ui.page.request.post(`${ui.ui.origin}/api/connections`, {
      data: {
        name: "Second",
        type: "sqlite",
        externalAccess: "readWrite",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes",
        path: join(ui.server.home, "second.db")
      }
    })
    expect(added.ok()).toBe(true)
    secondId = ((await added.json()) as { id: string }).id
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.reload()
  })
  afterAll(() => ui?.close())

  it("the address names the open table, so reload and a link open it again, and Back goes to the previous view", async () => {
    const { page } = ui
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Sample \(SQLite\)/ }).getByRole(
      "button",
      { name: "Open" }
    ).click()
    await tables().getByRole("button", { name: /^orders\b/ }).click()
    await status().filter({ hasText: "Rows 1–1,000 of 1,200" }).waitFor()
    const id = await sampleId()
    expect(new URL(page.url()).hash).toBe(`#/c/${encodeURIComponent(id)}/table/orders`)
    await tables().getByRole("button", { name: /^customers\b/ }).click()
    await status().filter({ hasText: "of 400" }).waitFor()
    await page.goBack()
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/c/${encodeURIComponent(id)}/table/orders`)
    await page.getByRole("tab", { name: "orders", selected: true }).waitFor()
    await page.reload()
    await page.getByRole("tab", { name: "orders", selected: true }).waitFor()
    await status().filter({ hasText: "Rows 1–1,000 of 1,200" }).waitFor()
    // a link in a fresh page (the UI cookie is the only state shared) opens the same table
    const other = await page.context().newPage()
    await other.goto(`${ui.ui.origin}/#/c/${encodeURIComponent(id)}/structure/customers`)
    await other.getByRole("tab", { name: "Structure", selected: true }).waitFor()
    await other.getByRole("table", { name: "Columns" }).getByRole("row", { name: /first_name/ }).waitFor()
    await other.close()
  })

  it("the ?key= link still signs in, and the view named after it survives the redirect", async () => {
    const id = await sampleId()
    const page = await ui.page.context().newPage()
    await page.goto(`${ui.ui.launchUrl}#/c/${encodeURIComponent(id)}/table/customers`)
    await page.getByRole("tab", { name: "customers", selected: true }).waitFor()
    expect(new URL(page.url()).search).toBe("")
    await page.close()
  })

  it("several connections stay open with their own tabs; switching shows them again without reading anything again", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Connections", exact: true }).click()
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Second/ }).getByRole("button", {
      name: "Open"
    }).click()
    await tables().getByRole("button", { name: /^big\b/ }).waitFor()
    // measured in the page: from the click to the first frame that shows a row of the 20,000-row table
    const { firstPaint, request } = await page.evaluate(async () => {
      const button = [...document.querySelectorAll<HTMLElement>("aside[aria-label=\"Tables\"] button")].find((b) =>
        b.offsetParent !== null && b.textContent?.startsWith("big")
      )
      const started = performance.now()
      button?.click()
      for (;;) {
        await new Promise((resolve) => requestAnimationFrame(resolve))
        if (document.querySelector("[role=\"grid\"][aria-label=\"Rows\"] [aria-rowindex=\"2\"]") !== null) break
      }
      const firstPaint = performance.now() - started
      const rows = performance.getEntriesByType("resource").filter((entry) => entry.name.includes("/tables/big/rows"))
        .at(-1)
      return { firstPaint, request: rows?.duration ?? -1 }
    })
    await status().filter({ hasText: "Rows 1–1,000 of 20,000" }).waitFor()
    expect(await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).count()).toBe(1)
    expect(await nav().getByRole("button", { name: "Second", exact: true }).count()).toBe(1)
    // scroll frames on the 1,000-row page
    const frames = await grid(page, "Rows").evaluate(async (element) => {
      const times: Array<number> = []
      let last = performance.now()
      for (let step = 1; step <= 60; step++) {
        element.scrollTop = (step / 60) * (element.scrollHeight - element.clientHeight)
        await new Promise((resolve) => requestAnimationFrame(resolve))
        const now = performance.now()
        times.push(now - last)
        last = now
      }
      return times.sort((a, b) => a - b)
    })
    const median = frames[Math.floor(frames.length / 2)] ?? 0
    const p95 = frames[Math.floor(frames.length * 0.95)] ?? 0
    console.log(
      `[workspace] 20,000-row table to first painted row: ${firstPaint.toFixed(0)} ms (its rows request ${
        request.toFixed(0)
      } ms); scroll frames median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`
    )
    await screenshot(page, "ws-two-connections")
    const watch = apiRequests()
    await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).click()
    await page.getByRole("tab", { name: "orders", selected: true }).waitFor()
    await status().filter({ hasText: "Rows 1–1,000 of 1,200" }).waitFor()
    await page.getByRole("tab", { name: "customers" }).click()
    await status().filter({ hasText: "of 400" }).waitFor()
    await nav().getByRole("button", { name: "Second", exact: true }).click()
    await status().filter({ hasText: "of 20,000" }).waitFor()
    await page.waitForTimeout(200)
    watch.stop()
    expect(watch.seen).toEqual([])
    expect(new URL(page.url()).hash).toBe(`#/c/${encodeURIComponent(secondId)}/table/big`)
  })

  it("Ctrl+T opens a console tab, Ctrl+1…9 switch, Ctrl+Shift+PageDown moves, Ctrl+W closes; the shortcut list has them", async () => {
    const { page } = ui
    const tabNames = () => page.getByRole("tablist", { name: "Open tabs" }).getByRole("tab").allTextContents()
    expect(await tabNames()).toEqual(["Console", "big"])
    await page.keyboard.press("Control+t")
    await expect.poll(tabNames).toEqual(["Console", "big", "Console 2"])
    await page.getByRole("tab", { name: "Console 2", selected: true }).waitFor()
    expect(new URL(page.url()).hash).toBe(`#/c/${encodeURIComponent(secondId)}/console/2`)
    await page.locator("body").click({ position: { x: 5, y: 5 } })
    await page.keyboard.press("Control+2")
    await page.getByRole("tab", { name: "big", selected: true }).waitFor()
    await page.keyboard.press("Control+Shift+PageUp")
    await expect.poll(tabNames).toEqual(["big", "Console", "Console 2"])
    await page.keyboard.press("Control+3")
    await page.getByRole("tab", { name: "Console 2", selected: true }).waitFor()
    await page.keyboard.press("Control+w")
    await expect.poll(tabNames).toEqual(["big", "Console"])
    await page.getByRole("tab", { name: "Console", selected: true }).waitFor()
    await page.keyboard.press("?")
    const list = page.getByRole("table", { name: "Shortcuts" })
    for (const keys of ["Cmd/Ctrl+T", "Cmd/Ctrl+W", "Cmd/Ctrl+1…8", "Cmd/Ctrl+PageUp/PageDown"]) {
      await list.getByText(keys, { exact: false }).first().waitFor()
    }
    await page.keyboard.press("Escape")
  })

  it("tabs reorder by dragging with the mouse; filters, sort and page survive a reload", async () => {
    const { page } = ui
    const tabNames = () => page.getByRole("tablist", { name: "Open tabs" }).getByRole("tab").allTextContents()
    await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).click()
    const before = await tabNames()
    expect(before.slice(0, 3)).toEqual(["Console", "orders", "customers"])
    await page.getByRole("tab", { name: "customers" }).dragTo(page.getByRole("tab", { name: "Console", exact: true }))
    await expect.poll(tabNames).toEqual(["customers", "Console", "orders", ...before.slice(3)])
    await page.getByRole("tab", { name: "orders" }).click()
    await page.getByRole("button", { name: "Add filter" }).filter({ visible: true }).click()
    await page.getByLabel("Filter column").filter({ visible: true }).selectOption("status")
    await page.getByLabel("Filter value").filter({ visible: true }).fill("cancelled")
    await page.getByRole("button", { name: "Apply" }).filter({ visible: true }).click()
    const filtered = (await status().filter({ hasText: /Rows 1–\d+ of \d+$/ }).textContent()) ?? ""
    expect(filtered).not.toContain("1,200")
    await page.reload()
    await status().filter({ hasText: filtered }).waitFor()
    expect(await page.getByLabel("Filter value").filter({ visible: true }).inputValue()).toBe("cancelled")
    expect(await tabNames()).toEqual(["customers", "Console", "orders", ...before.slice(3)])
  })

  it("Open in console opens a new console tab with the page's SELECT, which a reload keeps", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "orders" }).click()
    await page.getByRole("button", { name: "Open in console" }).filter({ visible: true }).click()
    const sql = page.locator(".cm-content:visible")
    await expect.poll(async () => (await sql.textContent()) ?? "").toMatch(
      /^SELECT \* FROM "orders" WHERE .* ORDER BY "id" ASC LIMIT 1000 OFFSET 0$/
    )
    const text = await sql.textContent()
    const consoleTab = page.getByRole("tab", { selected: true })
    const name = await consoleTab.filter({ hasText: /^Console/ }).textContent()
    expect(name).toMatch(/^Console \d+$/)
    await page.reload()
    await page.getByRole("tab", { name: name ?? "", selected: true }).waitFor()
    await expect.poll(() => page.locator(".cm-content:visible").textContent()).toBe(text)
  })

  it("a console's text and results survive switching to MCP and back (B4)", async () => {
    const { page } = ui
    await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).click()
    await page.getByRole("tab", { name: "Console", exact: true }).click()
    const editor = page.getByLabel("SQL").filter({ visible: true })
    await editor.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.press("Delete")
    await editor.fill("SELECT 41 + 1 AS answer")
    await page.getByRole("button", { name: "Run", exact: true }).filter({ visible: true }).click()
    await grid(page, "Results").getByRole("columnheader").filter({ hasText: "answer" }).waitFor()
    await page.getByRole("button", { name: "MCP" }).click()
    expect(await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).count()).toBe(1)
    await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).click()
    await page.getByRole("tab", { name: "Console", selected: true, exact: true }).waitFor()
    expect(await page.getByLabel("SQL").filter({ visible: true }).textContent()).toContain("SELECT 41 + 1 AS answer")
    await grid(page, "Results").getByRole("columnheader").filter({ hasText: "answer" }).waitFor()
  })

  it("pending edits survive switching table, connection and view, and a reload; leaving asks Save / Discard / Cancel (B3)", async () => {
    const { page } = ui
    await tables().getByRole("button", { name: /^events\b/ }).click()
    await status().filter({ hasText: "Rows 1–3 of 3" }).waitFor()
    const rows = () => grid(page, "Rows")
    await (await cell(rows(), 0, "name")).dblclick()
    await page.getByLabel("Cell value").fill("pending edit")
    await page.getByLabel("Cell value").press("Enter")
    await page.getByRole("button", { name: "Save (1)" }).waitFor()
    await tables().getByRole("button", { name: /^customers\b/ }).click()
    await status().filter({ hasText: "of 400" }).waitFor()
    await tables().getByRole("button", { name: /^events\b/ }).click()
    await page.getByRole("button", { name: "Save (1)" }).waitFor()
    await page.getByRole("button", { name: "MCP" }).click()
    await nav().getByRole("button", { name: "Second", exact: true }).click()
    await nav().getByRole("button", { name: "Sample (SQLite)", exact: true }).click()
    await page.getByRole("button", { name: "Save (1)" }).waitFor()
    expect(await (await cell(rows(), 0, "name")).textContent()).toBe("pending edit")
    // reload: the browser asks first; after it, the edit is still pending
    let asked = ""
    page.once("dialog", (dialog) => {
      asked = dialog.type()
      void dialog.accept()
    })
    await page.reload()
    expect(asked).toBe("beforeunload")
    await page.getByRole("button", { name: "Save (1)" }).waitFor()
    expect(await (await cell(rows(), 0, "name")).textContent()).toBe("pending edit")
    // closing the tab asks in the app: Cancel keeps it, Discard drops the edit and closes
    await page.getByTitle(/^Close events/).click()
    const dialog = page.getByRole("dialog", { name: "Unsaved changes" })
    await dialog.getByText("events: 1 change").waitFor()
    await screenshot(page, "ws-leave-dialog")
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("button", { name: "Save (1)" }).waitFor()
    await page.getByTitle("Close Sample (SQLite)").click()
    await dialog.getByRole("button", { name: "Save…" }).click()
    await page.getByRole("dialog", { name: "Save 1 change" }).getByRole("button", { name: "Cancel" }).click()
    await page.getByTitle(/^Close events/).click()
    await dialog.getByRole("button", { name: "Discard" }).click()
    await expect.poll(() => page.getByRole("tab", { name: "events" }).count()).toBe(0)
    await tables().getByRole("button", { name: /^events\b/ }).click()
    expect(await (await cell(rows(), 0, "name")).textContent()).toBe("one")
  })
})
