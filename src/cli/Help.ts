import type { HelpDoc } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { Option } from "effect"

/**
 * `dbdesk … --help`, rendered from the command descriptors @effect/cli holds, in the manner of git's and gh's help:
 * the full command path in the usage line, each flag once with its meaning and default, required flags named in the
 * usage and optional ones behind `[flags]`, lines wrapped to 80 columns without trailing spaces, and plain text
 * unless standard output is a terminal that accepts colour (then only the headings are bold). @effect/cli's own
 * renderer is not used: it styles with ANSI escapes whatever the output, pads lines to the terminal width, prints its
 * type descriptions ("A user-defined piece of text.") and its built-in options under every command, and its usage
 * line names only the last word of the command.
 */
export const WIDTH = 80

export interface FlagHelp {
  /** `--name`, then its aliases. */
  readonly names: ReadonlyArray<string>
  /** `<text>`, `<readOnly|readWrite>`…; none for a switch. */
  readonly value: string | undefined
  readonly description: string
  readonly required: boolean
  readonly defaultValue: string | undefined
  readonly repeatable: boolean
}

export interface ArgHelp {
  readonly name: string
  readonly description: string
  readonly required: boolean
  readonly repeatable: boolean
}

export interface CommandHelp {
  readonly name: string
  readonly description: ReadonlyArray<string>
  readonly examples: ReadonlyArray<string>
  readonly flags: ReadonlyArray<FlagHelp>
  readonly args: ReadonlyArray<ArgHelp>
  readonly subcommands: ReadonlyArray<CommandHelp>
}

// --- reading @effect/cli's descriptors (their internal shapes, read structurally) ---

type Primitive = { readonly _tag: string; readonly alternatives?: ReadonlyArray<readonly [string, unknown]> }

interface Node {
  readonly _tag: string
  readonly [key: string]: unknown
}

const spanText = (span: Span): string => {
  switch (span._tag) {
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
    default:
      return span.value
  }
}

/** A HelpDoc as its paragraphs of plain text. */
export const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
    case "Paragraph":
      return [spanText(doc.value)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "DescriptionList":
      return doc.definitions.flatMap((
        [term, definition]
      ) => [spanText(term), ...paragraphs(definition).map((text) => `  ${text}`)])
    case "Enumeration":
      return doc.elements.flatMap((element) => paragraphs(element).map((text) => `- ${text}`))
  }
}

const placeholder = (primitive: Primitive, pseudoName: Option.Option<string>): string | undefined => {
  if (Option.isSome(pseudoName)) return `<${pseudoName.value}>`
  switch (primitive._tag) {
    case "Bool":
      return undefined
    case "Choice": {
      const choices = (primitive.alternatives ?? []).map(([name]) => name).join("|")
      return choices.length <= 32 ? `<${choices}>` : "<choice>"
    }
    case "Integer":
      return "<n>"
    case "Float":
      return "<number>"
    case "Path":
      return "<path>"
    default:
      return "<text>"
  }
}

const shown = (value: unknown): string | undefined =>
  typeof value === "string" || typeof value === "number" ? String(value) : undefined

interface Context {
  readonly optional: boolean
  readonly defaultValue: string | undefined
  readonly repeatable: boolean
}

const flagsOf = (node: Node, context: Context): Array<FlagHelp> => {
  switch (node._tag) {
    case "Single": {
      const primitive = node["primitiveType"] as Primitive
      const value = placeholder(primitive, node["pseudoName"] as Option.Option<string>)
      const aliases = (node["aliases"] as ReadonlyArray<string>).map((
        alias
      ) => (alias.length === 1 ? `-${alias}` : `--${alias}`))
      let description = paragraphs(node["description"] as HelpDoc.HelpDoc).join(" ")
      const choices = (primitive.alternatives ?? []).map(([name]) => name)
      if (value === "<choice>" && !choices.every((choice) => description.includes(choice))) {
        description += `; one of ${choices.join(", ")}`
      }
      return [{
        names: [node["fullName"] as string, ...aliases],
        value,
        description,
        required: !context.optional && value !== undefined,
        defaultValue: context.defaultValue,
        repeatable: context.repeatable
      }]
    }
    case "Map":
    case "WithFallback":
      return flagsOf(node["options"] as Node, node._tag === "Map" ? context : { ...context, optional: true })
    case "Both":
    case "OrElse":
      return [...flagsOf(node["left"] as Node, context), ...flagsOf(node["right"] as Node, context)]
    case "Variadic":
    case "KeyValueMap": {
      const min = node["min"] as Option.Option<number> | undefined
      const optional = min === undefined || Option.isNone(min) || min.value === 0
      return flagsOf(node["argumentOption"] as Node, {
        ...context,
        optional: context.optional || optional,
        repeatable: true
      })
    }
    case "WithDefault": {
      const fallback = node["fallback"]
      const defaultValue = Option.isOption(fallback) ? undefined : shown(fallback)
      return flagsOf(node["options"] as Node, { ...context, optional: true, defaultValue })
    }
    default:
      return []
  }
}

const argsOf = (node: Node, context: Context): Array<ArgHelp> => {
  switch (node._tag) {
    case "Single": {
      const name = Option.getOrElse(node["pseudoName"] as Option.Option<string>, () => node["name"] as string)
      return [{
        name,
        description: paragraphs(node["description"] as HelpDoc.HelpDoc).join(" "),
        required: !context.optional,
        repeatable: context.repeatable
      }]
    }
    case "Map":
      return argsOf(node["args"] as Node, context)
    case "Both":
      return [...argsOf(node["left"] as Node, context), ...argsOf(node["right"] as Node, context)]
    case "Variadic": {
      const min = node["min"] as Option.Option<number>
      return argsOf(node["args"] as Node, {
        ...context,
        optional: context.optional || Option.isNone(min) || min.value === 0,
        repeatable: true
      })
    }
    case "WithDefault":
    case "WithFallbackConfig":
      return argsOf(node["args"] as Node, { ...context, optional: true })
    default:
      return []
  }
}

const REQUIRED: Context = { optional: false, defaultValue: undefined, repeatable: false }

/** The help of a command and its subcommands, read from its descriptor (`Command.descriptor`). */
export const commandHelp = (descriptor: unknown): CommandHelp => {
  const node = descriptor as Node
  switch (node._tag) {
    case "Map":
      return commandHelp(node["command"])
    case "Subcommands": {
      const parent = commandHelp(node["parent"])
      return { ...parent, subcommands: (node["children"] as ReadonlyArray<unknown>).map(commandHelp) }
    }
    default: {
      const text = paragraphs(node["description"] as HelpDoc.HelpDoc)
      const marker = text.findIndex((paragraph) => paragraph.trim() === "Examples:")
      return {
        name: node["name"] as string,
        description: marker === -1 ? text : text.slice(0, marker),
        examples: marker === -1 ? [] : text.slice(marker + 1).map((example) => example.trim()),
        flags: node._tag === "Standard" ? flagsOf(node["options"] as Node, REQUIRED) : [],
        args: node._tag === "Standard" ? argsOf(node["args"] as Node, REQUIRED) : [],
        subcommands: []
      }
    }
  }
}
