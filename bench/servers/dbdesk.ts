/**
 * (a) dbdesk as users run it: `node bin/dbdesk.mjs serve --port 0` (the built dist/app) in its own process, auth on,
 * with the bench profile of D-63 written to a fresh support directory's `settings.json` before the
 * first start.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** D-63; everything else stays at its default (auth on). */
export const BENCH_SETTINGS = { limits: { requestsPerMinute: 10_000_000, concurrentPerCaller: 64 } } as const

export interface RunningDbdesk {
  readonly url: string
  readonly token: string
  readonly pid: number
  readonly home: string
  readonly connectionId: string
  /** What the run used, printed with the results. */
  readonly profile: {
    readonly settings: Record<string, unknown>
    readonly connection: Record<string, unknown>
  }
  readonly stop: () => Promise<void>
  /** Everything dbdesk wrote to stdout so far (e.g. `--trace-gc-nvp` lines). */
  readonly output: () => string
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url))

export interface StartOptions {
  /** `--cpu-prof` into this directory. */
  readonly cpuProfileDir?: string
  /** Saved connections written to `connections.json` before the first start (instead of the sample); alwaysAllow. */
  readonly connections?: ReadonlyArray<Record<string, unknown>>
  /** More node flags (e.g. `--heapsnapshot-signal=SIGUSR2`). */
  readonly nodeFlags?: ReadonlyArray<string>
  /** Another built checkout to run (its bin/dbdesk.mjs), e.g. the commit before a change: `DBDESK_BENCH_ROOT`. */
  readonly root?: string
}

const waitForExit = (child: ChildProcess, ms: number) =>
  new Promise<boolean>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(true)
    const timer = setTimeout(() => resolve(false), ms)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve(true)
    })
  })

export const startDbdesk = async (options: StartOptions = {}): Promise<RunningDbdesk> => {
  const home = mkdtempSync(join(tmpdir(), "dbdesk-bench-"))
  writeFileSync(join(home, "settings.json"), JSON.stringify(BENCH_SETTINGS, null, 2), { mode: 0o600 })
  if (options.connections !== undefined) {
    writeFileSync(join(home, "connections.json"), JSON.stringify({ version: 1, connections: options.connections }), {
      mode: 0o600
    })
  }
  // Profiled, dbdesk runs from its sources (tsx) so the profile names source files rather than bundle chunks.
  const root = options.root ?? ROOT
  const command = options.cpuProfileDir === undefined
    ? [join(root, "bin/dbdesk.mjs")]
    : ["--cpu-prof", "--cpu-prof-dir", options.cpuProfileDir, "--import", "tsx", join(root, "src/main.ts")]
  const child = spawn(process.execPath, [
    ...(process.env["DBDESK_BENCH_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? []),
    ...(options.nodeFlags ?? []),
    ...command,
    "serve",
    "--port",
    "0"
  ], {
    cwd: root,
    env: { ...process.env, DBDESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8")
  })
  const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dbdesk did not start within 60 s:\n${out}\n${err}`)), 60_000)
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out)?.[1]
      const token = /^(dbd_\S+)$/m.exec(out)?.[1]
      if (url !== undefined && token !== undefined) {
        clearTimeout(timer)
        resolve({ url, token })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`dbdesk exited (${code}) before it was ready:\n${out}\n${err}`))
    })
  })
  const settings = JSON.parse(readFileSync(join(home, "settings.json"), "utf8")) as Record<string, unknown>
  const connections = (JSON.parse(readFileSync(join(home, "connections.json"), "utf8")) as {
    connections: Array<Record<string, unknown>>
  }).connections
  const connection = connections[0]
  if (connection === undefined || connection["aiPolicy"] !== "alwaysAllow") {
    throw new Error(`the sample connection is not alwaysAllow: ${JSON.stringify(connection)}`)
  }
  const stop = async () => {
    child.kill("SIGTERM")
    if (!(await waitForExit(child, 20_000))) {
      child.kill("SIGKILL")
      await waitForExit(child, 5_000)
    }
    rmSync(home, { recursive: true, force: true })
  }
  return {
    url,
    token,
    pid: child.pid!,
    home,
    connectionId: String(connection["id"]),
    profile: {
      settings,
      connection: {
        name: connection["name"],
        type: connection["type"],
        aiPolicy: connection["aiPolicy"],
        externalAccess: connection["externalAccess"],
        confirmQueries: connection["confirmQueries"]
      }
    },
    stop,
    output: () => out
  }
}
