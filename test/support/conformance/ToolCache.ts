import { execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"

/**
 * Third-party test tools installed on demand with npm into `.cache/tools` (ignored by git, never a
 * dependency of the package): the official MCP conformance suite, the MCP Inspector, and a Node 22
 * binary to run them, since they need Node ≥ 22 while dbdesk stays on Node 20. A second run reuses
 * the install; concurrent test files wait for each other through a lock directory.
 */
export const ROOT = join(import.meta.dirname, "..", "..", "..")
export const CACHE = join(ROOT, ".cache", "tools")

export const NODE22_VERSION = "22.23.3"
export const SUITE_RELEASE = "0.1.16"
export const SUITE_PRERELEASE = "0.2.0-alpha.12"
export const INSPECTOR_VERSION = "2.12.0"

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Installs `spec` into `.cache/tools/<name>` once; returns that directory. */
export const ensureInstalled = async (name: string, specs: ReadonlyArray<string>): Promise<string> => {
  const dir = join(CACHE, name)
  const marker = join(dir, ".installed")
  const wanted = specs.join(" ")
  if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return dir
  mkdirSync(CACHE, { recursive: true })
  const lock = join(CACHE, `${name}.lock`)
  for (let waited = 0;; waited += 500) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (waited > 600_000) {
        throw new Error(`${lock} is held for 10 minutes: remove it if no test run is installing ${name}`)
      }
      await sleep(500)
      if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return dir
    }
  }
  try {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `dbdesk-test-tool-${name}`, private: true }))
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, ...specs], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024
    })
      .catch((error: Error & { stderr?: string }) => {
        throw new Error(
          `npm could not install ${wanted} into ${dir} (the npm registry must be reachable): ${
            error.stderr ?? error.message
          }`
        )
      })
    writeFileSync(marker, wanted)
    return dir
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** A Node ≥ 22 to run the tools: this one when it is new enough, else the npm package's binary. */
export const node22 = async (): Promise<string> => {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath
  const platform = process.platform === "win32" ? "win" : process.platform
  const pkg = `node-${platform}-${process.arch}`
  const dir = await ensureInstalled(`node-${NODE22_VERSION}`, [`${pkg}@${NODE22_VERSION}`])
  return join(dir, "node_modules", pkg, "bin", process.platform === "win32" ? "node.exe" : "node")
}

export interface ProcessResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to its end, collecting its output; killed after `timeoutMs`. */
export const runToEnd = (
  command: string,
  args: ReadonlyArray<string>,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env
) =>
  new Promise<ProcessResult>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
