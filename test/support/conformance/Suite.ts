import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureInstalled, node22, runToEnd } from "./ToolCache.ts"

/** One check of the suite's `checks.json`. */
export interface SuiteCheck {
  readonly scenario: string
  readonly id: string
  readonly status: string
  readonly errorMessage?: string
}

export interface SuiteRun {
  readonly scenarios: ReadonlyArray<string>
  readonly checks: ReadonlyArray<SuiteCheck>
  /** The suite's own last line, e.g. `Total: 62 passed, 8 failed`. */
  readonly total: string
  readonly output: string
}

const PACKAGE = "@modelcontextprotocol/conformance"

/**
 * Runs the official conformance suite (`server` mode) of one version against `url`, with Node 22,
 * and reads every scenario's `checks.json`.
 */
export const runSuite = async (
  version: string,
  url: string,
  extraArgs: ReadonlyArray<string> = []
): Promise<SuiteRun> => {
  const [node, dir] = await Promise.all([
    node22(),
    ensureInstalled(`conformance-${version}`, [`${PACKAGE}@${version}`])
  ])
  const out = mkdtempSync(join(tmpdir(), "dbdesk-conformance-"))
  const cli = join(dir, "node_modules", PACKAGE, "dist", "index.js")
  const result = await runToEnd(node, [cli, "server", "--url", url, "-o", out, ...extraArgs], 240_000, {
    ...process.env,
    NO_COLOR: "1"
  })
  const output = result.stdout + result.stderr
  const scenarios: Array<string> = []
  const checks: Array<SuiteCheck> = []
  for (const entry of readdirSync(out).sort()) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1]
    if (scenario === undefined) continue
    scenarios.push(scenario)
    const parsed = JSON.parse(readFileSync(join(out, entry, "checks.json"), "utf8")) as Array<
      { id: string; status: string; errorMessage?: string }
    >
    for (const check of parsed) {
      checks.push({
        scenario,
        id: check.id,
        status: check.status,
        ...(check.errorMessage === undefined ? {} : { errorMessage: check.errorMessage })
      })
    }
  }
  const total = /Total: \d+ passed, \d+ failed/.exec(output)?.[0] ?? "(no total printed)"
  if (scenarios.length === 0) {
    throw new Error(`The conformance suite ${version} ran no scenario (exit ${result.code}):\n${output}`)
  }
  return { scenarios, checks, total, output }
}

/** Failures as `scenario/check-id`, sorted, each once. */
export const failuresOf = (run: SuiteRun): ReadonlyArray<string> =>
  [...new Set(run.checks.filter((check) => check.status === "FAILURE").map((check) => `${check.scenario}/${check.id}`))]
    .sort()
