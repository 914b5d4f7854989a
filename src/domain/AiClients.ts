import { Either } from "effect"
import { isJsonObject, type Json, type JsonObject } from "./Json.ts"

/**
 * The AI clients dbdesk can be connected to through its stdio bridge (D-78): where each keeps
 * its MCP configuration on each platform, the JSON shape of one server entry, and the snippet or
 * command line for a given bridge launch. Pure knowledge shared by `dbdesk clients` and the UI's
 * "Connect a client" tab: the caller passes the platform, the user's directories and the launch.
 */
export const AI_CLIENT_IDS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf"] as const
export type AiClientId = (typeof AI_CLIENT_IDS)[number]

export type ClientPlatform = "darwin" | "linux" | "win32"
export const CLIENT_PLATFORMS: ReadonlyArray<ClientPlatform> = ["darwin", "linux", "win32"]

/** The user's directories a config location is built from. */
export interface UserDirectories {
  /** `HOME` (or `%USERPROFILE%` on Windows). */
  readonly home: string
  /** Windows `%APPDATA%`; default `<home>\AppData\Roaming`. */
  readonly appData?: string | undefined
  /** Linux `$XDG_CONFIG_HOME`; default `<home>/.config`. */
  readonly xdgConfigHome?: string | undefined
}

/** How a client starts the bridge: a program, its arguments and extra environment. */
export interface BridgeLaunch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
}

export interface AiClient {
  readonly id: AiClientId
  readonly name: string
  /** The object of the config file that holds one entry per server. */
  readonly serversKey: "mcpServers" | "servers"
  /** Whether the entry names its transport (`"type": "stdio"`). */
  readonly typedEntry: boolean
  /** Said next to the location where it is not the client's own documented place. */
  readonly locationNote?: Partial<Record<ClientPlatform, string>>
  readonly configPath: (platform: ClientPlatform, dirs: UserDirectories) => string
}

const joinPath = (platform: ClientPlatform, ...parts: ReadonlyArray<string>): string => {
  const separator = platform === "win32" ? "\\" : "/"
  return parts.map((part, index) => (index === 0 ? part.replace(/[\\/]+$/, "") : part.replace(/^[\\/]+|[\\/]+$/g, "")))
    .join(separator)
}

const appData = (dirs: UserDirectories) => dirs.appData ?? joinPath("win32", dirs.home, "AppData", "Roaming")
const xdgConfig = (dirs: UserDirectories) => dirs.xdgConfigHome ?? joinPath("linux", dirs.home, ".config")

/** The per-user application-settings directory of a desktop app on each platform. */
const appSettings = (platform: ClientPlatform, dirs: UserDirectories, ...rest: ReadonlyArray<string>) => {
  if (platform === "darwin") return joinPath(platform, dirs.home, "Library", "Application Support", ...rest)
  if (platform === "win32") return joinPath(platform, appData(dirs), ...rest)
  return joinPath(platform, xdgConfig(dirs), ...rest)
}

const everywhere = (note: string): Record<ClientPlatform, string> => ({ darwin: note, linux: note, win32: note })

export const AI_CLIENTS: ReadonlyArray<AiClient> = [
  {
    id: "claude-desktop",
    name: "Claude Desktop",
    serversKey: "mcpServers",
    typedEntry: false,
    locationNote: { linux: "no official Linux build; community builds read this file" },
    configPath: (platform, dirs) => appSettings(platform, dirs, "Claude", "claude_desktop_config.json")
  },
  {
    id: "claude-code",
    name: "Claude Code",
    serversKey: "mcpServers",
    typedEntry: true,
    locationNote: everywhere("user scope: `claude mcp add --scope user` writes the same entry"),
    configPath: (platform, dirs) => joinPath(platform, dirs.home, ".claude.json")
  },
  {
    id: "cursor",
    name: "Cursor",
    serversKey: "mcpServers",
    typedEntry: false,
    configPath: (platform, dirs) => joinPath(platform, dirs.home, ".cursor", "mcp.json")
  },
  {
    id: "vscode",
    name: "VS Code",
    serversKey: "servers",
    typedEntry: true,
    configPath: (platform, dirs) => appSettings(platform, dirs, "Code", "User", "mcp.json")
  },
  {
    id: "windsurf",
    name: "Windsurf",
    serversKey: "mcpServers",
    typedEntry: false,
    configPath: (platform, dirs) => joinPath(platform, dirs.home, ".codeium", "windsurf", "mcp_config.json")
  }
]

export const DEFAULT_SERVER_NAME = "dbdesk"

export const findAiClient = (id: string): AiClient | undefined => AI_CLIENTS.find((client) => client.id === id)

/** One server entry as the client expects it; `env` only when the launch sets variables. */
export const serverEntry = (client: AiClient, launch: BridgeLaunch): JsonObject => ({
  ...(client.typedEntry ? { type: "stdio" } : {}),
  command: launch.command,
  args: [...launch.args],
  ...(launch.env !== undefined && Object.keys(launch.env).length > 0 ? { env: { ...launch.env } } : {})
})

