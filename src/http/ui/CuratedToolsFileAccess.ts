import { Effect, Either } from "effect"
import type { CuratedToolDefinition } from "../../domain/CuratedTool.ts"
import { parseCuratedToolsFile } from "../../domain/CuratedToolsFile.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import { uiMessage } from "./UiErrors.ts"
import { readFileIfExists, writeJsonAtomic } from "../../services/AtomicFile.ts"
import { Connections } from "../../services/Connections.ts"
import { Drivers } from "../../services/Drivers.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { findConnection } from "../../services/tools/CuratedTools.ts"
import { savedTier, trialRun } from "../../services/tools/CuratedTrial.ts"
import { curatedToolsPath } from "../../services/tools/CuratedToolSet.ts"
import { BUILT_IN_TOOL_NAMES, LEAN_PRESET } from "../../services/tools/Toolsets.ts"

const RESERVED = [...BUILT_IN_TOOL_NAMES, LEAN_PRESET]

/**
 * The MCP panel's view of tools.json (D-90): the tools as the file holds them, and why the file is not in force when
 * it is not; disabling or enabling one rewrites the file, which the server re-reads within a second.
 */
export const CuratedToolsFileAccess = Effect.map(
  Effect.all([SupportPaths, Connections, Drivers]),
  ([paths, connections, drivers]) => {
    const file = curatedToolsPath(paths.directory)
    const read = Effect.map(
      Effect.orElseSucceed(readFileIfExists(file), () => undefined),
      (text) =>
        text === undefined ? Either.right({ version: 1 as const, tools: [] }) : parseCuratedToolsFile(text, RESERVED)
    )

    const list = Effect.map(read, (parsed) =>
      Either.isLeft(parsed)
        ? { tools: [], problem: `tools.json is not in force: ${parsed.left}` }
        : { tools: parsed.right.tools, problem: null })

    const setDisabled = (name: string, disabled: boolean) =>
      Effect.gen(function*() {
        const parsed = yield* read
        if (Either.isLeft(parsed)) {
          return yield* new UiError({ message: `Fix tools.json first: ${parsed.left}` })
        }
        if (
          !parsed.right.tools.some((tool) => tool.name === name)
        ) {
          return yield* new UiError({ message: `No curated tool is named ${name}.` })
        }
        const tools = parsed.right.tools.map((tool) => {
          if (tool.name !== name) {
            return tool
          }
          const { disabled: _was, ...rest } = tool
          return disabled ? { ...rest, disabled: true } : rest
        })
        yield* Effect.mapError(
          writeJsonAtomic(file, { version: 1, tools }, 0o600),
          (error) => new UiError({ message: `tools.json could not be written: ${String(error.cause)}` })
        )
      })

    /**
     * The console's Save dialog and the panel's Edit: the tool checked as `dbdesk tools add` checks it (the file's rules:
     * name, built-ins, placeholders against parameters, types and defaults; then the statement classified with its
     * parameters bound), written in place of `replacing` (kept at its position) or added at the end.
     */
    const save = (tool: CuratedToolDefinition, replacing: string | null) =>
      Effect.gen(function*() {
        const parsed = yield* read
        if (Either.isLeft(parsed)) return yield* new UiError({ message: `Fix tools.json first: ${parsed.left}` })
        const tools = parsed.right.tools
        if (replacing !== null && !tools.some((other) => other.name === replacing)) {
          return yield* new UiError({ message: `No curated tool is named ${replacing}.` })
        }
        if (tool.name !== replacing && tools.some((other) => other.name === tool.name)) {
          return yield* new UiError({ message: `A curated tool is already named ${tool.name}.` })
        }
        const connection = findConnection(yield* connections.list, tool.connection)
        if (connection === undefined) {
          return yield* new UiError({ message: `The connection ${tool.connection} does not exist.` })
        }
        const next = replacing === null
          ? [...tools, tool]
          : tools.map((other) => (other.name === replacing ? tool : other))
        const checked = parseCuratedToolsFile(JSON.stringify({ version: 1, tools: next }, null, 2), RESERVED)
        if (Either.isLeft(checked)) {
          return yield* new UiError({
            message: checked.left.replace(/^line \d+: tool [^:]*: /, "").replace(/^line \d+: /, "")
          })
        }
        const tier = savedTier(tool, connection)
        if (Either.isLeft(tier)) return yield* new UiError({ message: `${tool.name} cannot be saved: ${tier.left}` })
        yield* Effect.mapError(
          writeJsonAtomic(file, { version: 1, tools: next }, 0o600),
          (error) => new UiError({ message: `tools.json could not be written: ${String(error.cause)}` })
        )
        const runs = tier.right === "safe"
          ? "it reads, so it runs without asking where the connection allows reads"
          : tool.approvedInAdvance === true
          ? "it changes data and is approved in advance: it runs without asking, and each run is recorded in the activity log"
          : "it changes data, so each call asks for approval with a dry run"
        return {
          message:
            `Saved the tool ${tool.name} on ${connection.name}: ${runs}. AI clients see it when they next list the tools.`
        }
      })

    /** The panel's Test: a reading tool run once with sample arguments (the user's own view), a writing one not run. */
    const test = (name: string, raw: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const parsed = yield* read
        if (Either.isLeft(parsed)) return yield* new UiError({ message: `Fix tools.json first: ${parsed.left}` })
        const definition = parsed.right.tools.find((tool) => tool.name === name)
        if (definition === undefined) return yield* new UiError({ message: `No curated tool is named ${name}.` })
        const connection = findConnection(yield* connections.list, definition.connection)
        if (connection === undefined) {
          return yield* new UiError({ message: `The connection ${definition.connection} of ${name} does not exist.` })
        }
        const trial = yield* trialRun(definition, connection, raw).pipe(
          Effect.provideService(Drivers, drivers),
          Effect.mapError((error) =>
            new UiError({ message: typeof error === "string" ? error : `${name} failed: ${uiMessage(error)}` })
          )
        )
        return trial.kind === "changes_data"
          ? {
            columns: [],
            rows: [],
            note: `${name} changes data, so Test does not run it; its statement and arguments are valid.`
          }
          : { columns: [...trial.result.columns], rows: trial.result.rows.map((row) => [...row]), note: null }
      })

    return { list, setDisabled, save, test } as const
  }
)
