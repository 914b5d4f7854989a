import { createServer, type Server, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/**
 * The connection list and form as a desktop client's: the form's own words in the list, a test's answer styled
 * without moving the row, Test inside the form, Save that tests first (and "Save anyway"), a hanging test that can be
 * cancelled, and a colour and production flag stored on the connection.
 */
describe("connections: list, Test and Save", () => {
  let ui: UiSession
  let blackhole: Server
  let blackholePort = 0
  const sockets: Array<Socket> = []
  beforeAll(async () => {
    // accepts TCP connections and never answers: a host that hangs a connection test
    blackhole = createServer((socket) => {
      sockets.push(socket)
    })
    await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve))
    blackholePort = (blackhole.address() as { port: number }).port
    ui = await openUi()
  })
  afterAll(async () => {
    await ui?.close()
    for (const socket of sockets) socket.destroy()
    blackhole?.close()
  })

  const list = () => ui.page.getByRole("table", { name: "Connections" })
  const newPostgres = async (name: string, port: number) => {
    const { page } = ui
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Choose PostgreSQL" }).click()
    await page.getByRole("textbox", { name: "Name" }).fill(name)
    await page.getByRole("textbox", { name: "Host" }).fill("127.0.0.1")
    await page.getByLabel("Port").fill(String(port))
    await page.getByRole("textbox", { name: "Database" }).fill("shop")
    await page.getByRole("textbox", { name: "User" }).fill("nobody")
  }

  it("the list shows the form's words for the settings, never the stored values", async () => {
    const row = list().getByRole("row", { name: /Sample \(SQLite\)/ }).first()
    await row.waitFor()
    const text = (await row.textContent()) ?? ""
    expect(text).toContain("Read and write")
    expect(text).toContain("Always allow")
    expect(text).not.toMatch(/readWrite|alwaysAllow|askEachTime|readOnly/)
  })

  it("a test's answer is styled (a tick or a cross) on a line of its own, and the tested row keeps its height", async () => {
    const { page } = ui
    const row = list().getByRole("row", { name: /Sample \(SQLite\)/ }).first()
    const before = (await row.boundingBox())!.height
    await row.getByRole("button", { name: "Test Sample (SQLite)" }).click()
    const status = page.getByRole("status", { name: "Test of Sample (SQLite)" })
    await status.filter({ hasText: /^✔ Connected/ }).waitFor()
    expect(await status.getAttribute("class")).toContain("ok")
    expect((await row.boundingBox())!.height).toBe(before)
    await screenshot(page, "connections-tested")
  })

  it("Test runs inside the form; Save tests first and offers Save anyway when the test fails", async () => {
    const { page } = ui
    await newPostgres("Nothing listens", 1)
    await page.getByRole("button", { name: "Test", exact: true }).click()
    const result = page.getByRole("status", { name: "Connection test" })
    await result.filter({ hasText: /^✖ .*ECONNREFUSED/ }).waitFor({ timeout: 30_000 })
    expect(await result.getAttribute("class")).toContain("failed")
    await page.getByRole("button", { name: "Save", exact: true }).click()
    await result.getByRole("button", { name: "Save anyway" }).waitFor({ timeout: 30_000 })
    expect(
      await page.getByRole("region", { name: "Connection form" }).or(
        page.locator("section[aria-label=\"Connection form\"]")
      ).count()
    ).toBeGreaterThan(0)
    await result.getByRole("button", { name: "Save anyway" }).click()
    await list().getByRole("row", { name: /Nothing listens/ }).waitFor()
  })

  it("a test that hangs can be cancelled", async () => {
    const { page } = ui
    await newPostgres("Hangs", blackholePort)
    await page.getByRole("button", { name: "Test", exact: true }).click()
    const result = page.getByRole("status", { name: "Connection test" })
    await result.filter({ hasText: "Testing…" }).waitFor()
    await page.waitForTimeout(500)
    await result.getByRole("button", { name: "Cancel test" }).click()
    await result.filter({ hasText: "Test cancelled" }).waitFor()
    expect(await page.getByRole("button", { name: "Save", exact: true }).isEnabled()).toBe(true)
    await page.getByRole("button", { name: "Cancel", exact: true }).click()
  })

  it("a colour and a production flag are stored on the connection and shown in the list", async () => {
    const { page } = ui
    const row = list().getByRole("row", { name: /Sample \(SQLite\)/ }).first()
    await row.getByRole("button", { name: "Edit" }).click()
    await page.getByRole("radiogroup", { name: "Colour" }).getByRole("radio", { name: "Red" }).check()
    await page.getByLabel("Production database").check()
    await screenshot(page, "connection-form-appearance")
    await page.getByRole("button", { name: "Save", exact: true }).click()
    await row.getByText("Production").waitFor()
    await row.getByRole("img", { name: "Colour: Red" }).waitFor()
    const saved = (await (await page.request.get(`${ui.ui.origin}/api/connections`)).json()) as Array<
      { name: string; color?: string; production?: boolean }
    >
    expect(saved.find((c) => c.name === "Sample (SQLite)")).toMatchObject({ color: "#d92d20", production: true })
  })
})
