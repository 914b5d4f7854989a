import { Console, Effect, Either, Layer, Option } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import {
  type CuratedParameter,
  type CuratedToolDefinition,
  type CuratedToolsFile,
  ParameterType
} from "../../domain/CuratedTool.ts"
import { parseCuratedToolsFile } from "../../domain/CuratedToolsFile.ts"
import { uiMessage } from "../../http/ui/UiErrors.ts"
import { readFileIfExists, writeJsonAtomic } from "../../services/AtomicFile.ts"
import { Connections } from "../../services/Connections.ts"
import { Drivers } from "../../services/Drivers.ts"
import { savedTier, trialRun } from "../../services/tools/CuratedTrial.ts"
import { curatedToolsPath } from "../../services/tools/CuratedToolSet.ts"
import { BUILT_IN_TOOL_NAMES, LEAN_PRESET } from "../../services/tools/Toolsets.ts"
import { connectionChoices, filesOf, findConnection, readConnections } from "../SupportFiles.ts"
import { failCommand } from "./Failure.ts"

const RESERVED = [...BUILT_IN_TOOL_NAMES, LEAN_PRESET]

class CommandProblem {
  constructor(readonly message: string) {}
}
const problem = (message: string) => Effect.fail(new CommandProblem(message))
const reported = <A, E, R>(effect: Effect.Effect<A, E | CommandProblem, R>) =>
  Effect.catchIf(
    effect,
    (error): error is CommandProblem => error instanceof CommandProblem,
    (error) => failCommand(error.message)
  )

const homeOf = (home: Option.Option<string>) => filesOf(Option.getOrUndefined(home)).directory

/** tools.json as it stands; a file that fails the check is refused with its line (it must be fixed before an edit). */
const readTools = (directory: string) =>
  Effect.gen(function*() {
    const file = curatedToolsPath(directory)
    const text = yield* Effect.orElseSucceed(readFileIfExists(file), () => undefined)
    if (text === undefined) return { file, tools: [] as ReadonlyArray<CuratedToolDefinition> }
    const parsed = parseCuratedToolsFile(text, RESERVED)
    if (Either.isLeft(parsed)) return yield* problem(`${file}, ${parsed.left}`)
    return { file, tools: parsed.right.tools }
  })

const connectionsOf = (directory: string) =>
  Effect.map(Effect.orElseSucceed(readConnections(filesOf(directory).connections), () => undefined), (all) => all ?? [])

/** `name:type[=default]`; an enum lists its values: `region:enum(north|south)=north`. */
export const parseParam = (text: string): Either.Either<CuratedParameter, string> => {
  const match = /^([A-Za-z_][A-Za-z0-9_]*):([a-z]+)(?:\(([^)]*)\))?(?:=(.*))?$/s.exec(text.trim())
  if (match === null) {
    return Either.left(`--param ${JSON.stringify(text)}: write name:type or name:type=default (enum: name:enum(a|b))`)
  }
  const [, name, type, values, fallback] = match
  if (!(ParameterType.literals as ReadonlyArray<string>).includes(type!)) {
    return Either.left(`--param ${name}: the type is one of ${ParameterType.literals.join(", ")}`)
  }
  const kind = type as ParameterType
  if (kind === "enum" && values === undefined) {
    return Either.left(`--param ${name}: an enum lists its values, as ${name}:enum(a|b)`)
  }
  const parameter: CuratedParameter = {
    name: name!,
    type: kind,
    ...(values === undefined ? {} : { values: values.split("|") })
  }
  if (fallback === undefined) return Either.right(parameter)
  const typed = typedValue(parameter, fallback)
  return Either.right({ ...parameter, default: typed })
}

/** A command-line value in the parameter's JSON type (the tool's own check then runs on it). */
const typedValue = (parameter: CuratedParameter, text: string): string | number | boolean => {
  if (parameter.type === "integer" || parameter.type === "number") {
    return text.trim() === "" || Number.isNaN(Number(text)) ? text : Number(text)
  }
  if (parameter.type === "boolean") return text === "true" ? true : text === "false" ? false : text
  return text
}

/** What the statement policy makes of the statement with its parameters bound (at save time; again at each call). */
const classify = (definition: CuratedToolDefinition, connection: Connection) =>
  Effect.gen(function*() {
    if (connection.type === "search") {
      return yield* problem(`${connection.name} is a search connection; a curated tool runs a SQL statement`)
    }
    const tier = savedTier(definition, connection)
    if (Either.isLeft(tier)) return yield* problem(`--sql: ${tier.left}`)
    return { tier: tier.right }
  })

const tierText = (tier: string) => (tier === "safe" ? "reads" : "changes data: each call asks for approval")

