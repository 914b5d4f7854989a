import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { AI_CLIENTS, type BridgeLaunch, claudeCodeCommand, configSnippet } from "../../domain/AiClients.ts"
import type { UiBridgeTest, UiClientSetup } from "../../domain/UiWorkSchemas.ts"
import { bridgeLaunch, clientPlatform, userDirectories } from "../../services/BridgeLaunch.ts"
import { resolveSupportDirectory } from "../../services/SupportDirectory.ts"

/** How long the Test button waits for the bridge's answer (a cold Node start plus one loopback call). */
const TEST_MS = 15_000

/** The bridge launch for this server: DBDESK_HOME only when its support directory is not the one a GUI app would find. */
export const launchFor = (supportDirectory: string): BridgeLaunch => {
  const usual = resolveSupportDirectory({ ...process.env, DBDESK_HOME: undefined })
  return bridgeLaunch(path.resolve(supportDirectory) === path.resolve(usual) ? undefined : supportDirectory)
}

/** The "Connect a client" tab (D-78): the entries `dbdesk clients install --print` would print, for every client. */
export const clientSetup = (supportDirectory: string, endpoint: string): UiClientSetup => {
  const platform = clientPlatform()
  const launch = launchFor(supportDirectory)
  return {
    platform,
    launch: { command: launch.command, args: [...launch.args], env: { ...launch.env } },
    endpoint,
    clients: AI_CLIENTS.map((client) => ({
      id: client.id,
      name: client.name,
      configPath: client.configPath(platform, userDirectories()),
      note: client.locationNote?.[platform] ?? null,
      snippet: configSnippet(client, launch),
      command: client.id === "claude-code" ? claudeCodeCommand(platform, launch) : null
    }))
  }
}

const DISCOVER = {
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
  }
}

/**
 * The Test button: starts the bridge exactly as the snippets do (same program, arguments and environment), sends
 * `server/discover` on its stdin and reads the first line it answers. The server runs it because a browser cannot
 * start programs, and because only the real command proves the paths in the snippet work on this machine.
 */
export const testBridge = (supportDirectory: string): Effect.Effect<UiBridgeTest> =>
  Effect.async<UiBridgeTest>((resume) => {
    const launch = launchFor(supportDirectory)
    const started = Date.now()
    const child = spawn(launch.command, [...launch.args], {
      env: { ...process.env, ...launch.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let settled = false
    const finish = (result: Omit<UiBridgeTest, "timeMs">) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill("SIGTERM")
      resume(Effect.succeed({ ...result, timeMs: Date.now() - started }))
    }
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          message: `The bridge did not answer within ${TEST_MS / 1000} s.${
            stderr === "" ? "" : ` It said: ${stderr.trim().slice(0, 500)}`
          }`,
          answer: null
        }),
      TEST_MS
    )
    child.on(
      "error",
      (error) => finish({ ok: false, message: `The bridge could not start: ${error.message}`, answer: null })
    )
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2000)))
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const end = stdout.indexOf("\n")
      if (end < 0) return
      const line = stdout.slice(0, end)
      try {
        const answer = JSON.parse(line) as {
          result?: { supportedVersions?: ReadonlyArray<string> }
          error?: { message?: string }
        }
        const versions = answer.result?.supportedVersions
        finish(
          versions !== undefined
            ? {
              ok: true,
              message: `The bridge answered server/discover: dbdesk supports ${versions.join(", ")}.`,
              answer: JSON.stringify(answer, null, 2)
            }
            : { ok: false, message: `The bridge refused: ${answer.error?.message ?? line}`, answer: line }
        )
      } catch {
        finish({
          ok: false,
          message: `The bridge wrote something that is not JSON: ${line.slice(0, 300)}`,
          answer: null
        })
      }
    })
    child.on(
      "close",
      (code) =>
        finish({
          ok: false,
          message: `The bridge exited (code ${code}) before answering.${
            stderr === "" ? "" : ` It said: ${stderr.trim().slice(0, 500)}`
          }`,
          answer: null
        })
    )
    child.stdin.write(`${JSON.stringify(DISCOVER)}\n`)
    return Effect.sync(() => finish({ ok: false, message: "Stopped.", answer: null }))
  })
