import { HelpDoc, Options } from "@effect/cli"

/**
 * What every command file shares (options and help only; the work lives in handlers/*): the
 * `--home` and `--json` options, help text with examples, and the exit code of a wrong command
 * line (2; a command that fails exits 1, handlers/Failure.ts).
 */
export const EXIT_USAGE = 2

export const homeOption = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.withPseudoName("dir"),
  Options.optional
)

export const jsonOption = Options.boolean("json").pipe(Options.withDescription("print JSON instead of text"))

/** A command's help: what it does, then examples a user can copy. */
export const described = (text: string, examples: ReadonlyArray<string>): HelpDoc.HelpDoc =>
  HelpDoc.blocks([
    HelpDoc.p(text),
    HelpDoc.p("Examples:"),
    ...examples.map((example) => HelpDoc.p(`  ${example}`))
  ])