export const add = (options: {
  readonly home: Option.Option<string>
  readonly name: string
  readonly connection: string
  readonly sql: string
  readonly description: string
  readonly param: ReadonlyArray<string>
  readonly approvedInAdvance: boolean
  readonly replace: boolean
}) =>
  reported(Effect.gen(function*() {
    const directory = homeOf(options.home)
    const { file, tools } = yield* readTools(directory)
    const all = yield* connectionsOf(directory)
    const connection = findConnection(all, options.connection.trim())
    if (connection === undefined) {
      return yield* problem(
        `--connection: no connection has the id or name ${JSON.stringify(options.connection)}; ${
          connectionChoices(all)
        }`
      )
    }
    const parameters: Array<CuratedParameter> = []
    for (const text of options.param) {
      const parsed = parseParam(text)
      if (Either.isLeft(parsed)) return yield* problem(parsed.left)
      parameters.push(parsed.right)
    }
    const definition: CuratedToolDefinition = {
      name: options.name.trim(),
      description: options.description.trim(),
      connection: connection.id,
      sql: options.sql,
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(options.approvedInAdvance ? { approvedInAdvance: true } : {})
    }
    const exists = tools.some((tool) => tool.name === definition.name)
    if (exists && !options.replace) {
      return yield* problem(`a curated tool is already named ${definition.name}; pass --replace to change it`)
    }
    const next: CuratedToolsFile = {
      version: 1,
      tools: exists ? tools.map((tool) => (tool.name === definition.name ? definition : tool)) : [...tools, definition]
    }
    const checked = parseCuratedToolsFile(JSON.stringify(next, null, 2), RESERVED)
    if (Either.isLeft(checked)) return yield* problem(checked.left.replace(/^line \d+: /, ""))
    const { tier } = yield* classify(definition, connection)
    yield* writeJsonAtomic(file, next, 0o600)
    yield* Console.log(
      `${exists ? "Changed" : "Added"} the tool ${definition.name} on ${connection.name}: it ${tierText(tier)}${
        options.approvedInAdvance && tier !== "safe"
          ? " (approved in advance: it runs without asking, and each run is recorded in the activity log)"
          : ""
      }.`
    )
    yield* Console.log(
      "A running server offers it within a second; clients see it when they next list the tools (within 5 minutes)."
    )
  }))

export const list = (options: { readonly home: Option.Option<string>; readonly json: boolean }) =>
  reported(Effect.gen(function*() {
    const { tools } = yield* readTools(homeOf(options.home))
    if (options.json) return yield* Console.log(JSON.stringify(tools, null, 2))
    if (tools.length === 0) {
      return yield* Console.log(
        "No curated tools. Add one with: dbdesk tools add --name NAME --connection ID-OR-NAME --sql TEXT --description TEXT"
      )
    }
    for (const tool of tools) {
      const params = (tool.parameters ?? []).map((parameter) =>
        `${parameter.name}:${parameter.type}${parameter.default === undefined ? "" : `=${String(parameter.default)}`}`
      )
      yield* Console.log(
        [
          tool.name,
          `connection ${tool.connection}`,
          `(${params.join(", ")})`,
          tool.disabled === true ? "disabled" : "",
          tool.approvedInAdvance === true ? "approved in advance" : "",
          JSON.stringify(tool.description)
        ].filter((part) => part !== "").join("  ")
      )
    }
  }))

export const remove = (options: { readonly home: Option.Option<string>; readonly name: string }) =>
  reported(Effect.gen(function*() {
    const { file, tools } = yield* readTools(homeOf(options.home))
    if (!tools.some((tool) => tool.name === options.name)) {
      return yield* problem(`no curated tool is named ${options.name}; dbdesk tools list shows them`)
    }
    yield* writeJsonAtomic(file, { version: 1, tools: tools.filter((tool) => tool.name !== options.name) }, 0o600)
    yield* Console.log(`Removed the tool ${options.name}.`)
  }))

/** `dbdesk tools test NAME --arg name=value …`: a tool that reads is run with the arguments, on a read-only handle. */
export const test = (
  options: { readonly home: Option.Option<string>; readonly name: string; readonly arg: ReadonlyArray<string> }
) =>
  reported(Effect.gen(function*() {
    const directory = homeOf(options.home)
    const { tools } = yield* readTools(directory)
    const definition = tools.find((tool) => tool.name === options.name)
    if (definition === undefined) {
      return yield* problem(`no curated tool is named ${options.name}; dbdesk tools list shows them`)
    }
    const all = yield* connectionsOf(directory)
    const connection = findConnection(all, definition.connection)
    if (connection === undefined) {
      return yield* problem(
        `the connection ${JSON.stringify(definition.connection)} of ${definition.name} does not exist; ${
          connectionChoices(all)
        }`
      )
    }
    const raw: Record<string, unknown> = {}
    for (const text of options.arg) {
      const at = text.indexOf("=")
      const name = at < 0 ? text : text.slice(0, at)
      const parameter = definition.parameters?.find((own) => own.name === name)
      if (at < 0 || parameter === undefined) {
        return yield* problem(
          `--arg ${JSON.stringify(text)}: write name=value for one of ${
            (definition.parameters ?? []).map((own) => own.name).join(", ") || "(no parameters)"
          }`
        )
      }
      raw[name] = typedValue(parameter, text.slice(at + 1))
    }
    const services = Drivers.Default.pipe(
      Layer.provide(Layer.effect(Connections, Connections.make(all, () => Effect.void)))
    )
    const trial = yield* trialRun(definition, connection, raw).pipe(
      Effect.mapError((error) =>
        new CommandProblem(typeof error === "string" ? error : `${definition.name} failed: ${uiMessage(error)}`)
      ),
      Effect.provide(services),
      Effect.scoped
    )
    if (trial.kind === "changes_data") {
      return yield* Console.log(
        `${definition.name} changes data, so tools test does not run it; its statement and arguments are valid.`
      )
    }
    const result = trial.result
    yield* Console.log(
      JSON.stringify({ columns: result.columns, rows: result.rows, row_count: result.row_count }, null, 2)
    )
  }))
