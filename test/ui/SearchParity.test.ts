import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { bookDocuments, books, searchesOf } from "../search/EngineHelpers.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { cell, columnTexts, grid } from "../support/Grid.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"

/**
 * A search collection's Data tab works as a table's does, within the search-engine rules: the search box sends `q`
 * over the text fields (D-101), the filter bar's rows and the cell menu's "filter by this value" compile to one
 * `filter_by`, "Open in console" writes the same `multi_search`, and a pasted range adds documents as new rows (D-100).
 */
describe("search collections in the Data tab, as tables", () => {
  let engine: RunningEngine
  let ui: UiSession
  const rows = () => grid(ui.page, "Rows")
  const lastSearch = () => {
    const request = [...engine.requests].reverse().find((r) =>
      r.method === "POST" && r.path.startsWith("/multi_search")
    )
    return request === undefined ? undefined : searchesOf(request.body)[0]
  }
  beforeAll(async () => {
    engine = await startEngine({ version: 29 })
    await engine.createCollection({
      ...books,
      fields: [...books.fields, { name: "blurb", type: "string", index: false, optional: true }]
    })
    await engine.importDocuments("books", bookDocuments(30).map((doc) => ({ ...doc, blurb: "cyber" })))
    await engine.createCollection({ name: "numbers", fields: [{ name: "n", type: "int32" }] })
    await engine.importDocuments("numbers", [{ id: "1", n: 1 }])
    ui = await openUi()
    await Effect.runPromise(
      Context.get(ui.server.context, Connections).add({
        name: "Books engine",
        type: "search",
        host: engine.host,
        port: engine.port,
        apiKey: engine.apiKey,
        externalAccess: "readWrite",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes"
      })
    )
    await ui.page.setViewportSize({ width: 1440, height: 900 })
    await ui.page.reload()
    await ui.page.getByRole("button", { name: "Books engine" }).first().click()
    await ui.page.getByRole("complementary", { name: "Collections" }).getByRole("button", { name: /^books/ }).click()
    await ui.page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–30 of 30" }).waitFor()
  })
  afterAll(async () => {
    await ui?.close()
    await engine?.stop()
  })

  it("D-101: the search box (Ctrl/Cmd+F) sends q over the indexed text fields, with the filter rows as filter_by; Open in console writes the same search", async () => {
    const { page } = ui
    await rows().click()
    await page.keyboard.press("Control+f")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Search the text fields"
    )
    await page.keyboard.type("cyber")
    await page.keyboard.press("Enter")
    // tags is ["new", "cyber"] for every id not divisible by 3: 20 of 30; the unindexed blurb is not searched
    await page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–20 of 20" }).waitFor()
    expect(lastSearch()).toMatchObject({ collection: "books", q: "cyber", query_by: "title,tags,author" })
    await page.getByRole("button", { name: "Add filter" }).click()
    await page.getByLabel("Filter column").selectOption("pages")
    await page.getByLabel("Filter operator").selectOption("<")
    await page.getByLabel("Filter value").fill("110")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.getByText("filter_by: pages:<110").waitFor()
    // ids 0..9 have pages < 110; of those 1, 2, 4, 5, 7, 8 carry "cyber"
    await page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–6 of 6" }).waitFor()
    expect((await columnTexts(rows(), "id")).toSorted()).toEqual(["1", "2", "4", "5", "7", "8"])
    await screenshot(page, "search-q-and-filter")
    await page.getByRole("button", { name: "Open in console" }).filter({ visible: true }).click()
    await expect.poll(() => page.getByLabel("Path").filter({ visible: true }).inputValue()).toBe("/multi_search")
    const body = JSON.parse(await page.getByLabel("Body").filter({ visible: true }).inputValue()) as {
      searches: Array<Record<string, unknown>>
    }
    expect(body.searches[0]).toMatchObject({
      collection: "books",
      q: "cyber",
      query_by: "title,tags,author",
      filter_by: "pages:<110"
    })
    await page.getByRole("tab", { name: /^books/ }).click()
  })

  it("D-101: a collection without an indexed text field says so instead of sending a search the engine would refuse", async () => {
    const { page } = ui
    await page.getByRole("complementary", { name: "Collections" }).getByRole("button", { name: /^numbers/ }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–1 of 1" }).waitFor()
    engine.requests.length = 0
    await page.getByLabel("Search the text fields").filter({ visible: true }).fill("x")
    await page.getByLabel("Search the text fields").filter({ visible: true }).press("Enter")
    await page.getByRole("alert").filter({
      visible: true,
      hasText: "Nothing to search in: 'numbers' has no indexed text field. Use a filter instead."
    }).waitFor()
    expect(lastSearch()).toBeUndefined()
    await page.getByRole("tab", { name: /^books/ }).click()
  })

  it("the cell menu's filter by this value adds a row to the same filter bar, compiled into the same filter_by", async () => {
    const { page } = ui
    await (await cell(rows(), 0, "author")).click({ button: "right" })
    const author = await (await cell(rows(), 0, "author")).textContent()
    await page.getByRole("menu", { name: "Cell actions" }).getByRole("menuitem", { name: "Filter by this value" })
      .click()
    await page.getByText(`filter_by: (pages:<110) && (author:=\`${author ?? ""}\`)`).waitFor()
    expect(
      await page.getByLabel("Filter column").filter({ visible: true }).evaluateAll((selects) =>
        selects.map((s) => (s as HTMLSelectElement).value)
      )
    ).toEqual(["pages", "author"])
    expect(new Set(await columnTexts(rows(), "author"))).toEqual(new Set([author]))
    await page.getByRole("button", { name: "Clear" }).filter({ visible: true }).click()
    await page.getByRole("button", { name: "Apply" }).filter({ visible: true }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: "Rows 1–30 of 30" }).waitFor()
  })

  it("D-100: a pasted range past the last document edits it and adds new documents, type-checked first, each a request in the Save dialog", async () => {
    const { page } = ui
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.ui.origin })
    await (await cell(rows(), 0, "author")).click()
    await page.keyboard.press("Control+End")
    await page.keyboard.press("Home")
    const id = await (await cell(rows(), 29, "id")).textContent()
    await page.keyboard.press("ArrowRight")
    // columns from author on: author, blurb, in_stock, pages, rating, tags, title, year
    const paste = (text: string) =>
      page.evaluate((t) => navigator.clipboard.writeText(t), text).then(() => page.keyboard.press("Control+v"))
    await paste("Edited author\nNew author\t\ttrue\t12\t4.5\t\tNew title\t20x1\n")
    await page.getByText("Nothing pasted: new row 1, year: Enter a number (or set NULL with Ctrl+Shift+N).").filter({
      visible: true
    }).waitFor()
    await paste("Edited author\nNew author\t\ttrue\t12\t4.5\t\tNew title\t2001\n")
    await page.getByText("Pasted 9 cells (1 new row): Save shows the statements.").filter({ visible: true }).waitFor()
    await page.keyboard.press("Control+s")
    const dialog = page.getByRole("dialog", { name: "Save 2 changes" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `POST /collections/books/documents\n{"author":"New author","in_stock":true,"pages":12,"rating":4.5,"title":"New title","year":2001}`,
      `PATCH /collections/books/documents/${id ?? ""}\n{"author":"Edited author"}`
    ])
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 2 changes." }).waitFor()
    const headers = { "x-typesense-api-key": engine.apiKey }
    const found = await fetch(`${engine.url}/collections/books/documents/search?q=*&filter_by=pages:=12`, { headers })
    expect(
      ((await found.json()) as { hits: Array<{ document: { title: string } }> }).hits.map((hit) => hit.document.title)
    ).toEqual(["New title"])
    const edited = await fetch(`${engine.url}/collections/books/documents/${id ?? ""}`, { headers })
    expect(((await edited.json()) as { author: string }).author).toBe("Edited author")
  })
})
