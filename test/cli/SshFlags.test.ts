import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

const PASSPHRASE = "key-Passphrase-'\"$"

describe("dbdesk connection add … --ssh", () => {
  const base = [
    "--name",
    "Behind bastion",
    "--host",
    "10.0.0.5",
    "--database",
    "app",
    "--user",
    "me",
    "--ssl-mode",
    "disable"
  ]

  it("--ssh user@host:port, --ssh-key, --ssh-passphrase-env and repeated --ssh-jump make the tunnel; the passphrase is stored, never shown", async () => {
    const home = tempHome()
    process.env["DBDESK_TEST_SSH_PASSPHRASE"] = PASSPHRASE
    const added = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      ...base,
      "--ssh",
      "deploy@bastion.example:2222",
      "--ssh-key",
      "/keys/id_ed25519",
      "--ssh-passphrase-env",
      "DBDESK_TEST_SSH_PASSPHRASE",
      "--ssh-jump",
      "edge",
      "--ssh-jump",
      "ops@jump2.example:22",
      "--json"
    )
    delete process.env["DBDESK_TEST_SSH_PASSPHRASE"]
    expect(added.code, added.stderr).toBe(0)
    const view = JSON.parse(added.stdout)
    expect(view.ssh).toStrictEqual({
      host: "bastion.example",
      port: 2222,
      user: "deploy",
      auth: "key",
      keyFile: "/keys/id_ed25519",
      jumps: ["edge", "ops@jump2.example:22"],
      hasPassword: false,
      hasPassphrase: true
    })
    const stored = JSON.parse(readFileSync(join(home, "connections.json"), "utf8")).connections.find((
      connection: any
    ) => connection.name === "Behind bastion")
    expect(stored.ssh.passphrase).toBe(PASSPHRASE)
    const listed = await runInProcess("connection", "list", "--json", "--home", home)
    for (const output of [added, listed]) expect(output.stdout + output.stderr).not.toContain(PASSPHRASE)
  })

  it("--ssh alias with --ssh-agent on a MySQL connection; --ssh-password-env stores the SSH password", async () => {
    const home = tempHome()
    const agent = await runInProcess(
      "connection",
      "add",
      "mysql",
      "--home",
      home,
      "--name",
      "Shop",
      "--host",
      "127.0.0.1",
      "--user",
      "shop",
      "--ssh",
      "prod-bastion",
      "--ssh-agent",
      "--json"
    )
    expect(agent.code, agent.stderr).toBe(0)
    expect(JSON.parse(agent.stdout).ssh).toStrictEqual({
      host: "prod-bastion",
      auth: "agent",
      hasPassword: false,
      hasPassphrase: false
    })
    process.env["DBDESK_TEST_SSH_PASSWORD"] = "ssh-Secret-1"
    const password = await runInProcess(
      "connection",
      "add",
      "mysql",
      "--home",
      home,
      "--name",
      "Shop 2",
      "--host",
      "127.0.0.1",
      "--user",
      "shop",
      "--ssh",
      "me@10.1.1.1",
      "--ssh-password-env",
      "DBDESK_TEST_SSH_PASSWORD",
      "--json"
    )
    delete process.env["DBDESK_TEST_SSH_PASSWORD"]
    expect(password.code, password.stderr).toBe(0)
    expect(JSON.parse(password.stdout).ssh).toStrictEqual({
      host: "10.1.1.1",
      user: "me",
      auth: "password",
      hasPassword: true,
      hasPassphrase: false
    })
    expect(password.stdout).not.toContain("ssh-Secret-1")
  })

  it("SSH flags without --ssh, or two ways to sign in, are refused plainly", async () => {
    const home = tempHome()
    const stray = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      ...base,
      "--ssh-key",
      "/keys/id"
    )
    expect(stray.code).toBe(1)
    expect(stray.stderr).toContain("need --ssh (the SSH host or alias)")
    const both = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      ...base,
      "--ssh",
      "bastion",
      "--ssh-key",
      "/keys/id",
      "--ssh-agent"
    )
    expect(both.code).toBe(1)
    expect(both.stderr).toContain("choose one way to sign in to the SSH host")
  })
})
