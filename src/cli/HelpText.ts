import { type CommandHelp, type FlagHelp, WIDTH } from "./Help.ts"

/** Bold headings when standard output is a terminal that accepts colour; plain text otherwise (see `helpStyle`). */
export interface HelpStyle {
  readonly bold: boolean
}

/** Bold only on a terminal, and never under NO_COLOR (any value, https://no-color.org) or TERM=dumb. */
export const helpStyle = (
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>
): HelpStyle => ({
  bold: stream.isTTY === true && env["NO_COLOR"] === undefined && env["TERM"] !== "dumb"
})

/** Greedy word wrap; a word longer than the width stands alone on its line. */
export const wrap = (text: string, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((part) => part !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines
}

/** A term and its text in two columns; a term wider than the column puts its text on the next line. */
const columns = (rows: ReadonlyArray<readonly [string, string]>, maxTerm: number): Array<string> => {
  const termWidth = Math.min(maxTerm, Math.max(0, ...rows.map(([term]) => term.length)))
  const indent = 2 + termWidth + 3
  return rows.flatMap(([term, text]) => {
    const body = wrap(text, WIDTH - indent)
    const pad = " ".repeat(indent)
    if (term.length > termWidth || body.length === 0) return [`  ${term}`, ...body.map((line) => pad + line)]
    return [`  ${term.padEnd(termWidth)}   ${body[0]}`, ...body.slice(1).map((line) => pad + line)]
  })
}

/**
 * An example as written when it fits (its own spacing kept: "dbdesk doctor    check the installation"); a longer one
 * puts its note, after two or more spaces, on the next line, and breaks the command between words with a trailing
 * backslash (it still pastes as one command).
 */
const exampleLines = (example: string, indent: string): Array<string> => {
  if (indent.length + example.length <= WIDTH) return [indent + example]
  const [command = example, note] = example.split(/\s{2,}(?=\S)/, 2)
  const words = command.match(/"[^"]*"|'[^']*'|\S+/g) ?? []
  const lines: Array<string> = []
  let line = ""
  for (const word of words) {
    if (line !== "" && indent.length + line.length + 1 + word.length + 2 > WIDTH) {
      lines.push(`${line} \\`)
      line = `  ${word}`
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return [...lines, ...(note === undefined ? [] : wrap(note, WIDTH - indent.length - 2).map((text) => `  ${text}`))]
    .map((text) => indent + text)
}

const flagTerm = (flag: FlagHelp) =>
  `${[...flag.names].sort((a, b) => a.length - b.length).join(", ")}${flag.value === undefined ? "" : ` ${flag.value}`}`

const flagText = (flag: FlagHelp) =>
  [
    flag.description,
    flag.repeatable && !flag.description.includes("repeatable") ? "(repeatable)" : "",
    flag.required ? "(required)" : "",
    flag.defaultValue === undefined || /\(default[ :]/i.test(flag.description) ? "" : `(default: ${flag.defaultValue})`
  ].filter((part) => part !== "").join(" ")

/** The usage line: the full command path, the required flags and arguments, `[flags]` for the optional ones. */
export const usageLine = (help: CommandHelp, path: ReadonlyArray<string>): string => {
  if (help.subcommands.length > 0) return `${path.join(" ")} <command>${help.flags.length > 0 ? " [flags]" : ""}`
  const required = help.flags.filter((flag) => flag.required).map((flag) =>
    `${flag.names[0]} ${flag.value ?? ""}`.trim() + (flag.repeatable ? "..." : "")
  )
  const optional = help.flags.some((flag) => !flag.required) ? ["[flags]"] : []
  const args = help.args.map((arg) => {
    const name = `<${arg.name}>${arg.repeatable ? "..." : ""}`
    return arg.required ? name : `[${name}]`
  })
  return [...path, ...required, ...args, ...optional].join(" ")
}

/** Required flags first, then the command's own, then the ones most commands share (--json, --home). */
const SHARED = ["--json", "--home"]
const ordered = (flags: ReadonlyArray<FlagHelp>) => {
  const rank = (
    flag: FlagHelp
  ) => (flag.required ? 0 : SHARED.includes(flag.names[0] ?? "") ? 2 + SHARED.indexOf(flag.names[0] ?? "") : 1)
  return [...flags].sort((a, b) => rank(a) - rank(b))
}

/** The first sentence of a description, for a list of commands. */
const summary = (help: CommandHelp) => (help.description[0] ?? "").split(/(?<=[.:])\s/)[0] ?? ""

/**
 * The help text of the command at `path` (`["dbdesk", "token", "create"]`). `root` adds the options that exist only
 * on the program itself (--version).
 */
export const renderHelp = (help: CommandHelp, path: ReadonlyArray<string>, style: HelpStyle, root = false): string => {
  const heading = (text: string) => (style.bold ? `\u001b[1m${text}\u001b[0m` : text)
  const out: Array<string> = []
  const section = (title: string, lines: ReadonlyArray<string>) => {
    if (lines.length > 0) out.push("", heading(title), ...lines)
  }
  for (const [index, paragraph] of help.description.entries()) {
    if (index > 0) out.push("")
    out.push(...wrap(paragraph, WIDTH))
  }
  section("USAGE", exampleLines(usageLine(help, path), "  "))
  section("COMMANDS", columns(help.subcommands.map((child) => [child.name, summary(child)] as const), 14))
  section("ARGUMENTS", columns(help.args.map((arg) => [`<${arg.name}>`, arg.description] as const), 24))
  const builtIn: Array<readonly [string, string]> = [
    ["-h, --help", "show this help"],
    ...(root ? [["--version", "print dbdesk's version"] as const] : [])
  ]
  section(
    "FLAGS",
    columns([...ordered(help.flags).map((flag) => [flagTerm(flag), flagText(flag)] as const), ...builtIn], 30)
  )
  section("EXAMPLES", help.examples.flatMap((example) => exampleLines(example, "  ")))
  if (help.subcommands.length > 0) {
    section("LEARN MORE", [`  ${path.join(" ")} <command> --help   the flags and examples of one command`])
  }
  return `${out.join("\n").replace(/[ \t]+$/gm, "")}\n`
}

/**
 * The command a help request names: the words that are subcommands, in order. `unknown` is the first word that is
 * not one where the command has subcommands (the caller says it is unknown rather than print the parent's help).
 */
export const helpTarget = (root: CommandHelp, args: ReadonlyArray<string>) => {
  let help = root
  const path = [root.name]
  for (const word of args) {
    if (word.startsWith("-")) continue
    const next = help.subcommands.find((child) => child.name === word)
    if (next === undefined) return { path, help, unknown: help.subcommands.length > 0 ? word : undefined }
    help = next
    path.push(word)
  }
  return { path, help, unknown: undefined }
}
