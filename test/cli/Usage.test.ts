import { describe, expect, it } from "vitest"
import { runInProcess, runProcess } from "./CliHarness.ts"

const COMMANDS = [
  "serve",
  "doctor",
  "bridge",
  "clients",
  "clients list",
  "clients install",
  "clients remove",
  "connection",
  "connection list",
  "connection add",
  "connection add sqlite",
  "connection add postgresql",
  "connection add search",
  "connection test",
  "connection remove",
  "token",
  "token create",
  "token list",
  "token revoke",
  "token delete",
  "activity",
  "activity list",
  "activity export",
  "activity verify",
  "completions"
]

describe("the dbdesk command line (D-79)", () => {
  it("an unknown command is one plain line naming the nearest command, exit 2, with no logged failure", () => {
    const run = runProcess(["tokn", "list"])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe("")
    expect(run.stderr).toBe("dbdesk: unknown command \"tokn\"; did you mean \"dbdesk token\"? (dbdesk --help)\n")
  })

  it.each([
    [
      ["frobnicate"],
      "dbdesk: unknown command \"frobnicate\"; the commands are serve, doctor, clients, connection, token, tools, policy, export, activity, bridge, completions (dbdesk --help)"
    ],
    [
      ["token", "lst"],
      "dbdesk token: unknown command \"lst\"; did you mean \"dbdesk token list\"? (dbdesk token --help)"
    ],
    [
      ["token", "list", "--jsn"],
      "dbdesk token list: unknown option --jsn; did you mean --json? (dbdesk token list --help)"
    ],
    [
      ["clients", "instal", "cursor"],
      "dbdesk clients: unknown command \"instal\"; did you mean \"dbdesk clients install\"? (dbdesk clients --help)"
    ],
    [
      ["connection", "add", "postgres", "--name", "x"],
      "dbdesk connection add: unknown command \"postgres\"; did you mean \"dbdesk connection add postgresql\"? (dbdesk connection add --help)"
    ],
    [
      ["token", "create", "--name", "x", "--access", "root"],
      "dbdesk token create: Expected one of the following cases: readOnly, readWrite, fullAccess (dbdesk token create --help)"
    ],
    [
      ["activity", "export", "--format", "xml"],
      "dbdesk activity export: Expected one of the following cases: csv, jsonl (dbdesk activity export --help)"
    ]
  ])("%j answers one line and exit 2", async (args, line) => {
    const run = await runInProcess(...args)
    expect([run.code, run.stdout, run.stderr]).toStrictEqual([2, "", `${line}\n`])
  })

  it.each(COMMANDS)("dbdesk %s --help describes the command with examples", async (command) => {
    const run = await runInProcess(...command.split(" "), "--help")
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`USAGE\n  dbdesk ${command}`)
    expect(run.stdout).toMatch(/EXAMPLES\n {2}dbdesk /)
  })

  it("completions print a script for bash, zsh and fish that knows the commands", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const run = await runInProcess("completions", shell)
      expect(run.code).toBe(0)
      expect(run.stdout).toContain("dbdesk")
      expect(run.stdout).toContain("doctor")
    }
  })
})
