import { describe, expect, it } from "vitest"
import { commandTree } from "../../src/cli/Cli.ts"
import type { CommandHelp } from "../../src/cli/Help.ts"
import { helpStyle, renderHelp } from "../../src/cli/HelpText.ts"
import { runInProcess, runProcess } from "./CliHarness.ts"

/** Every command of the tree with its path, so a command added later is checked too. */
const walk = (
  help: CommandHelp,
  path: ReadonlyArray<string>
): Array<{ path: ReadonlyArray<string>; help: CommandHelp }> => [
  { path, help },
  ...help.subcommands.flatMap((child) => walk(child, [...path, child.name]))
]
const ALL = walk(commandTree(), ["dbdesk"])

/** The FLAGS section's lines that start a flag (`  --name <text>   …`). */
const flagLines = (text: string) => {
  const section = text.split("\nFLAGS\n")[1]?.split("\n\n")[0] ?? ""
  return section.split("\n").filter((line) => /^ {2}-/.test(line))
}

describe("dbdesk --help reads like git's and gh's", () => {
  it("covers every command", () => {
    expect(ALL.length).toBeGreaterThan(25)
    expect(ALL.map(({ path }) => path.join(" "))).toContain("dbdesk connection add postgresql")
  })

  it.each(ALL.map(({ path, help }) => [path.join(" "), path, help] as const))(
    "%s --help: plain text, the full path, each flag once with its meaning",
    async (_, path, help) => {
      const run = await runInProcess(...path.slice(1), "--help")
      expect(run.code).toBe(0)
      expect(run.stderr).toBe("")
      const text = run.stdout
      expect(text).not.toContain("\u001b")
      for (const line of text.split("\n")) {
        expect(line.length, line).toBeLessThanOrEqual(100)
        expect(line, JSON.stringify(line)).not.toMatch(/\s$/)
      }
      expect(text).toContain(`\nUSAGE\n  ${path.join(" ")}`)
      expect(text).not.toMatch(
        /user-defined piece of text|true or false value|One of the following|This setting is optional/i
      )
      expect(text).not.toMatch(/--completions|--wizard|--log-level/)
      // each flag once, and each with words after it
      const names = help.flags.map((flag) => flag.names[0]!)
      expect(new Set(names).size).toBe(names.length)
      const lines = flagLines(text)
      for (const flag of help.flags) {
        const at = lines.filter((line) => line.split(/\s{2,}|,? /).includes(flag.names[0]!))
        expect(at, `${flag.names[0]} in\n${text}`).toHaveLength(1)
      }
      expect(flagLines(text).some((line) => line.startsWith("  -h, --help"))).toBe(true)
      // a flag with a value that is not required is never shown as required, in the usage or the list
      const usage = text.split("\nUSAGE\n")[1]!.split("\n\n")[0]!
      for (const flag of help.flags.filter((candidate) => !candidate.required)) {
        expect(usage).not.toMatch(new RegExp(`${flag.names[0]}\\b(?!-)`))
      }
      expect(text.match(/\(required\)/g)?.length ?? 0).toBe(help.flags.filter((flag) => flag.required).length)
      if (help.flags.some((flag) => !flag.required)) expect(usage).toContain("[flags]")
    }
  )

  it("names required flags in the usage line and shows defaults on optional ones", async () => {
    /** The text with its line breaks and column padding as single spaces. */
    const help = async (...args: Array<string>) => (await runInProcess(...args, "--help")).stdout.replace(/\s+/g, " ")
    const create = await help("token", "create")
    expect(create).toContain(
      "USAGE dbdesk token create --name <text> --access <readOnly|readWrite|fullAccess> \\ [flags]"
    )
    expect(create).toContain(
      "--connections <text> comma-separated ids or names of the connections the token may use (default: all) --"
    )
    expect(create).not.toMatch(/product-decisions|§/)
    const activity = await help("activity", "list")
    expect(activity).toContain("--limit <n> at most this many events, newest first (1–10000) (default: 50) --")
    expect(activity).toContain(
      "--home <dir> support directory (default: DBDESK_HOME or the platform location) -h, --help"
    )
    const postgres = await help("connection", "add", "postgresql")
    expect(postgres).toContain("USAGE dbdesk connection add postgresql --name <text> [flags]")
    expect(postgres).toContain("--host <text> host name or address of the server (required unless the URL gives it) --")
    expect(postgres).toContain("--port <n> TCP port (default: 5432) --")
    expect(postgres).toContain(
      "--ssl-mode <choice> TLS mode: disable, prefer, require, verify-ca, verify-full (default: prefer) --"
    )
    expect(postgres).toContain(
      "--external-access <readOnly|readWrite|blocked> what AI clients may do: readOnly, readWrite, or blocked (hidden from them) (default: readOnly)"
    )
    const explain = await help("policy", "explain")
    expect(explain).toContain(
      "--tool <choice> the tool the statement is sent with; one of execute_query, confirm_destructive_operation (default: execute_query)"
    )
    const install = await help("clients", "install")
    expect(install).toContain("USAGE dbdesk clients install <client> [flags]")
    expect(install).toContain("ARGUMENTS <client> one of claude-desktop")
    const search = await help("connection", "add", "search")
    expect(search).toContain("--api-key-env <text> read the API key from this environment variable")
    expect(search).toContain("--port <n> TCP port (required)")
  })

  it("a command with subcommands lists them with their summaries; dbdesk alone prints the same help", async () => {
    const group = (await runInProcess("connection", "add", "--help")).stdout
    expect(group).toContain("USAGE\n  dbdesk connection add <command>\n")
    expect(group).toMatch(/COMMANDS\n {2}sqlite +Add a sqlite connection\.\n/)
    expect(group).not.toContain("connection connection")
    const root = await runInProcess()
    expect(root.code).toBe(0)
    expect(root.stdout).toBe((await runInProcess("--help")).stdout)
    expect(root.stdout).toMatch(/--version +print dbdesk's version/)
    expect((await runInProcess("token", "-h")).stdout).toContain("USAGE\n  dbdesk token <command>")
  })

  it("--help after an unknown command says it is unknown (exit 2) instead of printing a parent's help", async () => {
    const run = await runInProcess("tokn", "--help")
    expect([run.code, run.stdout, run.stderr]).toStrictEqual([
      2,
      "",
      "dbdesk: unknown command \"tokn\"; did you mean \"dbdesk token\"? (dbdesk --help)\n"
    ])
  })

  it("bold headings only on a terminal that accepts colour: never when piped, under NO_COLOR or TERM=dumb", () => {
    expect(helpStyle({ isTTY: true }, {})).toStrictEqual({ bold: true })
    expect(helpStyle({ isTTY: false }, {})).toStrictEqual({ bold: false })
    expect(helpStyle({}, {})).toStrictEqual({ bold: false })
    expect(helpStyle({ isTTY: true }, { NO_COLOR: "1" })).toStrictEqual({ bold: false })
    expect(helpStyle({ isTTY: true }, { NO_COLOR: "" })).toStrictEqual({ bold: false })
    expect(helpStyle({ isTTY: true }, { TERM: "dumb" })).toStrictEqual({ bold: false })
    const help = ALL.find(({ path }) => path.join(" ") === "dbdesk token create")!
    const bold = renderHelp(help.help, help.path, { bold: true })
    expect(bold).toContain("\u001b[1mUSAGE\u001b[0m")
    expect(bold.replace(/\u001b\[[01]m/g, "")).toBe(renderHelp(help.help, help.path, { bold: false }))
  })

  it("a long example breaks between words with a backslash and puts its note on its own line; short ones keep their spacing", () => {
    const help: CommandHelp = {
      name: "demo",
      description: ["Demo."],
      examples: [
        "dbdesk demo --alpha \"a quoted value with spaces\" --beta bbbbbbbbbbbbbbbbbbbb --gamma cccccccccccccccc   (a note about it)",
        "dbdesk demo        aligned note"
      ],
      flags: [],
      args: [],
      subcommands: []
    }
    const text = renderHelp(help, ["dbdesk", "demo"], { bold: false })
    expect(text).toContain([
      "EXAMPLES",
      "  dbdesk demo --alpha \"a quoted value with spaces\" --beta bbbbbbbbbbbbbbbbbbbb \\",
      "    --gamma cccccccccccccccc",
      "    (a note about it)",
      "  dbdesk demo        aligned note"
    ].join("\n"))
    expect(text).toContain("USAGE\n  dbdesk demo\n")
  })

  it("the installed command's help, piped and under NO_COLOR, has no escape byte", () => {
    for (const env of [process.env, { ...process.env, NO_COLOR: "1", FORCE_COLOR: "1" }]) {
      const run = runProcess(["connection", "add", "postgresql", "--help"], { env })
      expect(run.code).toBe(0)
      expect(run.stdout).toContain("USAGE\n  dbdesk connection add postgresql")
      expect(run.stdout).not.toContain("\u001b")
    }
  })
})
