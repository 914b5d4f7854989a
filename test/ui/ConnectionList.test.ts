import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/**
 * The connection list as a desktop client's welcome window, in a real Chromium: a search box (Cmd/Ctrl+F), groups
 * that collapse, Duplicate (every setting but the secret) and Copy as URL (without the password) on each row.
 */
describe("connections: search, groups, duplicate, copy as URL", () => {
  let ui: UiSession
  const common = { externalAccess: "readOnly", aiPolicy: "askEachTime", confirmQueries: "writes" }
  const add = async (body: Record<string, unknown>) => {
    const response = await ui.page.request.post(`${ui.ui.origin}/api/connections`, { data: { ...common, ...body } })
    expect(response.status()).toBe(200)
    return (await response.json()) as { id: string }
  }
  beforeAll(async () => {
    ui = await openUi()
    await ui.page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.ui.origin })
    await add({
      name: "Orders staging",
      type: "postgresql",
      host: "db.staging.internal",
      port: 5433,
      database: "orders",
      user: "reporter",
      password: "pw-never-copied",
      sslMode: "require",
      group: "Staging",
      color: "#2e90fa"
    })
    await add({
      name: "Billing staging",
      type: "mysql",
      host: "10.0.0.7",
      port: 3306,
      database: "billing",
      user: "app",
      password: "other-secret",
      group: "Staging"
    })
    // an empty file is an empty SQLite database: the form's test-before-save passes
    writeFileSync(join(ui.server.home, "scratch.db"), "")
    await add({ name: "Scratch", type: "sqlite", path: join(ui.server.home, "scratch.db"), group: "Local" })
    await ui.page.reload()
  })
  afterAll(() => ui?.close())

  const list = () => ui.page.getByRole("table", { name: "Connections" })
  const names = async () =>
    (await list().locator(".connection-row td:first-child button").allTextContents()).map((name) => name.trim())

  it("D-103: the list is grouped by each connection's group, groups in order and the ungrouped last, and a group collapses from the keyboard", async () => {
    const { page } = ui
    await expect.poll(names).toEqual(["Scratch", "Orders staging", "Billing staging", "Sample (SQLite)"])
    const staging = list().getByRole("button", { name: "▾ Staging (2)" })
    await staging.focus()
    await page.keyboard.press("Enter")
    await expect.poll(names).toEqual(["Scratch", "Sample (SQLite)"])
    const collapsed = list().getByRole("button", { name: "▸ Staging (2)" })
    expect(await collapsed.getAttribute("aria-expanded")).toBe("false")
    await page.keyboard.press("Enter")
    await expect.poll(names).toEqual(["Scratch", "Orders staging", "Billing staging", "Sample (SQLite)"])
    await screenshot(page, "connections-groups")
  })

  it("the search box (Cmd/Ctrl+F) keeps the connections whose name, group, type or host has every word typed; Esc clears it", async () => {
    const { page } = ui
    await page.locator("h1").click()
    await page.keyboard.press("Control+f")
    const box = page.getByRole("searchbox", { name: "Search connections" })
    await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.type("staging")
    await expect.poll(names).toEqual(["Orders staging", "Billing staging"])
    await box.fill("mysql 10.0")
    await expect.poll(names).toEqual(["Billing staging"])
    await box.fill("local")
    await expect.poll(names).toEqual(["Scratch"])
    await box.fill("nothing like this")
    await page.getByRole("status").filter({ hasText: "No connection matches 'nothing like this'." }).waitFor()
    await box.press("Escape")
    await expect.poll(names).toHaveLength(4)
  })

  it("D-103: Copy as URL on a row puts the URL without the password on the clipboard", async () => {
    const { page } = ui
    await list().getByRole("button", { name: "Copy Orders staging as URL" }).click()
    await page.getByRole("status").filter({ hasText: "Copied the URL of 'Orders staging' (without the password)." })
      .waitFor()
    const copied = await page.evaluate(() => navigator.clipboard.readText())
    expect(copied).toBe("postgresql://reporter@db.staging.internal:5433/orders?sslmode=require")
    expect(copied).not.toContain("pw-never-copied")
  })

  it("D-103: Duplicate opens a new connection's form with every setting but the password, named '… copy', and saves a second connection", async () => {
    const { page } = ui
    await list().getByRole("button", { name: "Duplicate Orders staging" }).click()
    const form = page.getByRole("region", { name: "Connection form" })
    await form.getByRole("heading", { name: "New PostgreSQL connection" }).waitFor()
    expect(await form.getByRole("textbox", { name: "Name" }).inputValue()).toBe("Orders staging copy")
    expect(await form.getByRole("textbox", { name: "Host" }).inputValue()).toBe("db.staging.internal")
    expect(await form.getByLabel("Port").inputValue()).toBe("5433")
    expect(await form.getByRole("textbox", { name: "Database" }).inputValue()).toBe("orders")
    expect(await form.getByRole("textbox", { name: "User" }).inputValue()).toBe("reporter")
    expect(await form.getByLabel("Password").inputValue()).toBe("")
    expect(await form.getByLabel("SSL mode").inputValue()).toBe("require")
    expect(await form.getByRole("textbox", { name: "Group" }).inputValue()).toBe("Staging")
    await form.getByRole("note").filter({ hasText: "except its secrets" }).waitFor()
    await screenshot(page, "connections-duplicate")
    // nothing listens there: Save tests first, then offers to save anyway
    await form.getByRole("button", { name: "Save", exact: true }).click()
    await form.getByRole("button", { name: "Save anyway" }).click({ timeout: 30_000 })
    await expect.poll(names, { timeout: 15_000 }).toEqual([
      "Scratch",
      "Orders staging",
      "Billing staging",
      "Orders staging copy",
      "Sample (SQLite)"
    ])
    const saved = JSON.parse(readFileSync(join(ui.server.home, "connections.json"), "utf8")) as unknown
    const text = JSON.stringify(saved)
    expect(text.match(/pw-never-copied/g)).toHaveLength(1)
    const listed = (await (await page.request.get(`${ui.ui.origin}/api/connections`)).json()) as Array<
      Record<string, unknown>
    >
    const original = listed.find((c) => c["name"] === "Orders staging")
    const copy = listed.find((c) => c["name"] === "Orders staging copy")
    expect(original).toMatchObject({ hasPassword: true })
    const { id: _a, name: _b, hasPassword: copyHasPassword, ...copySettings } = copy!
    const { id: _c, name: _d, hasPassword: _e, ...originalSettings } = original!
    expect(copyHasPassword).toBe(false)
    expect(copySettings).toEqual(originalSettings)
  })

  it("D-103: the group is set and cleared in the form", async () => {
    const { page } = ui
    const row = list().locator(".connection-row").filter({ hasText: "Scratch" })
    await row.getByRole("button", { name: "Edit" }).click()
    const form = page.getByRole("region", { name: "Connection form" })
    await form.getByRole("textbox", { name: "Group" }).fill("")
    await form.getByRole("button", { name: "Save", exact: true }).click()
    await expect.poll(names, { timeout: 15_000 }).toEqual([
      "Orders staging",
      "Billing staging",
      "Orders staging copy",
      "Sample (SQLite)",
      "Scratch"
    ])
    await list().getByText("No group (2)").waitFor()
  })
})
