import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { CACHE } from "./ToolCache.ts"

/**
 * The official Python MCP SDK, installed on demand from PyPI into a virtual environment under `.cache/tools` (ignored
 * by git, never a dependency of the package), as ToolCache.ts installs the Node tools: `python3 -m venv` (Python's
 * own module; python3 3.11 is on the CI image) and `pip install mcp==<version>`. A second run reuses it; concurrent
 * test files wait for each other through a lock directory.
 */
export const PYTHON_SDK_VERSION = "2.3.0"

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The virtual environment's python, with `mcp` at PYTHON_SDK_VERSION importable. */
export const ensurePythonSdk = async (): Promise<string> => {
  const dir = join(CACHE, `python-mcp-${PYTHON_SDK_VERSION}`)
  const python = join(dir, "bin", "python")
  const marker = join(dir, ".installed")
  const wanted = `mcp==${PYTHON_SDK_VERSION}`
  const ready = () => existsSync(marker) && readFileSync(marker, "utf8") === wanted
  if (ready()) return python
  mkdirSync(CACHE, { recursive: true })
  const lock = `${dir}.lock`
  for (let waited = 0;; waited += 500) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (waited > 600_000) {
        throw new Error(`${lock} is held for 10 minutes: remove it if no test run is installing the Python SDK`)
      }
      await sleep(500)
      if (ready()) return python
    }
  }
  try {
    rmSync(dir, { recursive: true, force: true })
    await run("python3", ["-m", "venv", dir], { timeout: 120_000 }).catch((error: Error & { stderr?: string }) => {
      throw new Error(
        `python3 -m venv ${dir} failed (python3 with its venv module is needed): ${error.stderr ?? error.message}`
      )
    })
    await run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", wanted], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024
    })
      .catch((error: Error & { stderr?: string }) => {
        throw new Error(
          `pip could not install ${wanted} into ${dir} (PyPI must be reachable): ${error.stderr ?? error.message}`
        )
      })
    writeFileSync(marker, wanted)
    return python
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
