import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { FileStoreError } from "./AtomicFile.ts"

/**
 * D-6: DBDESK_HOME, else the platform's per-user location. (Its parameters are
 * typed without Node's types, which a consumer of the published declarations may not have.)
 */
export const resolveSupportDirectory = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: string = process.platform
): string => {
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

/** The temporary file of an atomic write (AtomicFile.ts, SampleDatabase.ts). */
const TEMPORARY = /^\.?[^/]+\.[0-9a-f-]{12,36}\.tmp$/
/** Older than this, a temporary file belongs to a write whose process died (a write takes well under a second). */
const ORPHAN_AGE_MS = 60_000

/** Removes what writes killed mid-way (SIGKILL, power loss) left behind; the files they were replacing are intact. */
const removeOrphans = async (directory: string) => {
  const now = Date.now()
  for (const name of await fs.readdir(directory)) {
    if (!TEMPORARY.test(name)) continue
    const file = path.join(directory, name)
    const stat = await fs.stat(file).catch(() => undefined)
    if (stat?.isFile() === true && now - stat.mtimeMs > ORPHAN_AGE_MS) await fs.rm(file, { force: true })
  }
}

/** Creates the directory 0700 (and tightens an existing one on POSIX); clears temporary files of killed writes. */
export const ensureSupportDirectory = (directory: string) =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(directory, { recursive: true, mode: 0o700 })
      if (process.platform !== "win32") await fs.chmod(directory, 0o700)
      await removeOrphans(directory)
      return supportFiles(directory)
    },
    catch: (cause) => new FileStoreError({ path: directory, operation: "mkdir", cause })
  })
