import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Either } from "effect"
import { checkEntryStarts } from "../../src/cli/handlers/EntryCheck.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"
import { runInProcess, startProcess } from "./CliHarness.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ ui: false })
})
afterAll(() => server.stop())

const configDir = () => mkdtempSync(join(tmpdir(), "dbdesk-client-config-"))
const OTHER = {
  mcpServers: { other: { command: "/opt/other/server", args: ["--flag"], env: { TOKEN: "x" } } },
  globalShortcut: "Ctrl+Space"
}

describe("dbdesk clients install (D-78)", () => {
  it("claude-desktop keeps another server, adds a dbdesk bridge that answers server/discover, backs up first, and a second run leaves the bytes alone", async () => {
    const file = join(configDir(), "claude_desktop_config.json")
    const original = JSON.stringify(OTHER)
    writeFileSync(file, original, { mode: 0o644 })

    const first = await runInProcess(
      "clients",
      "install",
      "claude-desktop",
      "--config-file",
      file,
      "--home",
      server.home
    )
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(
      /^Checked: the entry starts and answered server\/discover \(dbdesk \d+\.\d+\.\d+\)\.$/m
    )
    const written = readFileSync(file, "utf8")
    const config = JSON.parse(written)
    expect(config.mcpServers.other).toStrictEqual(OTHER.mcpServers.other)
    expect(config.globalShortcut).toBe("Ctrl+Space")
    expect(Object.keys(config.mcpServers)).toStrictEqual(["other", "dbdesk"])
    expect(config.mcpServers.dbdesk.env).toStrictEqual({ DBDESK_HOME: server.home })
    expect(statSync(file).mode & 0o777).toBe(0o644)
    const backups = readdirSync(dirname(file)).filter((name) =>
      name.startsWith("claude_desktop_config.json.dbdesk-backup-")
    )
    expect(backups).toHaveLength(1)
    expect(readFileSync(join(dirname(file), backups[0]!), "utf8")).toBe(original)

    const { command, args, env } = config.mcpServers.dbdesk
    const bridge = startProcess(command, args, { PATH: "/usr/bin:/bin", ...env })
    try {
      bridge.send({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      })
      const answer = JSON.parse(await bridge.nextLine())
      expect(answer.id).toBe(1)
      expect(answer.result.supportedVersions).toContain("2026-07-28")
      expect(answer.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("dbdesk")
    } finally {
      bridge.child.kill("SIGTERM")
    }

    const second = await runInProcess(
      "clients",
      "install",
      "claude-desktop",
      "--config-file",
      file,
      "--home",
      server.home
    )
    expect(second.code).toBe(0)
    expect(second.stdout).toContain("unchanged")
    expect(readFileSync(file, "utf8")).toBe(written)
    expect(readdirSync(dirname(file)).filter((name) => name.includes("dbdesk-backup"))).toHaveLength(1)
  })

  it("refuses a file it cannot parse, says why and what to add by hand, and leaves it as it was", async () => {
    const file = join(configDir(), "mcp.json")
    const original = "{\n  // my servers\n  \"servers\": {}\n}\n"
    writeFileSync(file, original)
    const refused = await runInProcess("clients", "install", "vscode", "--config-file", file)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /mcp\.json cannot be updated: it is not plain JSON \(.+\); comments and trailing commas are not JSON\. dbdesk did not change it\./
    )
    expect(refused.stderr).toContain("\"type\": \"stdio\"")
    expect(readFileSync(file, "utf8")).toBe(original)
    expect(readdirSync(dirname(file))).toStrictEqual(["mcp.json"])
  })

  it("creates a missing file (0600), writes VS Code's own shape, and remove takes out only dbdesk's entry", async () => {
    const file = join(configDir(), "Code", "User", "mcp.json")
    expect((await runInProcess("clients", "install", "vscode", "--config-file", file, "--name", "db")).code).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const created = JSON.parse(readFileSync(file, "utf8"))
    expect(Object.keys(created.servers)).toStrictEqual(["db"])
    expect(created.servers.db.type).toBe("stdio")
    const withOther = { ...created, servers: { ...created.servers, mine: { type: "stdio", command: "mine" } } }
    writeFileSync(file, JSON.stringify(withOther))
    const removed = await runInProcess("clients", "remove", "vscode", "--config-file", file, "--name", "db")
    expect(removed.code).toBe(0)
    expect(JSON.parse(readFileSync(file, "utf8"))).toStrictEqual({
      servers: { mine: { type: "stdio", command: "mine" } }
    })
    const again = await runInProcess("clients", "remove", "vscode", "--config-file", file, "--name", "db")
    expect(again.stdout).toContain("has no \"db\" entry")
  })

  it("--print changes nothing; Claude Code gets its claude mcp add command line", async () => {
    const printed = await runInProcess("clients", "install", "claude-code", "--print", "--home", "/data/my dbdesk")
    expect(printed.code).toBe(0)
    expect(printed.stdout.trim()).toBe(
      `claude mcp add --scope user --env 'DBDESK_HOME=/data/my dbdesk' dbdesk -- ${process.execPath} ${
        join(import.meta.dirname, "../../bin/dbdesk-mcp.mjs")
      }`
    )
    const snippet = await runInProcess("clients", "install", "cursor", "--print")
    expect(JSON.parse(snippet.stdout)).toStrictEqual({
      mcpServers: {
        dbdesk: { command: process.execPath, args: [join(import.meta.dirname, "../../bin/dbdesk-mcp.mjs")] }
      }
    })
  })

  it("list names every client with its file on macOS, Linux and Windows", async () => {
    const listed = await runInProcess("clients", "list", "--json")
    const rows = JSON.parse(listed.stdout)
    expect(rows.map((row: any) => row.id)).toStrictEqual([
      "claude-desktop",
      "claude-code",
      "cursor",
      "vscode",
      "windsurf"
    ])
    expect(rows.find((row: any) => row.id === "vscode").locations).toStrictEqual({
      darwin: "~/Library/Application Support/Code/User/mcp.json",
      linux: expect.stringMatching(/\/Code\/User\/mcp\.json$/),
      win32: "%APPDATA%\\Code\\User\\mcp.json"
    })
    for (const row of rows) {
      expect(["configured", "not configured", "no config file", "unreadable"]).toContain(row.state)
    }
  })

  it("install starts the entry before writing it: with no server running it says the bridge answered and how to start the server", async () => {
    const file = join(configDir(), "mcp.json")
    const installed = await runInProcess(
      "clients",
      "install",
      "cursor",
      "--config-file",
      file,
      "--home",
      tempHome("dbdesk-no-server-")
    )
    expect(installed.code).toBe(0)
    expect(installed.stdout).toMatch(
      /^Checked: the entry starts \(the bridge answered: dbdesk is not running: .*`dbdesk serve`/m
    )
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.dbdesk.command).toBe(process.execPath)
  })

  it("the entry check refuses an entry that cannot start, exits before answering, or answers something that is not JSON-RPC", async () => {
    const check = (command: string, args: Array<string>) =>
      Effect.runPromise(Effect.either(checkEntryStarts({ command, args })))
    const missing = await check("/nonexistent/node", ["/nonexistent/dbdesk-mcp.mjs"])
    expect(Either.isLeft(missing) && missing.left.message).toMatch(
      /^it could not be started \(spawn \/nonexistent\/node ENOENT\)/
    )
    const exits = await check(process.execPath, [
      "-e",
      "console.error('npm error 404 dbdesk is not in this registry'); process.exit(1)"
    ])
    expect(Either.isLeft(exits) && exits.left.message).toBe(
      "it exited (code 1) before answering; it said: npm error 404 dbdesk is not in this registry"
    )
    const garbage = await check(process.execPath, ["-e", "console.log('hello'); setTimeout(() => {}, 5000)"])
    expect(Either.isLeft(garbage) && garbage.left.message).toBe("its first line is not a JSON-RPC answer: hello")
  })
})
