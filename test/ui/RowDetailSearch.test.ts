import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { bookDocuments, books } from "../search/EngineHelpers.ts"
import { openUi, type UiSession } from "../support/Browser.ts"
import { cell, grid } from "../support/Grid.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"

/** The row detail of a search collection (D-86): the document as one JSON object; its id stays as stored. */
describe("the row detail of a search document", () => {
  let engine: RunningEngine
  let ui: UiSession
  beforeAll(async () => {
    engine = await startEngine({ version: 29 })
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(3))
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
    await ui.page.reload()
  })
  afterAll(async () => {
    await ui?.close()
    await engine?.stop()
  })

  it("shows the document as JSON; a changed id is refused, a changed field is one PATCH in the Save dialog", async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Books engine" }).first().click()
    await page.getByRole("complementary", { name: "Collections" }).getByRole("button", { name: /^books/ }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 3/ }).waitFor()
    const rows = grid(page, "Rows")
    const id = await (await cell(rows, 0, "id")).textContent()
    await (await cell(rows, 0, "title")).click()
    await page.keyboard.press("Space")
    const detail = page.getByRole("complementary", { name: "Row detail" })
    const editor = detail.getByRole("group", { name: "Document" }).locator(".cm-content")
    await editor.waitFor()
    await expect.poll(() => editor.innerText()).toContain(`"title"`)
    const shown = JSON.parse(await editor.innerText()) as Record<string, unknown>
    expect(shown["id"]).toBe(id)
    expect(Array.isArray(shown["tags"])).toBe(true)
    const replace = async (text: string) => {
      await editor.click()
      await page.keyboard.press("Control+a")
      await page.keyboard.insertText(text)
    }
    await replace(JSON.stringify({ ...shown, id: "other" }))
    await page.keyboard.press("Control+Enter")
    await detail.getByRole("status").filter({ hasText: "Nothing staged. “id” cannot be changed here." }).waitFor()
    await replace(JSON.stringify({ ...shown, title: "From the panel" }))
    await page.keyboard.press("Control+Enter")
    await detail.getByRole("status").filter({ hasText: "Staged 1 change" }).waitFor()
    await page.keyboard.press("Control+s")
    const dialog = page.getByRole("dialog", { name: "Save 1 change" })
    await dialog.waitFor()
    expect(await dialog.getByLabel("Statements").locator("pre").allTextContents()).toEqual([
      `PATCH /collections/books/documents/${id}\n{"title":"From the panel"}`
    ])
    await dialog.getByRole("button", { name: "Apply" }).click()
    await page.getByRole("status").filter({ hasText: "Saved 1 change." }).waitFor()
    const stored = await fetch(`${engine.url}/collections/books/documents/${id}`, {
      headers: { "x-typesense-api-key": engine.apiKey }
    })
    expect(((await stored.json()) as { title: string }).title).toBe("From the panel")
  })
})
