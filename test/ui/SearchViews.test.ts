import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bookDocuments, books } from "../search/EngineHelpers.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"

/** Browser tests of the search views (D-55, D-60; doc 2) against the Typesense-compatible test engine. */
describe("UI on a search connection", () => {
  let engine: RunningEngine
  let ui: UiSession
  beforeAll(async () => {
    engine = await startEngine({ version: 29 })
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(1500))
    await engine.createCollection({ ...books, name: "magazines" })
    ui = await openUi()
  })
  afterAll(async () => {
    await ui?.close()
    await engine?.stop()
  })

  it("S1-d S5-c a new Typesense connection needs the install step (no URL import or tunnel options), then the form adds it with the key never shown back", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Install" }).click()
    await page.getByRole("button", { name: "Choose Typesense" }).click()
    await page.getByLabel("Name").fill("Books engine")
    await page.getByLabel("Host").fill(engine.host)
    await page.getByLabel("Port").fill(String(engine.port))
    await page.getByLabel("API key").fill(engine.apiKey)
    // S1-d: no URL scheme for this type, so no URL import; S5-c: no SSH/tunnel fields.
    expect(await page.getByRole("button", { name: "Import URL" }).count()).toBe(0)
    expect(await page.getByLabel(/SSH/i).count()).toBe(0)
    await page.getByRole("tab", { name: "Options" }).click()
    await page.getByText("Skip TLS verification").waitFor()
    await screenshot(page, "search-form-options")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Books engine/ }).waitFor()
    const listed = await (await page.request.get(`${ui.ui.origin}/api/connections`)).text()
    expect(listed).toContain("\"hasApiKey\":true")
    expect(listed).not.toContain(engine.apiKey)
  })

  it("collections in the sidebar, a 1,000-row page, unsortable headers say why, filters compile to filter_by, case control dimmed", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Books engine", exact: true }).click()
    const sidebar = page.getByRole("complementary", { name: "Collections" })
    await sidebar.getByRole("button", { name: /magazines\s*0/ }).waitFor()
    await sidebar.getByRole("button", { name: /books\s*1,500/ }).click()
    await page.getByLabel("Page status").filter({ hasText: "Rows 1–1,000 of 1,500" }).waitFor()
    const rows = grid(page, "Rows")
    const header = (name: string) =>
      rows.getByRole("columnheader").filter({
        has: page.locator(".th-name", { hasText: new RegExp(`^${name}( [▲▼])?$`) })
      })
    const title = header("title")
    expect(await title.getAttribute("class")).toContain("unsortable")
    expect(await title.getAttribute("title")).toContain("sort: true")
    expect(await header("id").getAttribute("title")).toContain("Typesense cannot sort by id.")
    await header("pages").click()
    await rows.getByRole("columnheader").filter({ hasText: /^pages ▲/ }).waitFor()
    expect(await page.getByLabel("Case sensitive").isDisabled()).toBe(true)
    await page.getByRole("button", { name: "Add filter" }).click()
    await page.getByLabel("Filter column").selectOption("year")
    await page.getByLabel("Filter operator").selectOption(">=")
    await page.getByLabel("Filter value").fill("2015")
    expect(await page.getByLabel("Filter operator").locator("option[value=is_null]").isDisabled()).toBe(true)
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByText("filter_by: year:>=2015").waitFor()
    await page.getByLabel("Page status").filter({ hasText: /of 60$/ }).waitFor()
    await screenshot(page, "search-grid")
  })

  it("inline edit, insert and delete are saved as document calls", async () => {
    const { page } = ui
    const rows = grid(page, "Rows")
    const id = await (await cell(rows, 0, "id")).textContent()
    await (await cell(rows, 0, "title")).dblclick()
    await page.getByLabel("Cell value").fill("Edited in the UI")
    await page.getByLabel("Cell value").press("Enter")
    await (await cell(rows, 2, "title")).click()
    await page.getByRole("button", { name: "Delete rows" }).click()
    await page.getByRole("button", { name: "Add row" }).click()
    for (
      const [name, value] of [["id", "new-1"], ["title", "Inserted"], ["year", "2020"], ["rating", "4.5"], [
        "pages",
        "10"
      ], ["in_stock", "true"]] as const
    ) {
      await (await cell(rows, 0, name)).dblclick()
      await page.getByLabel("Cell value").fill(value)
      await page.getByLabel("Cell value").press("Enter")
    }
    await page.getByRole("button", { name: "Save (3)" }).click()
    const dialog = page.getByRole("dialog", { name: "Save 3 changes" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `POST /collections/books/documents\n{"id":"new-1","title":"Inserted","year":2020,"rating":4.5,"pages":10,"in_stock":true}`,
      `PATCH /collections/books/documents/${id}\n{"title":"Edited in the UI"}`,
      expect.stringMatching(/^DELETE \/collections\/books\/documents\/\S+$/)
    ])
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 3 changes." }).waitFor()
    engine.requests.length = 0
    const edited = await fetch(`${engine.url}/collections/books/documents/${id}`, {
      headers: { "x-typesense-api-key": engine.apiKey }
    })
    expect(((await edited.json()) as { title: string }).title).toBe("Edited in the UI")
    const inserted = await fetch(`${engine.url}/collections/books/documents/new-1`, {
      headers: { "x-typesense-api-key": engine.apiKey }
    })
    expect(((await inserted.json()) as { year: number }).year).toBe(2020)
  })

  it("the request console renders hits as a grid and other answers as pretty JSON", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Console" }).click()
    await page.getByLabel("Path").fill(
      "/collections/books/documents/search?q=*&per_page=5&filter_by=pages:<103%26%26year:<2000"
    )
    await page.getByRole("button", { name: "Run", exact: true }).click()
    const results = grid(page, "Results")
    await results.getByRole("columnheader").filter({ hasText: /^title$/ }).waitFor()
    expect(await results.getAttribute("aria-rowcount")).toBe("4")
    await screenshot(page, "search-console")
    await page.getByLabel("Path").fill("/collections/magazines")
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await page.getByLabel("Response").filter({ hasText: "\"name\": \"magazines\"" }).waitFor()
  })

  it("D-102: Format indents the request's JSON body (Shift+Alt+F or the button), one Undo reverts it, and a body that is not JSON is left as typed", async () => {
    const { page } = ui
    const body = page.getByLabel("Body")
    const typed = "{\"searches\":[{\"collection\":\"books\",\"q\":\"*\",\"per_page\":2}]}"
    await body.fill(typed)
    await body.press("Shift+Alt+KeyF")
    expect(await body.inputValue()).toBe(JSON.stringify(JSON.parse(typed), null, 2))
    await body.press("Control+z")
    expect(await body.inputValue()).toBe(typed)
    await page.getByRole("button", { name: "Format" }).click()
    expect(await body.inputValue()).toBe(JSON.stringify(JSON.parse(typed), null, 2))
    await body.fill("{\"q\": \"*\",")
    await page.getByRole("button", { name: "Format" }).click()
    await page.getByRole("alert").filter({ hasText: /^Not formatted \(nothing was changed\): / }).waitFor()
    expect(await body.inputValue()).toBe("{\"q\": \"*\",")
  })

  it("Users & Roles lists keys, a new key's value is shown once; the dashboard shows metrics and the two empty panels", async () => {
    const { page } = ui
    await page.getByRole("tab", { name: "Users & Roles" }).click()
    await page.getByLabel("Key description").fill("UI search key")
    await page.getByRole("button", { name: "Create key" }).click()
    const value = await page.getByLabel("New key value").textContent()
    expect(value?.length).toBeGreaterThan(8)
    const row = page.getByRole("table", { name: "API keys" }).getByRole("row", { name: /UI search key/ })
    await row.waitFor()
    expect(await row.textContent()).toContain("documents:search")
    expect(await row.textContent()).not.toContain(value!)
    await screenshot(page, "search-users-roles")
    page.once("dialog", (dialog) => void dialog.accept())
    await row.getByRole("button", { name: "Delete" }).click()
    await row.waitFor({ state: "detached" })
    await page.getByRole("tab", { name: "Server Dashboard" }).click()
    await page.getByLabel("Sessions").filter({ hasText: "not available for this engine" }).waitFor()
    await page.getByLabel("Slow query log").filter({ hasText: "not available for this engine" }).waitFor()
    await page.getByLabel("Process memory").filter({ hasText: "MB" }).waitFor()
    await screenshot(page, "search-dashboard")
  })
})
