import { Args, CliConfig, Command, CommandDescriptor, HelpDoc, ValidationError } from "@effect/cli"
import type { Usage } from "@effect/cli"
import { Console, Effect, Either } from "effect"
import { packageVersion } from "../services/PackageInfo.ts"
import { activityCommand } from "./ActivityCommand.ts"
import { bridgeCommand } from "./BridgeCommand.ts"
import { clientsCommand } from "./ClientsCommand.ts"
import { described, EXIT_USAGE } from "./CliSupport.ts"
import { connectionCommand } from "./ConnectionCommand.ts"
import { doctorCommand } from "./DoctorCommand.ts"
import { exportCommand } from "./ExportCommand.ts"
import { commandHelp } from "./Help.ts"
import { helpStyle, helpTarget, renderHelp } from "./HelpText.ts"
import { policyCommand } from "./PolicyCommand.ts"
import { serveCommand } from "./ServeCommand.ts"
import { type CommandNode, explainUsage } from "./Suggestions.ts"
import { tokenCommand } from "./TokenCommand.ts"
import { toolsCommand } from "./ToolsCommand.ts"

const PROGRAM = "dbdesk"
const SHELLS = ["bash", "zsh", "fish"] as const

/** The root, for the completions command that is one of its own subcommands. */
// eslint-disable-next-line prefer-const -- assigned once below, after the root that lists this command is built
let completionRoot: Command.Command<"dbdesk", any, any, any> | undefined

const completions = Command.make("completions", {
  shell: Args.choice(SHELLS.map((shell) => [shell, shell] as const), { name: "shell" })
}, ({ shell }) =>
  Effect.gen(function*() {
    const lines = shell === "bash"
      ? yield* Command.getBashCompletions(completionRoot!, PROGRAM)
      : shell === "zsh"
      ? yield* Command.getZshCompletions(completionRoot!, PROGRAM)
      : yield* Command.getFishCompletions(completionRoot!, PROGRAM)
    yield* Console.log(lines.join("\n"))
  })).pipe(Command.withDescription(described("Print a shell completion script for dbdesk.", [
    "dbdesk completions bash > ~/.local/share/bash-completion/completions/dbdesk",
    "dbdesk completions zsh > \"${fpath[1]}/_dbdesk\"",
    "dbdesk completions fish > ~/.config/fish/completions/dbdesk.fish"
  ])))

const dbdesk = Command.make(PROGRAM).pipe(
  Command.withDescription(described("dbdesk: a local MCP server for your database connections.", [
    "dbdesk serve                          start the server (and the UI)",
    "dbdesk clients install claude-desktop connect an AI client",
    "dbdesk doctor                         check the installation",
    "dbdesk <command> --help               help for one command"
  ])),
  Command.withSubcommands([
    serveCommand,
    doctorCommand,
    clientsCommand,
    connectionCommand,
    tokenCommand,
    toolsCommand,
    policyCommand,
    exportCommand,
    activityCommand,
    bridgeCommand,
    completions
  ])
)

completionRoot = dbdesk

/** Every command's help, read from the command tree (`--help` renders it; tests walk it). */
export const commandTree = () => commandHelp(dbdesk.descriptor)

/** Every command's work is imported when it runs (see Lazy.ts): parsing argv loads only the command tree. */
const run = (argv: ReadonlyArray<string>) => Command.run(dbdesk, { name: PROGRAM, version: packageVersion() })(argv)

// --- one plain line for a command line that names no command (D-79) ---

type Instruction =
  | { readonly _tag: "Standard" | "GetUserInput"; readonly name: string }
  | { readonly _tag: "Map"; readonly command: Instruction }
  | { readonly _tag: "Subcommands"; readonly parent: Instruction; readonly children: ReadonlyArray<Instruction> }

const flagsOf = (usage: Usage.Usage): Array<string> => {
  const node = usage as unknown as {
    _tag: string
    names?: ReadonlyArray<string>
    left?: Usage.Usage
    right?: Usage.Usage
    usage?: Usage.Usage
  }
  if (node._tag === "Named") return (node.names ?? []).filter((name) => name.startsWith("-"))
  return [node.left, node.right, node.usage].flatMap((child) => (child === undefined ? [] : flagsOf(child)))
}

/** The command tree as @effect/cli holds it (read once, only when a command line is wrong). */
const treeOf = (instruction: Instruction): [string, CommandNode] => {
  switch (instruction._tag) {
    case "Map":
      return treeOf(instruction.command)
    case "Subcommands": {
      const [name, parent] = treeOf(instruction.parent)
      return [name, { flags: parent.flags, subcommands: new Map(instruction.children.map(treeOf)) }]
    }
    default:
      return [instruction.name, {
        flags: flagsOf(CommandDescriptor.getUsage(instruction as never)),
        subcommands: new Map()
      }]
  }
}

const plainText = (doc: HelpDoc.HelpDoc) =>
  HelpDoc.toAnsiText(doc).replace(/\u001b\[[0-9;]*m/g, "").replace(/\s*\n\s*/g, " ").trim()

/** `--help` or `-h` anywhere before `--`: the help of the command the other words name (HelpText.ts). */
const helpRequested = (args: ReadonlyArray<string>) => {
  const end = args.indexOf("--")
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h")
}

const printHelp = (args: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const target = helpTarget(commandTree(), args)
    if (target.unknown !== undefined) {
      return usageError(explainUsage(treeOf(dbdesk.descriptor as unknown as Instruction)[1], PROGRAM, args))
    }
    return Console.log(
      renderHelp(target.help, target.path, helpStyle(process.stdout, process.env), target.path.length === 1).trimEnd()
    )
  })

const usageError = (line: string) =>
  Console.error(line).pipe(Effect.zipRight(Effect.sync(() => {
    process.exitCode = EXIT_USAGE
  })))

/**
 * Parses first, silently: a command line that names no command or takes an unknown option gets one
 * plain line with the nearest valid spelling and exit 2, instead of @effect/cli's message followed
 * by a logged failure. A valid one runs as usual.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const args = argv.slice(2)
    if (helpRequested(args)) return yield* printHelp(args)
    const parsed = yield* Effect.either(
      CommandDescriptor.parse(dbdesk.descriptor, [PROGRAM, ...args], CliConfig.defaultConfig)
    )
    const tree = () => treeOf(dbdesk.descriptor as unknown as Instruction)[1]
    if (Either.isLeft(parsed)) {
      const error = parsed.left
      if (
        ValidationError.isCommandMismatch(error) || ValidationError.isMissingSubcommand(error)
      ) return yield* usageError(explainUsage(tree(), PROGRAM, args))
      const where = explainUsage(tree(), PROGRAM, args).match(/\((.*) --help\)$/)?.[1] ?? PROGRAM
      return yield* usageError(`${where}: ${plainText(error.error)} (${where} --help)`)
    }
    if (parsed.right._tag === "UserDefined" && parsed.right.leftover.length > 0) {
      return yield* usageError(explainUsage(tree(), PROGRAM, args, parsed.right.leftover[0]))
    }
    if (parsed.right._tag === "UserDefined" && args.filter((arg) => !arg.startsWith("-")).length === 0) {
      // `dbdesk` alone: the help, not an error.
      return yield* printHelp([])
    }
    return yield* run(argv).pipe(
      Effect.catchIf(ValidationError.isValidationError, (error) => usageError(`${PROGRAM}: ${plainText(error.error)}`))
    )
  })
