import { Console, Effect, Either, Option } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import {
  AI_CLIENTS,
  type AiClient,
  type AiClientId,
  type ClientPlatform,
  claudeCodeCommand,
  configSnippet,
  findAiClient,
  parseClientConfig,
  serverEntry,
  serverEntryIn,
  withoutServerEntry,
  withServerEntry
} from "../../domain/AiClients.ts"
import { readFileIfExists, writeFileAtomic } from "../../services/AtomicFile.ts"
import { bridgeLaunch, clientPlatform, explicitSupportDirectory, userDirectories } from "../../services/BridgeLaunch.ts"
import { checkEntryStarts, type EntryAnswer } from "./EntryCheck.ts"
import { failCommand as fail } from "./Failure.ts"
import { failingPlainly, printJson } from "./Output.ts"

/** How the locations read for platforms other than this one. */
const GENERIC_DIRS: Record<ClientPlatform, { home: string; appData?: string }> = {
  darwin: { home: "~" },
  linux: { home: "~" },
  win32: { home: "%USERPROFILE%", appData: "%APPDATA%" }
}

const locationOn = (client: AiClient, platform: ClientPlatform) =>
  platform === clientPlatform()
    ? client.configPath(platform, userDirectories())
    : client.configPath(platform, GENERIC_DIRS[platform])

type ConfigState = "configured" | "not configured" | "no config file" | "unreadable"

const stateOf = (client: AiClient, file: string, name: string) =>
  Effect.map(Effect.either(readFileIfExists(file)), (read): ConfigState => {
    if (Either.isLeft(read)) return "unreadable"
    if (read.right === undefined) return "no config file"
    if (Either.isLeft(parseClientConfig(client, read.right))) return "unreadable"
    return serverEntryIn(client, read.right, name) === undefined ? "not configured" : "configured"
  })

/** `dbdesk clients list` (D-78). */
export const list = (options: { readonly json: boolean; readonly name: string }) =>
  Effect.gen(function*() {
    const here = clientPlatform()
    const rows = yield* Effect.forEach(AI_CLIENTS, (client) =>
      Effect.map(stateOf(client, locationOn(client, here), options.name), (state) => ({
        id: client.id,
        name: client.name,
        state,
        configFile: locationOn(client, here),
        locations: {
          darwin: locationOn(client, "darwin"),
          linux: locationOn(client, "linux"),
          win32: locationOn(client, "win32")
        },
        ...(client.locationNote?.[here] === undefined ? {} : { note: client.locationNote[here] })
      })))
    if (options.json) {
      return yield* printJson(rows)
    }
    for (const row of rows) {
      yield* Console.log(
        `${row.name} (${row.id}): ${row.state} — ${row.configFile}${row.note === undefined ? "" : ` (${row.note})`}`
      )
      yield* Console.log(
        `    macOS ${row.locations.darwin}\n    Linux ${row.locations.linux}\n    Windows ${row.locations.win32}`
      )
    }
    yield* Console.log("Connect one with: dbdesk clients install <client>   (or --print to see the entry first)")
  })

/** Copies the file next to itself before dbdesk changes it (the only backup a user needs to undo). */
const backUp = (file: string, now: Date) =>
  Effect.tryPromise({
    try: async () => {
      const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")
      const backup = `${file}.dbdesk-backup-${stamp}`
      await fs.copyFile(file, backup)
      return backup
    },
    catch: (cause) => new Error(`Could not back up ${file} before changing it: ${String(cause)}`)
  })

/** Writes the new text atomically with the file's own mode (0600 for a new file), after a backup of the old. */
const rewrite = (file: string, text: string, existed: boolean) =>
  Effect.gen(function*() {
    const mode = existed ? (yield* Effect.promise(() => fs.stat(file))).mode & 0o777 : 0o600
    const backup = existed ? yield* backUp(file, new Date()) : undefined
    yield* Effect.tryPromise({
      try: () => fs.mkdir(path.dirname(file), { recursive: true }),
      catch: (cause) => new Error(`Could not create ${path.dirname(file)}: ${String(cause)}`)
    })
    yield* writeFileAtomic(file, text, mode)
    return backup
  })

