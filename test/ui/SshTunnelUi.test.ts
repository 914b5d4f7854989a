// A PostgreSQL and a MariaDB connection behind a bastion reached through a jump host, both named by an SSH config
// alias, in the browser: the grid, the console's SELECT, the dry run of the user's own write (Don't run leaves the
// data alone) and Cancel all go through the tunnel (the sshd logs show the forwarded channels); an unknown bastion
// key is the app's dialog with its SHA256 fingerprint, asked once. The same setup as the MCP test of the tunnels.
import { randomUUID } from "node:crypto"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { openUi, type UiSession } from "../support/Browser.ts"
import { columnTexts, grid } from "../support/Grid.ts"
import { describeWhenInstalled } from "../support/InstalledSuite.ts"
import {
  type MariadbServer,
  mariadbAvailable,
  runningStatements as mariaRunning,
  startMariadb
} from "../support/MariadbHarness.ts"
import {
  eventually,
  type PostgresServer,
  postgresAvailable,
  runningStatements as pgRunning,
  startPostgres
} from "../support/PostgresHarness.ts"
import { type KeyPair, makeKey, type SshServer, sshdAvailable, startSshd } from "../support/SshHarness.ts"
import { tempHome } from "../support/TestServer.ts"

const describeTunnels = describeWhenInstalled(
  sshdAvailable && postgresAvailable && mariadbAvailable,
  "sshd, PostgreSQL and MariaDB are needed (CI installs them)"
)
const SHOTS = "/work/wt/_shots"

