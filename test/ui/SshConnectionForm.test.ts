import { Context, Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Approvals } from "../../src/services/Approvals.ts"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"

/** The connection form's SSH section and the host-key question as a dialog, in the browser against the real server. */
describe("UI: SSH tunnel fields and the host-key dialog", () => {
  let ui: UiSession
  beforeAll(async () => {
    ui = await openUi({ token: "readWrite" })
  })
  afterAll(() => ui?.close())

  const stored = (name: string) =>
    JSON.parse(readFileSync(join(ui.server.home, "connections.json"), "utf8")).connections.find((connection: any) =>
      connection.name === name
    )

  it("every SSH field is saved: host alias, port, user, key file, passphrase (stored, never shown back), jump hosts; editing keeps the passphrase, unticking removes the tunnel", async () => {
    const { page } = ui
    // Save tests the connection first; nothing answers behind this bastion, so the form offers Save anyway
    const save = async () => {
      await page.getByRole("button", { name: "Save", exact: true }).click()
      const anyway = page.getByRole("button", { name: "Save anyway" })
      await anyway.or(page.getByRole("table", { name: "Connections" })).first().waitFor({ timeout: 30_000 })
      if (await anyway.isVisible()) await anyway.click()
      await page.getByRole("table", { name: "Connections" }).waitFor()
    }
    await page.getByRole("button", { name: "New connection" }).click()
    await page.getByRole("button", { name: "Choose PostgreSQL" }).click()
    await page.getByRole("textbox", { name: "Name", exact: true }).fill("Behind bastion")
    await page.getByRole("textbox", { name: "Host", exact: true }).fill("127.0.0.1")
    await page.getByRole("textbox", { name: "Database" }).fill("app")
    await page.getByRole("textbox", { name: "User", exact: true }).fill("me")
    expect(await page.getByLabel("SSH host").count()).toBe(0)
    await page.getByLabel("Connect through SSH").check()
    await page.getByLabel("SSH host").fill("db-bastion")
    await page.getByLabel("SSH port").fill("2222")
    await page.getByLabel("SSH user").fill("deploy")
    await page.getByLabel("SSH sign-in").selectOption("key")
    await page.getByLabel("SSH key file").fill("/keys/id_ed25519")
    expect(await page.getByLabel("Key passphrase", { exact: true }).getAttribute("type")).toBe("password")
    await page.getByLabel("Key passphrase", { exact: true }).fill("pass-Phrase-1")
    await page.getByLabel("Jump hosts").fill("jump-host, ops@jump2:22")
    await screenshot(page, "ssh-fields")
    await save()
    const row = page.getByRole("table", { name: "Connections" }).getByRole("row", { name: /Behind bastion/ })
    await row.waitFor()
    expect(stored("Behind bastion").ssh).toStrictEqual({
      host: "db-bastion",
      port: 2222,
      user: "deploy",
      auth: "key",
      keyFile: "/keys/id_ed25519",
      passphrase: "pass-Phrase-1",
      jumps: ["jump-host", "ops@jump2:22"]
    })
    expect(await page.content()).not.toContain("pass-Phrase-1")

    await row.getByRole("button", { name: "Edit" }).click()
    expect(await page.getByLabel("SSH host").inputValue()).toBe("db-bastion")
    expect(await page.getByLabel("Key passphrase", { exact: true }).inputValue()).toBe("")
    expect(await page.getByLabel("Key passphrase", { exact: true }).getAttribute("placeholder")).toBe(
      "leave empty to keep the saved one"
    )
    await page.getByLabel("SSH user").fill("ops")
    await save()
    await row.waitFor()
    await expect.poll(() => stored("Behind bastion").ssh.user).toBe("ops")
    expect(stored("Behind bastion").ssh.passphrase).toBe("pass-Phrase-1")

    await row.getByRole("button", { name: "Edit" }).click()
    await page.getByLabel("SSH sign-in").selectOption("password")
    await page.getByLabel("SSH password").fill("ssh-Pw-2")
    await save()
    await expect.poll(() => stored("Behind bastion").ssh.auth).toBe("password")
    expect(stored("Behind bastion").ssh.password).toBe("ssh-Pw-2")
    expect(stored("Behind bastion").ssh).not.toHaveProperty("passphrase")

    await row.getByRole("button", { name: "Edit" }).click()
    await page.getByLabel("Connect through SSH").uncheck()
    await save()
    await expect.poll(() => stored("Behind bastion").ssh).toBeUndefined()
  })

  it("an unknown SSH host key is a dialog with its fingerprint; Approve answers the question", async () => {
    const { page } = ui
    const approvals = Context.get(ui.server.context, Approvals)
    const answer = Effect.runPromise(approvals.ask({
      kind: "host_key",
      message:
        "Trust the SSH host db-bastion (10.0.0.9:22) for 'Behind bastion'? dbdesk has not seen its key before. Its fingerprint is SHA256:abcDEF123",
      connectionId: "c",
      connectionName: "Behind bastion",
      principal: "dbdesk"
    }))
    const dialog = page.getByRole("dialog")
    await dialog.filter({ hasText: "SHA256:abcDEF123" }).waitFor()
    expect(await dialog.textContent()).toContain("Accept the key only if its fingerprint matches the host's")
    expect(await dialog.textContent()).not.toContain("using token")
    await screenshot(page, "host-key-dialog")
    await dialog.getByRole("button", { name: "Approve" }).click()
    expect(await answer).toBe("approved")
  })
})
