import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { FileStoreError } from "./AtomicFile.ts"

/** product-decisions §1 "Support directory": DBDESK_HOME, else the platform's per-user location. */
export const resolveSupportDirectory = (env: NodeJS.ProcessEnv = process.env, platform = process.platform): string => {
  const explicit = env["DBDESK_HOME"]
  if (explicit !== undefined && explicit !== "") return path.resolve(explicit)
  const home = env["HOME"] ?? os.homedir()
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "dbdesk")
  if (platform === "win32") return path.join(env["APPDATA"] ?? path.join(home, "AppData", "Roaming"), "dbdesk")
  const state = env["XDG_STATE_HOME"]
  return path.join(state !== undefined && state !== "" ? state : path.join(home, ".local", "state"), "dbdesk")
}

export interface SupportFiles {
  readonly directory: string
  readonly handshake: string
  readonly settings: string
  readonly connections: string
  readonly tokens: string
  readonly activity: string
  readonly history: string
  readonly sampleDatabase: string
}

export const supportFiles = (directory: string): SupportFiles => ({
  directory,
  handshake: path.join(directory, "mcp-handshake.json"),
  settings: path.join(directory, "settings.json"),
  connections: path.join(directory, "connections.json"),
  tokens: path.join(directory, "tokens.json"),
  activity: path.join(directory, "activity.db"),
  history: path.join(directory, "history.db"),
  sampleDatabase: path.join(directory, "sample.db")
})

/** Creates the directory 0700 (and tightens an existing one on POSIX). */
export const ensureSupportDirectory = (directory: string) =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(directory, { recursive: true, mode: 0o700 })
      if (process.platform !== "win32") await fs.chmod(directory, 0o700)
      return supportFiles(directory)
    },
    catch: (cause) => new FileStoreError({ path: directory, operation: "mkdir", cause })
  })
