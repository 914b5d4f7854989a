import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { spawnSync } from "node:child_process"
import {
  AI_CLIENTS,
  type AiClient,
  type BridgeLaunch,
  claudeCodeCommand,
  configSnippet,
  findAiClient,
  launchOfEntry,
  serverEntry,
  serverEntryIn,
  shellCommand,
  withoutServerEntry,
  withServerEntry
} from "../../src/domain/AiClients.ts"

const client = (id: string): AiClient => findAiClient(id)!
const launch: BridgeLaunch = { command: "/usr/bin/node", args: ["/opt/dbdesk/bin/dbdesk-mcp.mjs"] }
const dirs = { home: "/home/ada" }

/** What a config file can hold: JSON as it survives a write and a read (-0 is written as 0). */
const jsonValue = FastCheck.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown)
/** Another server's entry and unrelated top-level settings, as other programs write them. */
const otherConfig = FastCheck.record({
  settings: FastCheck.dictionary(
    FastCheck.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== "__proto__"),
    jsonValue,
    { maxKeys: 3 }
  ),
  servers: FastCheck.dictionary(
    FastCheck.string({ minLength: 1, maxLength: 8 }).filter((name) => name !== "dbdesk" && name !== "__proto__"),
    FastCheck.dictionary(
      FastCheck.string({ minLength: 1, maxLength: 6 }).filter((key) => key !== "__proto__"),
      jsonValue,
      { maxKeys: 3 }
    ),
    { maxKeys: 3 }
  )
})

describe("AiClients: where each client keeps its MCP configuration", () => {
  it("names the documented file of every client on macOS, Linux and Windows", () => {
    const table = AI_CLIENTS.map((entry) => [
      entry.id,
      entry.configPath("darwin", { home: "/Users/ada" }),
      entry.configPath("linux", dirs),
      entry.configPath("win32", { home: "C:\\Users\\ada", appData: "C:\\Users\\ada\\AppData\\Roaming" })
    ])
    expect(table).toStrictEqual([
      [
        "claude-desktop",
        "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
        "/home/ada/.config/Claude/claude_desktop_config.json",
        "C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json"
      ],
      ["claude-code", "/Users/ada/.claude.json", "/home/ada/.claude.json", "C:\\Users\\ada\\.claude.json"],
      ["cursor", "/Users/ada/.cursor/mcp.json", "/home/ada/.cursor/mcp.json", "C:\\Users\\ada\\.cursor\\mcp.json"],
      [
        "vscode",
        "/Users/ada/Library/Application Support/Code/User/mcp.json",
        "/home/ada/.config/Code/User/mcp.json",
        "C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json"
      ],
      [
        "windsurf",
        "/Users/ada/.codeium/windsurf/mcp_config.json",
        "/home/ada/.codeium/windsurf/mcp_config.json",
        "C:\\Users\\ada\\.codeium\\windsurf\\mcp_config.json"
      ]
    ])
    expect(client("vscode").configPath("linux", { home: "/home/ada", xdgConfigHome: "/xdg" })).toBe(
      "/xdg/Code/User/mcp.json"
    )
  })

  it("writes each client's entry shape: VS Code under servers with a type, Claude Desktop without", () => {
    const withEnv = { ...launch, env: { DBDESK_HOME: "/data/dbdesk" } }
    expect(JSON.parse(configSnippet(client("vscode"), withEnv))).toStrictEqual({
      servers: {
        dbdesk: {
          type: "stdio",
          command: "/usr/bin/node",
          args: ["/opt/dbdesk/bin/dbdesk-mcp.mjs"],
          env: { DBDESK_HOME: "/data/dbdesk" }
        }
      }
    })
    expect(JSON.parse(configSnippet(client("claude-desktop"), launch, "db"))).toStrictEqual({
      mcpServers: { db: { command: "/usr/bin/node", args: ["/opt/dbdesk/bin/dbdesk-mcp.mjs"] } }
    })
    expect(serverEntry(client("claude-code"), launch)).toStrictEqual({
      type: "stdio",
      command: "/usr/bin/node",
      args: ["/opt/dbdesk/bin/dbdesk-mcp.mjs"]
    })
    expect(launchOfEntry(serverEntry(client("windsurf"), withEnv))).toStrictEqual(withEnv)
  })

  it("gives Claude Code the matching `claude mcp add` command line", () => {
    expect(claudeCodeCommand("linux", { ...launch, env: { DBDESK_HOME: "/my data" } })).toBe(
      "claude mcp add --scope user --env 'DBDESK_HOME=/my data' dbdesk -- /usr/bin/node /opt/dbdesk/bin/dbdesk-mcp.mjs"
    )
    expect(claudeCodeCommand("win32", { command: "C:\\Program Files\\nodejs\\node.exe", args: [] })).toBe(
      "claude mcp add --scope user dbdesk -- \"C:\\Program Files\\nodejs\\node.exe\""
    )
  })

  it.prop("a POSIX command line gives back exactly its words in sh", [
    FastCheck.array(FastCheck.string({ minLength: 1, maxLength: 12 }).filter((word) => !word.includes("\0")), {
      minLength: 1,
      maxLength: 5
    })
  ], ([words]) => {
    const echoed = spawnSync("sh", ["-c", `printf '%s\\0' ${shellCommand("linux", words)}`], { encoding: "utf8" })
    expect(echoed.stdout.split("\0").slice(0, -1)).toStrictEqual(words)
  }, { fastCheck: { numRuns: 40 } })
})