/** The JSON a user pastes into the client's config file by hand (`clients install --print`). */
export const configSnippet = (client: AiClient, launch: BridgeLaunch, name = DEFAULT_SERVER_NAME): string =>
  JSON.stringify({ [client.serversKey]: { [name]: serverEntry(client, launch) } }, null, 2)

const quotePosix = (
  word: string
) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)
const quoteWindows = (
  word: string
) => (/^[A-Za-z0-9_@%+=:,./\\-]+$/.test(word) ? word : `"${word.replaceAll("\"", "\\\"")}"`)

/** A command line quoted for the platform's shell (POSIX sh, or cmd/PowerShell double quotes). */
export const shellCommand = (platform: ClientPlatform, words: ReadonlyArray<string>): string =>
  words.map(platform === "win32" ? quoteWindows : quotePosix).join(" ")

/** Claude Code's own way to add the same entry: `claude mcp add --scope user dbdesk -- <command> <args…>`. */
export const claudeCodeCommand = (platform: ClientPlatform, launch: BridgeLaunch, name = DEFAULT_SERVER_NAME): string =>
  shellCommand(platform, [
    "claude",
    "mcp",
    "add",
    "--scope",
    "user",
    ...Object.entries(launch.env ?? {}).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    name,
    "--",
    launch.command,
    ...launch.args
  ])

/** Why a config file cannot be merged: dbdesk never rewrites a file it cannot read. */
export interface ConfigUnreadable {
  readonly reason: string
}

/** Reads a config file's text: absent or blank is an empty config; anything but a JSON object is refused. */
export const parseClientConfig = (
  client: AiClient,
  text: string | undefined
): Either.Either<JsonObject, ConfigUnreadable> => {
  if (text === undefined || text.trim() === "") return Either.right({})
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    return Either.left({ reason: `it is not plain JSON (${detail}); comments and trailing commas are not JSON` })
  }
  if (!isJsonObject(parsed)) return Either.left({ reason: "its top level is not a JSON object" })
  const servers = parsed[client.serversKey]
  if (servers !== undefined && !isJsonObject(servers)) {
    return Either.left({ reason: `its "${client.serversKey}" is not a JSON object` })
  }
  return Either.right(parsed)
}

const render = (config: JsonObject) => `${JSON.stringify(config, null, 2)}\n`

const sameJson = (a: Json | undefined, b: Json | undefined) => JSON.stringify(a) === JSON.stringify(b)

/** The result of an edit: the new text, and whether it differs from what was read. */
export interface ConfigEdit {
  readonly text: string
  readonly changed: boolean
}

/**
 * Adds or replaces the entry `name`, leaving every other key and server as it was. When the entry is
 * already exactly this one, the original text comes back unchanged, so a second install is byte-identical.
 */
export const withServerEntry = (
  client: AiClient,
  text: string | undefined,
  name: string,
  entry: JsonObject
): Either.Either<ConfigEdit, ConfigUnreadable> =>
  Either.map(parseClientConfig(client, text), (config) => {
    const servers = (config[client.serversKey] ?? {}) as JsonObject
    if (text !== undefined && sameJson(servers[name], entry)) return { text, changed: false }
    return { text: render({ ...config, [client.serversKey]: { ...servers, [name]: entry } }), changed: true }
  })

/** Removes the entry `name` only; the file is unchanged when it has no such entry. */
export const withoutServerEntry = (
  client: AiClient,
  text: string | undefined,
  name: string
): Either.Either<ConfigEdit, ConfigUnreadable> =>
  Either.map(parseClientConfig(client, text), (config) => {
    const servers = (config[client.serversKey] ?? {}) as JsonObject
    if (!(name in servers)) return { text: text ?? "", changed: false }
    const { [name]: _removed, ...rest } = servers
    return { text: render({ ...config, [client.serversKey]: rest }), changed: true }
  })

/** The entry `name` of a config file, when the file is readable and has one. */
export const serverEntryIn = (client: AiClient, text: string | undefined, name: string): JsonObject | undefined => {
  const config = parseClientConfig(client, text)
  if (Either.isLeft(config)) return undefined
  const entry = ((config.right[client.serversKey] ?? {}) as JsonObject)[name]
  return isJsonObject(entry) ? entry : undefined
}

/** The launch an entry describes (to check that its program and script still exist). */
export const launchOfEntry = (entry: JsonObject): BridgeLaunch | undefined => {
  const command = entry["command"]
  const args = entry["args"] ?? []
  if (typeof command !== "string" || !Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    return undefined
  }
  const env = entry["env"]
  const strings = isJsonObject(env)
    ? Object.entries(env).filter((pair): pair is [string, string] => typeof pair[1] === "string")
    : []
  return {
    command,
    args: args,
    ...(strings.length > 0 ? { env: Object.fromEntries(strings) } : {})
  }
}
