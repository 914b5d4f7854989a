// `dbdesk serve` as its own process, for the oracles that need the real process (does it stay up?).
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"

export interface ServeProcess {
  readonly url: string
  readonly child: ChildProcess
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string | null>
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const ROOT = join(import.meta.dirname, "../..")

/** Starts `serve --port 0` on `home` (through `launcher`, a script in place of bin/dbdesk.mjs, when given). */
export const startServe = async (
  home: string,
  options: { readonly env?: Record<string, string>; readonly launcher?: string } = {}
): Promise<ServeProcess> => {
  const script = options.launcher ?? join(ROOT, "bin/dbdesk.mjs")
  const child = spawn(process.execPath, [script, "serve", "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, ...options.env, DBDESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  const exited = new Promise<number | string | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal))
  )
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dbdesk serve did not start within 60 s:\n${output}`)), 60_000)
    const check = () => {
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1]
      if (found === undefined) return
      clearTimeout(timer)
      resolve(found)
    }
    child.stdout.on("data", check)
    child.stderr.on("data", check)
    void exited.then((code) => reject(new Error(`dbdesk serve exited (${code}) before it listened:\n${output}`)))
  })
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGKILL")
    await exited
  }
  return { url, child, exited, output: () => output, stop }
}
