import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { join } from "node:path"
import { runCli } from "../../src/cli/Cli.ts"

export const bin = join(import.meta.dirname, "../../bin/dbdesk.mjs")

export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `dbdesk <args>` in this process (the same `runCli` as bin/dbdesk.mjs) and captures what it
 * prints and the exit code it sets. Spawning is kept for what only a process shows (exit status,
 * stdin, the absence of a logged failure), since each spawn compiles the sources again.
 */
export const runInProcess = async (...args: ReadonlyArray<string>): Promise<CliRun> => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const original = {
    log: console.log,
    error: console.error,
    info: console.info,
    warn: console.warn,
    write: process.stdout.write
  }
  console.log = (...parts: Array<unknown>) => void stdout.push(`${parts.join(" ")}\n`)
  console.info = console.log
  console.error = (...parts: Array<unknown>) => void stderr.push(`${parts.join(" ")}\n`)
  console.warn = console.error
  process.stdout.write = (chunk: string | Uint8Array) => {
    stdout.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
    return true
  }
  process.exitCode = undefined
  try {
    await Effect.runPromise(runCli(["node", "dbdesk", ...args]).pipe(Effect.provide(NodeContext.layer)))
    return { code: Number(process.exitCode ?? 0), stdout: stdout.join(""), stderr: stderr.join("") }
  } finally {
    Object.assign(console, { log: original.log, error: original.error, info: original.info, warn: original.warn })
    process.stdout.write = original.write
    process.exitCode = undefined
  }
}

/** Runs bin/dbdesk.mjs as a process. */
export const runProcess = (
  args: ReadonlyArray<string>,
  options: { readonly env?: NodeJS.ProcessEnv; readonly input?: string } = {}
): CliRun => {
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    env: options.env ?? process.env,
    input: options.input ?? "",
    timeout: 120_000
  })
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr }
}

/** Starts a program and collects its stdout lines (for a bridge command read from a client's config). */
export const startProcess = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const child = spawn(command, args, { env, cwd: "/", stdio: ["pipe", "pipe", "pipe"] })
  let buffer = ""
  const lines: Array<string> = []
  const waiters: Array<() => void> = []
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8")
    let newline = buffer.indexOf("\n")
    while (newline !== -1) {
      lines.push(buffer.slice(0, newline))
      buffer = buffer.slice(newline + 1)
      newline = buffer.indexOf("\n")
    }
    for (const wake of waiters.splice(0)) wake()
  })
  const nextLine = async (timeoutMs = 60_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs
    while (lines.length === 0) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no line from ${command} (exit ${child.exitCode})`)
      }
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 1_000)
      })
    }
    return lines.shift()!
  }
  return { child, nextLine, send: (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`) }
}