describeTunnels("SQL connections through an SSH jump host and bastion, in the UI", () => {
  let postgres: PostgresServer
  let mariadb: MariadbServer
  let jump: SshServer
  let bastion: SshServer
  let fresh: SshServer
  let key: KeyPair
  let ui: UiSession
  const ids = { pg: randomUUID(), maria: randomUUID(), fresh: randomUUID() }
  const saved: Record<string, string | undefined> = {}

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "dbdesk-ssh-ui-"))
    key = makeKey(dir, "ed25519")
    ;[postgres, mariadb, jump, bastion, fresh] = await Promise.all([
      startPostgres(),
      startMariadb(),
      startSshd({ authorizedKeys: [key.publicLine] }),
      startSshd({ authorizedKeys: [key.publicLine] }),
      startSshd({ authorizedKeys: [key.publicLine] })
    ])
    await postgres.sql(
      "CREATE TABLE t (id int PRIMARY KEY, label text); INSERT INTO t VALUES (1, 'one'), (2, 'two'); GRANT SELECT, INSERT, UPDATE, DELETE ON t TO PUBLIC"
    )
    await mariadb.admin().query(
      "CREATE TABLE items (id INT PRIMARY KEY, label VARCHAR(20)); INSERT INTO items VALUES (1, 'one'), (2, 'two')"
    )
    const host = (alias: string, port: number, jumpTo?: string) => [
      `Host ${alias}`,
      "  HostName 127.0.0.1",
      `  Port ${port}`,
      "  User root",
      `  IdentityFile ${key.privateFile}`,
      ...(jumpTo === undefined ? [] : [`  ProxyJump ${jumpTo}`])
    ]
    const config = join(dir, "config")
    writeFileSync(
      config,
      [
        ...host("jump-host", jump.port),
        ...host("db-bastion", bastion.port, "jump-host"),
        ...host("new-bastion", fresh.port, "jump-host"),
        ""
      ].join("\n")
    )
    const knownHosts = join(dir, "known_hosts")
    // the new bastion's key is in no file: the first connection through it asks
    writeFileSync(knownHosts, `${jump.hashedKnownHostsLine()}\n${bastion.knownHostsLine()}\n`)
    for (const name of ["DBDESK_SSH_CONFIG", "DBDESK_SSH_KNOWN_HOSTS", "SSH_AUTH_SOCK"]) saved[name] = process.env[name]
    process.env["DBDESK_SSH_CONFIG"] = config
    process.env["DBDESK_SSH_KNOWN_HOSTS"] = knownHosts
    delete process.env["SSH_AUTH_SOCK"]
    const access = { externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" }
    const pg = {
      type: "postgresql",
      host: "127.0.0.1",
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      password: postgres.password,
      sslMode: "disable"
    }
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [
          { id: ids.pg, name: "Orders PG", ...pg, ssh: { host: "db-bastion" }, ...access },
          {
            id: ids.maria,
            name: "Shop Maria",
            type: "mysql",
            host: "127.0.0.1",
            port: mariadb.port,
            database: mariadb.database,
            user: mariadb.user,
            password: mariadb.password,
            sslMode: "disabled",
            ssh: { host: "db-bastion" },
            ...access
          },
          { id: ids.fresh, name: "New bastion PG", ...pg, ssh: { host: "new-bastion" }, ...access }
        ]
      }),
      { mode: 0o600 }
    )
    ui = await openUi({ home, token: "readWrite" })
  }, 180_000)

  afterAll(async () => {
    await ui?.close()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    await Promise.all([postgres?.stop(), mariadb?.stop(), jump?.stop(), bastion?.stop(), fresh?.stop()])
  }, 60_000)

  const go = async (id: string, rest: string) => ui.page.goto(`${ui.ui.origin}/#/c/${encodeURIComponent(id)}/${rest}`)
  const labels = () => columnTexts(grid(ui.page, "Rows"), "label")
  const openTable = async (id: string, table: string) => {
    await go(id, `table/${table}`)
    await ui.page.getByLabel("Page status").filter({ visible: true, hasText: /of 2\b/ }).waitFor()
    await expect.poll(labels).toEqual(["one", "two"])
  }
  const openConsole = async (id: string, route = "console/1") => {
    await go(id, route)
    await ui.page.getByRole("tab", { name: "Console", selected: true }).waitFor()
    await ui.page.getByLabel("SQL").filter({ visible: true }).waitFor()
  }
  const typeSql = async (text: string) => {
    const editor = ui.page.getByLabel("SQL").filter({ visible: true })
    await editor.click()
    await ui.page.keyboard.press("Control+a")
    await ui.page.keyboard.press("Delete")
    await editor.fill(text)
  }
  const results = () => grid(ui.page, "Results")

  const engines = [
    {
      engine: "PostgreSQL",
      id: () => ids.pg,
      db: () => postgres.port,
      table: "t",
      sleep: "SELECT pg_sleep(60) AS ui_ssh_cancel",
      running: (marker: string) => pgRunning(postgres, marker),
      label: async () => (await postgres.sql<{ label: string }>("SELECT label FROM t WHERE id = 1"))[0]?.label
    },
    {
      engine: "MariaDB",
      id: () => ids.maria,
      db: () => mariadb.port,
      table: "items",
      sleep: "SELECT SLEEP(60) AS ui_ssh_cancel",
      running: (marker: string) => mariaRunning(mariadb, marker),
      label: async () =>
        ((await mariadb.admin().query("SELECT label FROM items WHERE id = 1"))[0] as Array<{ label: string }>)[0]?.label
    }
  ] as const

  for (const engine of engines) {
    it(`${engine.engine} by alias through jump and bastion: the grid shows the table's rows and the console runs a SELECT, over forwarded channels`, async () => {
      const before = bastion.forwardsTo(engine.db())
      await openTable(engine.id(), engine.table)
      // a console link without its number is the first console, not a second tab also called Console
      await openConsole(engine.id(), "console")
      expect(
        (await ui.page.getByRole("tablist", { name: "Open tabs" }).getByRole("tab").allTextContents()).filter((name) =>
          name.startsWith("Console")
        )
      ).toEqual(["Console"])
      await typeSql(`SELECT label AS tunnelled FROM ${engine.table} WHERE id = 2`)
      await ui.page.keyboard.press("Control+Enter")
      await results().getByRole("columnheader").filter({ hasText: "tunnelled" }).waitFor()
      expect(await columnTexts(results(), "tunnelled")).toEqual(["two"])
      expect(bastion.forwardsTo(engine.db())).toBeGreaterThan(before)
      expect(jump.forwardsTo(bastion.port)).toBeGreaterThan(0)
    })

    it(`${engine.engine} through the tunnel: the console's write is dry-run (will change 1 row) and Don't run leaves the data unchanged`, async () => {
      await openConsole(engine.id())
      await typeSql(`UPDATE ${engine.table} SET label = 'changed' WHERE id = 1`)
      await ui.page.keyboard.press("Control+Enter")
      const question = ui.page.getByRole("alertdialog", { name: "Confirm the statement" })
      await question.getByLabel("Preview").filter({ hasText: `will change 1 row in ${engine.table}` }).waitFor()
      await question.getByRole("button", { name: "Don't run" }).click()
      await question.waitFor({ state: "detached" })
      expect(await engine.label()).toBe("one")
      await openTable(engine.id(), engine.table)
    })

    it(`C3.2-d ${engine.engine} through the tunnel: Cancel in the console stops the statement, gone from the server's list within 2 s`, async () => {
      await openConsole(engine.id())
      await typeSql(engine.sleep)
      await ui.page.keyboard.press("Control+Enter")
      await eventually(async () => (await engine.running("ui_ssh_cancel")) > 0, "the sleep running")
      const channels = bastion.forwardsTo(engine.db())
      await ui.page.getByRole("button", { name: "Cancel", exact: true }).click()
      const until = Date.now() + 2000
      while ((await engine.running("ui_ssh_cancel")) > 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(await engine.running("ui_ssh_cancel")).toBe(0)
      // the cancel request (PostgreSQL's CancelRequest, MariaDB's KILL QUERY) came through the tunnel on a channel of its own
      expect(bastion.forwardsTo(engine.db())).toBeGreaterThan(channels)
      await ui.page.getByText("Cancelled: the statement was stopped on the database.").filter({ visible: true }).first()
        .waitFor()
      await openTable(engine.id(), engine.table)
    })
  }

  it("an unknown bastion key is the app's dialog with its SHA256 fingerprint; accepted, the grid loads, and a second open does not ask", async () => {
    const { page } = ui
    const fingerprint = execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], {
      input: fresh.hostKeyLine,
      encoding: "utf8"
    }).split(" ")[1]!
    expect(fingerprint).toMatch(/^SHA256:/)
    await page.setViewportSize({ width: 1440, height: 900 })
    await go(ids.fresh, "table/t")
    const dialog = page.getByRole("dialog").filter({ hasText: fingerprint })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain("'New bastion PG'")
    expect(fresh.log()).not.toContain("Accepted publickey")
    // the fingerprint, one long word, is read whole inside the dialog: nothing spills past its edge
    expect(await dialog.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true)
    mkdirSync(SHOTS, { recursive: true })
    await page.screenshot({ path: join(SHOTS, "ssh-hostkey-dialog.png") })
    await dialog.getByRole("button", { name: "Approve" }).click()
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 2\b/ }).waitFor()
    await expect.poll(labels).toEqual(["one", "two"])
    expect(fresh.forwardsTo(postgres.port)).toBeGreaterThan(0)
    expect(readFileSync(join(ui.server.home, "known_hosts"), "utf8")).toContain(fresh.knownHostsLine())

    // a new SSH session (the bastion restarted, same key, its log emptied) opens without a question
    fresh.kill()
    await fresh.restart()
    await go(ids.pg, "table/t")
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 2\b/ }).waitFor()
    await page.reload()
    await go(ids.fresh, "table/t")
    await page.getByLabel("Page status").filter({ visible: true, hasText: /of 2\b/ }).waitFor()
    await expect.poll(labels).toEqual(["one", "two"])
    expect(fresh.log()).toContain("Accepted publickey")
    expect(await page.getByRole("dialog").count()).toBe(0)
  })
})
