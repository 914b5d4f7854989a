import { readFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { BridgeLaunch, ClientPlatform, UserDirectories } from "../domain/AiClients.ts"
import { packageRoot } from "./PackageInfo.ts"

export const clientPlatform = (platform: NodeJS.Platform = process.platform): ClientPlatform =>
  platform === "darwin" || platform === "win32" ? platform : "linux"

export const userDirectories = (env: NodeJS.ProcessEnv = process.env): UserDirectories => ({
  home: os.homedir(),
  appData: env["APPDATA"],
  xdgConfigHome: env["XDG_CONFIG_HOME"] === "" ? undefined : env["XDG_CONFIG_HOME"]
})

/** The bridge script named by package.json's `bin` (so a change of the bins is followed here). */
const bridgeScript = (): string => {
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as {
    bin?: Record<string, string>
  }
  return path.join(packageRoot(), manifest.bin?.["dbdesk-mcp"] ?? "bin/dbdesk-mcp.mjs")
}

/**
 * How an AI client starts dbdesk's stdio bridge on this machine: absolute paths to this Node and the installed
 * bridge script, which work without the client's PATH (desktop apps on macOS do not inherit the shell's) and name
 * what is installed here, wherever npm put it (a project, npm's default global prefix, another one). Never npx:
 * dbdesk is in no package registry, so npx could not fetch it. A support directory other than the default travels
 * as DBDESK_HOME.
 */
export const bridgeLaunch = (supportDirectory: string | undefined): BridgeLaunch => {
  const env = supportDirectory === undefined ? undefined : { DBDESK_HOME: path.resolve(supportDirectory) }
  return { command: process.execPath, args: [bridgeScript()], env }
}

/** The support directory to name in the entry: `--home`, else DBDESK_HOME when set (a GUI client would not see it). */
export const explicitSupportDirectory = (
  home: string | undefined,
  env: NodeJS.ProcessEnv = process.env
): string | undefined =>
  home ?? (env["DBDESK_HOME"] !== undefined && env["DBDESK_HOME"] !== "" ? env["DBDESK_HOME"] : undefined)
