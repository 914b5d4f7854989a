import Database from "better-sqlite3"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commandTree } from "../../src/cli/Cli.ts"
import type { CommandHelp } from "../../src/cli/Help.ts"
import { startTestServer, tempHome } from "../support/TestServer.ts"
import { type CliRun, runInProcess } from "./CliHarness.ts"

const TOKEN = /dbd_[A-Za-z0-9_-]{43}/g
const SECRET = "s3cret-for-json-output"

/** What a script reads: exactly one JSON document on stdout (parsed), nothing on stderr. */
const document = (run: CliRun) => {
  expect(run.stderr).toBe("")
  return JSON.parse(run.stdout)
}

const leaves = (help: CommandHelp, path: ReadonlyArray<string>): Array<{ path: string; help: CommandHelp }> =>
  help.subcommands.length === 0
    ? [{ path: path.join(" "), help }]
    : help.subcommands.flatMap((child) => leaves(child, [...path, child.name]))

/**
 * The commands that print no record: a server, the stdio bridge, a completion script, an export whose --format is
 * the output format, and the client config edits (each prints what it changed in a file the user opens).
 */
// `connection url` prints one URL for shell substitution (`psql "$(dbdesk connection url Prod)"`), not a record;
// `tools add` / `tools remove` print a one-line confirmation (the record is `tools list --json`), `tools test` prints JSON already.
const NO_RECORD = [
  "dbdesk connection url",
  "dbdesk export",
  "dbdesk tools add",
  "dbdesk tools remove",
  "dbdesk tools test",
  "dbdesk serve",
  "dbdesk bridge",
  "dbdesk completions",
  "dbdesk activity export",
  "dbdesk clients install",
  "dbdesk clients remove"
]

describe("--json on every command that prints a record", () => {
  it("every other command takes --json", () => {
    const all = leaves(commandTree(), ["dbdesk"])
    const without = all.filter(({ help }) => !help.flags.some((flag) => flag.names.includes("--json"))).map((
      { path }
    ) => path)
    expect(without.sort()).toStrictEqual([...NO_RECORD].sort())
  })

  it("token create --json prints the new token, its value once, and no hash or salt; revoke and delete print the record", async () => {
    const home = tempHome()
    const created = document(
      await runInProcess(
        "token",
        "create",
        "--home",
        home,
        "--name",
        "script",
        "--access",
        "readOnly",
        "--expires",
        "30d",
        "--json"
      )
    )
    expect(created).toMatchObject({
      name: "script",
      access: "readOnly",
      connections: "all",
      state: "active",
      bridge: false,
      lastUsedAt: null
    })
    expect(created.value).toMatch(TOKEN)
    expect(created.value.startsWith(created.prefix)).toBe(true)
    expect(Object.keys(created)).not.toContain("hash")
    expect(Object.keys(created)).not.toContain("salt")
    const stored = readFileSync(join(home, "tokens.json"), "utf8")
    expect(stored).not.toContain(created.value)

    const listed = await runInProcess("token", "list", "--home", home, "--json")
    expect(document(listed).map((row: any) => row.id)).toStrictEqual([created.id])
    expect(listed.stdout).not.toMatch(TOKEN)

    const revoked = await runInProcess("token", "revoke", created.id, "--home", home, "--json")
    expect(document(revoked)).toMatchObject({
      id: created.id,
      name: "script",
      state: "revoked",
      revokedAt: expect.any(String)
    })
    expect(revoked.stdout).not.toMatch(TOKEN)
    const deleted = await runInProcess("token", "delete", created.id, "--home", home, "--json")
    expect(document(deleted)).toMatchObject({ id: created.id, name: "script", deleted: true })
    expect(document(await runInProcess("token", "list", "--home", home, "--json"))).toStrictEqual([])
    // a failure is still one plain line on stderr and exit 1
    const missing = await runInProcess("token", "revoke", "no-such-id", "--home", home, "--json")
    expect([missing.code, missing.stdout]).toStrictEqual([1, ""])
  })

  it("connection add, list, test and remove --json print the connection without its secret", async () => {
    const home = tempHome()
    process.env["DBDESK_TEST_JSON_SECRET"] = SECRET
    const runs: Array<CliRun> = []
    const run = async (...args: Array<string>) => {
      const result = await runInProcess(...args, "--home", home, "--json")
      runs.push(result)
      return result
    }
    try {
      const added = document(
        await run(
          "connection",
          "add",
          "mysql",
          "--name",
          "Shop",
          "--host",
          "127.0.0.1",
          "--port",
          "1",
          "--user",
          "u",
          "--password-env",
          "DBDESK_TEST_JSON_SECRET"
        )
      )
      expect(added).toMatchObject({ name: "Shop", type: "mysql", hasPassword: true })
      expect(document(await run("connection", "list")).map((connection: any) => connection.name)).toStrictEqual([
        "Sample (SQLite)",
        "Shop"
      ])
      const tested = await run("connection", "test", "Shop")
      expect(tested.code).toBe(1)
      expect(document(tested)).toMatchObject({ id: added.id, ok: false })
      const removed = document(await run("connection", "remove", added.id))
      expect(removed).toStrictEqual(added)
      expect(document(await run("connection", "list")).map((connection: any) => connection.name)).toStrictEqual([
        "Sample (SQLite)"
      ])
    } finally {
      delete process.env["DBDESK_TEST_JSON_SECRET"]
    }
    for (const result of runs) expect(result.stdout + result.stderr).not.toContain(SECRET)
  })

  it("activity verify --json prints the verdict, and exits 1 with the named row when the chain is broken", async () => {
    const server = await startTestServer({ token: "readOnly" })
    await server.stop()
    const intact = await runInProcess("activity", "verify", "--home", server.home, "--json")
    expect(intact.code).toBe(0)
    expect(document(intact)).toStrictEqual({
      ok: true,
      rows: expect.any(Number),
      path: join(server.home, "activity.db")
    })
    const db = new Database(join(server.home, "activity.db"))
    const target = db.prepare("SELECT seq FROM activity ORDER BY seq LIMIT 1").get() as { seq: number }
    db.prepare("UPDATE activity SET action = 'edited' WHERE seq = ?").run(target.seq)
    db.close()
    const broken = await runInProcess("activity", "verify", "--home", server.home, "--json")
    expect(broken.code).toBe(1)
    expect(document(broken)).toMatchObject({
      ok: false,
      problem: "edited",
      seq: target.seq,
      message: expect.stringContaining(`row ${target.seq}`)
    })
  })

  it("the other record commands print one JSON document", async () => {
    const home = tempHome()
    document(
      await runInProcess(
        "connection",
        "add",
        "sqlite",
        "--name",
        "Local",
        "--path",
        join(home, "local.db"),
        "--home",
        home,
        "--json"
      )
    )
    const token = document(
      await runInProcess("token", "create", "--name", "t", "--access", "readWrite", "--home", home, "--json")
    )
    for (
      const args of [
        ["doctor", "--home", home],
        ["clients", "list"],
        ["activity", "list", "--home", home],
        ["policy", "explain", "--token", token.id, "--connection", "Local", "--sql", "SELECT 1", "--home", home]
      ]
    ) {
      const run = await runInProcess(...args, "--json")
      if (args[0] === "activity") {
        // no log before the first serve: one plain line, exit 1, nothing on stdout
        expect([run.code, run.stdout]).toStrictEqual([1, ""])
        continue
      }
      expect(typeof document(run), args.join(" ")).toBe("object")
      expect(run.stdout).not.toContain(token.value)
    }
  })
})
