import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

const SECRET = "s3cret-Пароль-'\"&@:/"
const PASSPHRASE = "key-phrase-Zq9"

describe("UI: a connection's TLS files, URL import and Copy as URL", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi()
  })
  afterAll(() => ui?.close())

  const stored = (name: string) =>
    JSON.parse(readFileSync(join(ui.server.home, "connections.json"), "utf8")).connections.find((
      connection: { name: string }
    ) => connection.name === name)
  const listed = async () => (await ui.page.request.get(`${ui.ui.origin}/api/connections`)).text()
  /** Save tests the connection first; nothing answers at these addresses, so the form offers Save anyway. */
  const save = async () => {
    const { page } = ui
    await page.getByRole("button", { name: "Save", exact: true }).click()
    const anyway = page.getByRole("button", { name: "Save anyway" })
    await anyway.or(page.getByRole("table", { name: "Connections" })).first().waitFor({ timeout: 30_000 })
    if (await anyway.isVisible()) await anyway.click()
  }
  const newConnection = async (title: string) => {
    await ui.page.getByRole("button", { name: "New connection" }).click()
    await ui.page.getByRole("button", { name: `Choose ${title}` }).click()
  }

  it("a PostgreSQL URL fills every field (TLS files too), the password goes to the masked field and the URL box is emptied; the key passphrase is saved as a secret", async () => {
    const { page } = ui
    await newConnection("PostgreSQL")
    const url = `postgres://etl%40corp:${
      encodeURIComponent(SECRET)
    }@db.example:6543/ware%20house?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&sslcert=/etc/me.crt&sslkey=/etc/me.key&application_name=x`
    await page.getByLabel("Connection URL").fill(url)
    await page.getByRole("button", { name: "Import URL" }).click()
    expect(await page.getByLabel("Connection URL").inputValue()).toBe("")
    expect(await page.getByLabel("Host").inputValue()).toBe("db.example")
    expect(await page.getByLabel("Port").inputValue()).toBe("6543")
    expect(await page.getByLabel("Database", { exact: true }).inputValue()).toBe("ware house")
    expect(await page.getByLabel("User").inputValue()).toBe("etl@corp")
    expect(await page.getByLabel("Password", { exact: true }).inputValue()).toBe(SECRET)
    expect(await page.getByLabel("SSL mode").inputValue()).toBe("verify-full")
    expect(await page.getByLabel("CA certificate file").inputValue()).toBe("/etc/ca.pem")
    expect(await page.getByLabel("Client certificate file").inputValue()).toBe("/etc/me.crt")
    expect(await page.getByLabel("Client key file").inputValue()).toBe("/etc/me.key")
    await page.getByText("left them out: application_name").waitFor()
    await page.getByLabel("Client key passphrase").fill(PASSPHRASE)
    await page.getByLabel("Name").fill("Vault")
    await screenshot(page, "connection-tls-fields")
    await save()
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Vault/ }).waitFor()
    expect(stored("Vault")).toMatchObject({
      host: "db.example",
      port: 6543,
      user: "etl@corp",
      database: "ware house",
      password: SECRET,
      sslMode: "verify-full",
      sslCa: "/etc/ca.pem",
      sslCert: "/etc/me.crt",
      sslKey: "/etc/me.key",
      sslKeyPassphrase: PASSPHRASE
    })
    const api = await listed()
    expect(api).toContain("\"hasSslKeyPassphrase\":true")
    expect(api).not.toContain(PASSPHRASE)
    expect(api).not.toContain("s3cret")
  })

  it("editing shows the TLS files, keeps the passphrase when left empty, and removing the key removes its passphrase; Copy as URL has no password", async () => {
    const { page } = ui
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Vault/ }).getByRole("button", {
      name: "Edit"
    }).click()
    expect(await page.getByLabel("CA certificate file").inputValue()).toBe("/etc/ca.pem")
    expect(await page.getByLabel("Client key passphrase").inputValue()).toBe("")
    expect(await page.getByLabel("Client key passphrase").getAttribute("placeholder")).toBe(
      "leave empty to keep the saved one"
    )
    const copied = await page.getByLabel("URL without the password").inputValue()
    expect(copied).toBe(
      "postgresql://etl%40corp@db.example:6543/ware%20house?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&sslcert=%2Fetc%2Fme.crt&sslkey=%2Fetc%2Fme.key"
    )
    await page.getByRole("button", { name: "Copy as URL" }).click()
    await page.getByRole("status").waitFor()
    expect(await page.content()).not.toContain("s3cret")
    await page.getByLabel("CA certificate file").fill("/etc/other-ca.pem")
    await page.getByLabel("Client certificate file").fill("/etc/new.crt")
    await save()
    await page.getByRole("table", { name: "Connections" }).waitFor()
    expect(stored("Vault")).toMatchObject({
      sslCa: "/etc/other-ca.pem",
      sslCert: "/etc/new.crt",
      sslKey: "/etc/me.key",
      sslKeyPassphrase: PASSPHRASE,
      password: SECRET
    })

    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Vault/ }).getByRole("button", {
      name: "Edit"
    }).click()
    await page.getByLabel("Client certificate file").fill("")
    await page.getByLabel("Client key file").fill("")
    await save()
    await page.getByRole("table", { name: "Connections" }).waitFor()
    expect(stored("Vault")).not.toHaveProperty("sslKey")
    expect(stored("Vault")).not.toHaveProperty("sslCert")
    expect(stored("Vault")).not.toHaveProperty("sslKeyPassphrase")
    expect(stored("Vault")).toMatchObject({ sslCa: "/etc/other-ca.pem", password: SECRET })
  })

  it("a mariadb:// URL turns the new form into a MySQL / MariaDB one, an sqlite: URL into a SQLite one; a URL dbdesk cannot read is explained without repeating it", async () => {
    const { page } = ui
    await newConnection("PostgreSQL")
    await page.getByLabel("Connection URL").fill("postgres://u:hunter2@h:99999/d")
    await page.getByRole("button", { name: "Import URL" }).click()
    await page.getByRole("alert").filter({ hasText: "The URL's port must be a number between 1 and 65535." }).waitFor()
    expect(await page.getByRole("alert").textContent()).not.toContain("hunter2")

    await page.getByLabel("Connection URL").fill("mariadb://shop@[::1]:3307/?ssl-mode=VERIFY_CA&ssl-ca=/ca.pem")
    await page.getByRole("button", { name: "Import URL" }).click()
    await page.getByRole("heading", { name: "New MySQL / MariaDB connection" }).waitFor()
    expect(await page.getByLabel("Host").inputValue()).toBe("::1")
    expect(await page.getByLabel("SSL mode").inputValue()).toBe("verify-ca")
    expect(await page.getByLabel("CA certificate file").inputValue()).toBe("/ca.pem")
    await page.getByLabel("Name").fill("Shop")
    await save()
    await page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Shop/ }).waitFor()
    expect(stored("Shop")).toMatchObject({
      type: "mysql",
      host: "::1",
      port: 3307,
      user: "shop",
      sslMode: "verify-ca",
      sslCa: "/ca.pem"
    })

    await newConnection("PostgreSQL")
    await page.getByLabel("Connection URL").fill("sqlite:///tmp/my%20notes.db")
    await page.getByRole("button", { name: "Import URL" }).click()
    await page.getByRole("heading", { name: "New SQLite connection" }).waitFor()
    expect(await page.getByLabel("Database file").inputValue()).toBe("/tmp/my notes.db")
    expect(await page.getByLabel("CA certificate file").count()).toBe(0)
    await page.getByRole("button", { name: "Cancel" }).click()
  })
})
