import { Data, Effect } from "effect"
import { spawn } from "node:child_process"
import type { BridgeLaunch } from "../../domain/AiClients.ts"
import { isJsonObject } from "../../domain/Json.ts"

/** How long the entry gets to start and answer (the bridge itself waits up to 10 s for the server). */
const CHECK_TIMEOUT_MS = 20_000

const DISCOVER = {
  jsonrpc: "2.0",
  id: "dbdesk-clients-install-check",
  method: "server/discover",
  params: {
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
  }
}

/** The entry did not start, or started and answered nothing a client could read. */
export class EntryDoesNotStart extends Data.TaggedError("EntryDoesNotStart")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

/** What the started entry answered: the server's identity, or the bridge's own error (for instance no server running). */
export type EntryAnswer =
  | { readonly kind: "server"; readonly name: string; readonly version: string }
  | { readonly kind: "bridge-error"; readonly message: string }

const answerOf = (line: string): EntryAnswer | undefined => {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!isJsonObject(message)) return undefined
  const result = message["result"]
  const error = message["error"]
  if (isJsonObject(result) && Array.isArray(result["supportedVersions"])) {
    const meta = isJsonObject(result["_meta"]) ? result["_meta"] : {}
    const info = isJsonObject(meta["io.modelcontextprotocol/serverInfo"])
      ? meta["io.modelcontextprotocol/serverInfo"]
      : {}
    return {
      kind: "server",
      name: String(info["name"] ?? "an MCP server"),
      version: String(info["version"] ?? "unknown")
    }
  }
  if (isJsonObject(error) && typeof error["message"] === "string") {
    return { kind: "bridge-error", message: error["message"] }
  }
  return undefined
}

/**
 * Starts the entry once as an AI client would (its command, its args, its env over this environment), sends
 * `server/discover` on its stdin and reads its first stdout line; the process is then ended. An answer proves the
 * entry starts; a spawn failure, an exit, a line that is not JSON-RPC or silence for 20 s proves it does not.
 */
export const checkEntryStarts = (launch: BridgeLaunch) =>
  Effect.async<EntryAnswer, EntryDoesNotStart>((resume) => {
    const child = spawn(launch.command, [...launch.args], {
      env: { ...process.env, ...launch.env },
      cwd: "/",
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true
    })
    let stdout = ""
    let stderr = ""
    let done = false
    const finish = (outcome: Effect.Effect<EntryAnswer, EntryDoesNotStart>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      child.stdin.end()
      child.kill("SIGTERM")
      resume(outcome)
    }
    const refuse = (why: string) => {
      const said = stderr.trim().split("\n").filter((line) => line !== "").at(-1)
      finish(Effect.fail(new EntryDoesNotStart({ reason: `${why}${said === undefined ? "" : `; it said: ${said}`}` })))
    }
    const timer = setTimeout(() => refuse(`it answered nothing within ${CHECK_TIMEOUT_MS / 1000} s`), CHECK_TIMEOUT_MS)
    child.on("error", (error) => refuse(`it could not be started (${error.message})`))
    child.stdin.on("error", () => undefined)
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const newline = stdout.indexOf("\n")
      if (newline === -1) return
      const answer = answerOf(stdout.slice(0, newline))
      if (answer === undefined) {
        refuse(`its first line is not a JSON-RPC answer: ${stdout.slice(0, Math.min(newline, 200))}`)
      } else finish(Effect.succeed(answer))
    })
    child.on("close", (code, signal) => refuse(`it exited (${signal ?? `code ${code}`}) before answering`))
    child.stdin.write(`${JSON.stringify(DISCOVER)}\n`)
    return Effect.sync(() => finish(Effect.fail(new EntryDoesNotStart({ reason: "the check was interrupted" }))))
  })