const refusal = (file: string, reason: string, client: AiClient, snippet: string) =>
  `${file} cannot be updated: ${reason}. dbdesk did not change it. Fix the file, or add this to its "${client.serversKey}" by hand:\n${snippet}`

/** What `install` says about the entry it started before writing it. */
const checked = (answer: EntryAnswer) =>
  answer.kind === "server"
    ? `Checked: the entry starts and answered server/discover (${answer.name} ${answer.version}).`
    : `Checked: the entry starts (the bridge answered: ${answer.message}).`

interface Target {
  readonly client: AiClientId
  readonly configFile: Option.Option<string>
  readonly name: string
}

/** `dbdesk clients install` (D-78): a backup first, an atomic write, other servers untouched, byte-identical on a second run. */
export const install = (options: Target & { readonly home: Option.Option<string>; readonly print: boolean }) =>
  failingPlainly(Effect.gen(function*() {
    const client = findAiClient(options.client)!
    const launch = bridgeLaunch(explicitSupportDirectory(Option.getOrUndefined(options.home)))
    const snippet = configSnippet(client, launch, options.name)
    if (options.print) {
      return yield* Console.log(
        client.id === "claude-code" ? claudeCodeCommand(clientPlatform(), launch, options.name) : snippet
      )
    }
    const file = Option.getOrElse(options.configFile, () => client.configPath(clientPlatform(), userDirectories()))
    const before = yield* readFileIfExists(file)
    const edit = withServerEntry(client, before, options.name, serverEntry(client, launch))
    if (Either.isLeft(edit)) return yield* fail(refusal(file, edit.left.reason, client, snippet))
    if (!edit.right.changed) {
      return yield* Console.log(`${client.name} already has this ${options.name} entry; ${file} is unchanged.`)
    }
    // The entry is started once, as the client would start it, before anything is written.
    const answer = yield* Effect.either(checkEntryStarts(launch))
    if (Either.isLeft(answer)) {
      return yield* fail(
        `${file} was not changed: the entry (${launch.command} ${
          launch.args.join(" ")
        }) does not start: ${answer.left.message}.`
      )
    }
    yield* Console.log(checked(answer.right))
    const backup = yield* rewrite(file, edit.right.text, before !== undefined)
    yield* Console.log(
      `Added "${options.name}" to ${client.name}: ${file}${
        backup === undefined ? "" : ` (previous version saved as ${backup})`
      }.`
    )
    if (client.id === "claude-code") {
      yield* Console.log(
        `The same with Claude Code's own command: ${claudeCodeCommand(clientPlatform(), launch, options.name)}`
      )
    }
    yield* Console.log(`Restart ${client.name} to load it; dbdesk serve must be running when the client connects.`)
  }))

/** `dbdesk clients remove` (D-78): takes out only dbdesk's entry. */
export const remove = (options: Target) =>
  failingPlainly(Effect.gen(function*() {
    const client = findAiClient(options.client)!
    const file = Option.getOrElse(options.configFile, () => client.configPath(clientPlatform(), userDirectories()))
    const before = yield* readFileIfExists(file)
    const edit = withoutServerEntry(client, before, options.name)
    if (Either.isLeft(edit)) {
      return yield* fail(`${file} cannot be updated: ${edit.left.reason}. dbdesk did not change it.`)
    }
    if (!edit.right.changed) {
      return yield* Console.log(`${client.name} has no "${options.name}" entry; ${file} is unchanged.`)
    }
    const backup = yield* rewrite(file, edit.right.text, true)
    yield* Console.log(
      `Removed "${options.name}" from ${client.name}: ${file} (previous version saved as ${backup}). Restart ${client.name}.`
    )
  }))