describe("AiClients: merging the dbdesk entry into a config file", () => {
  it.prop("install keeps every other server and setting, and a second install returns the same bytes", [
    otherConfig,
    FastCheck.constantFrom(...AI_CLIENTS)
  ], ([other, target]) => {
    const original = JSON.stringify({ ...other.settings, [target.serversKey]: other.servers }, null, 4)
    const first = withServerEntry(target, original, "dbdesk", serverEntry(target, launch))
    if (Either.isLeft(first)) throw new Error(first.left.reason)
    const written = JSON.parse(first.right.text)
    expect(written[target.serversKey]).toStrictEqual({ ...other.servers, dbdesk: serverEntry(target, launch) })
    expect({ ...written, [target.serversKey]: undefined }).toStrictEqual({
      ...other.settings,
      [target.serversKey]: undefined
    })
    const second = withServerEntry(target, first.right.text, "dbdesk", serverEntry(target, launch))
    expect(second).toStrictEqual(Either.right({ text: first.right.text, changed: false }))
    const removed = withoutServerEntry(target, first.right.text, "dbdesk")
    if (Either.isLeft(removed)) throw new Error(removed.left.reason)
    expect(JSON.parse(removed.right.text)).toStrictEqual({ ...other.settings, [target.serversKey]: other.servers })
    expect(serverEntryIn(target, removed.right.text, "dbdesk")).toBeUndefined()
  })

  it("creates the file from nothing, replaces an outdated entry, and leaves a file without the entry alone on remove", () => {
    const cursor = client("cursor")
    const created = withServerEntry(cursor, undefined, "dbdesk", serverEntry(cursor, launch))
    expect(created).toStrictEqual(Either.right({ text: `${configSnippet(cursor, launch)}\n`, changed: true }))
    const outdated = JSON.stringify({ mcpServers: { dbdesk: { command: "/old/node", args: [] } } })
    const updated = withServerEntry(cursor, outdated, "dbdesk", serverEntry(cursor, launch))
    expect(Either.map(updated, (edit) => [edit.changed, serverEntryIn(cursor, edit.text, "dbdesk")])).toStrictEqual(
      Either.right([true, serverEntry(cursor, launch)])
    )
    const untouched = "{\"mcpServers\":{\"other\":{\"command\":\"x\"}}}"
    expect(withoutServerEntry(cursor, untouched, "dbdesk")).toStrictEqual(
      Either.right({ text: untouched, changed: false })
    )
    expect(withServerEntry(cursor, "  \n", "dbdesk", serverEntry(cursor, launch))).toStrictEqual(created)
  })

  it("refuses a file it cannot parse and says why", () => {
    const vscode = client("vscode")
    const reasons = ["{ // my servers\n \"servers\": {} }", "{\"servers\": {},}", "[1, 2]", "{\"servers\": []}"].map((
      text
    ) =>
      Either.match(withServerEntry(vscode, text, "dbdesk", serverEntry(vscode, launch)), {
        onLeft: (error) => error.reason,
        onRight: () => "merged"
      })
    )
    expect(reasons[0]).toMatch(/^it is not plain JSON \(.+\); comments and trailing commas are not JSON$/)
    expect(reasons[1]).toMatch(/^it is not plain JSON/)
    expect(reasons.slice(2)).toStrictEqual([
      "its top level is not a JSON object",
      "its \"servers\" is not a JSON object"
    ])
  })
})
