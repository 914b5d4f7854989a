// `npm run reliability` (D-88): the full reliability suite against real servers, bounded in time. Each part
// runs in its own vitest process with DBDESK_RELIABILITY=full, one root for everything the parts write (the final
// secrets scan reads all of it) and one directory for the figures they report; a part that overruns its budget is
// stopped and counted as failed. Prints a table of figures and writes reliability/results.json.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const ROOT = join(import.meta.dirname, "..")
const MINUTE = 60_000

/** The parts, in order, with the budget each gets (the whole run is bounded by their sum, about 70 minutes). */
const PARTS = [
  { part: "fuzz", files: ["test/reliability/Fuzz.test.ts"], budget: 25 * MINUTE },
  { part: "load", files: ["test/reliability/Load.test.ts"], budget: 6 * MINUTE },
  // The database and search-engine faults of D-73 (npm run test:faults), run as they are.
  {
    part: "faults",
    files: ["test/http/PostgresAborts.test.ts", "test/http/PostgresFaults.test.ts", "test/cli/ServePostgres.test.ts", "test/http/SqliteFaults.test.ts", "test/http/SearchFaults.test.ts"],
    env: { DBDESK_ABORT_CALLS: "2000" },
    budget: 15 * MINUTE
  },
  { part: "disk-full", files: ["test/reliability/DiskFull.test.ts"], budget: 4 * MINUTE },
  { part: "crash", files: ["test/reliability/CrashLoop.test.ts"], budget: 12 * MINUTE },
  { part: "security", files: ["test/reliability/Security.test.ts", "test/http/TransportHost.test.ts", "test/http/Cursor.test.ts", "test/http/Approvals.test.ts"], budget: 6 * MINUTE },
  { part: "scan", files: ["test/reliability/Scan.test.ts"], budget: 10 * MINUTE }
]

const only = process.argv.slice(2)
const runRoot = mkdtempSync(join(tmpdir(), "dbdesk-reliability-"))
const figuresDir = join(runRoot, "figures")
const vitestDir = join(runRoot, "vitest")
mkdirSync(figuresDir)
mkdirSync(vitestDir)

const runPart = ({ part, files, env = {}, budget }) =>
  new Promise((resolve) => {
    const started = Date.now()
    const report = join(vitestDir, `${part}.json`)
    const child = spawn(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", ...files, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], {
      cwd: ROOT,
      env: { ...process.env, ...env, DBDESK_RELIABILITY: "full", DBDESK_RELIABILITY_ROOT: runRoot, DBDESK_RELIABILITY_OUT: figuresDir },
      stdio: "inherit",
      detached: true
    })
    let overran = false
    const timer = setTimeout(() => {
      overran = true
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    }, budget)
    child.once("exit", (code) => {
      clearTimeout(timer)
      const tests = existsSync(report) ? JSON.parse(readFileSync(report, "utf8")) : undefined
      resolve({
        part,
        seconds: Math.round((Date.now() - started) / 1000),
        exitCode: code,
        overran,
        tests: tests === undefined ? undefined : { total: tests.numTotalTests, passed: tests.numPassedTests, failed: tests.numFailedTests, skipped: tests.numPendingTests + tests.numTodoTests },
        failures: tests === undefined ? [] : tests.testResults.flatMap((file) => file.assertionResults.filter((result) => result.status === "failed").map((result) => `${file.name.replace(`${ROOT}/`, "")} > ${result.title}`))
      })
    })
  })

const started = new Date()
const runs = []
for (const part of PARTS.filter((entry) => only.length === 0 || only.includes(entry.part))) {
  console.log(`\n=== reliability: ${part.part} (budget ${part.budget / MINUTE} min) ===`)
  runs.push(await runPart(part))
}

const figures = Object.fromEntries(readdirSync(figuresDir).filter((name) => name.endsWith(".json")).map((name) => {
  const content = JSON.parse(readFileSync(join(figuresDir, name), "utf8"))
  return [content.part, content]
}))
const figure = (part, name) => figures[part]?.figures.find((entry) => entry.name === name)
const value = (part, name) => figure(part, name)?.value ?? "not measured"
const faults = runs.find((run) => run.part === "faults")

/** The figures the issue names, each with where it comes from. */
const headline = [
  ["requests fuzzed", value("fuzz", "requests fuzzed"), undefined],
  ["5xx for client mistakes", value("fuzz", "5xx for client mistakes"), 0],
  ["contract violations", value("fuzz", "contract violations"), 0],
  ["resets", value("fuzz", "resets"), 0],
  ["hangs", value("fuzz", "hangs"), 0],
  ["crashes (fuzz)", value("fuzz", "crashes"), 0],
  ["RSS growth after the fuzz run (%)", value("fuzz", "RSS growth"), "≤ 10"],
  ["load: connections held / 65th", `${value("load", "connections held")} / ${value("load", "65th connection")}`, undefined],
  ["load: wrong Retry-After", value("load", "wrong Retry-After"), 0],
  ["load: p50 / p99 (ms)", `${value("load", "p50")} / ${value("load", "p99")}`, undefined],
  ["faults injected and survived (fault tests passed)", faults?.tests === undefined ? "not run" : `${faults.tests.passed}/${faults.tests.total}`, "all"],
  ["disk full: writes refused with a clear error", value("disk-full", "writes refused while full"), "3/3"],
  ["disk full: files changed or unparsable", value("disk-full", "files changed or unparsable while full"), 0],
  ["SIGKILLs", value("crash", "SIGKILLs"), undefined],
  ["files checked after crashes", value("crash", "files checked after crashes"), undefined],
  ["corrupted files", value("crash", "corrupted files"), 0],
  ["acknowledged writes lost", value("crash", "acknowledged writes lost"), 0],
  ["secrets found (whole run)", value("scan", "secrets found"), 0],
  ["support files with a wrong mode", value("scan", "wrong modes"), 0]
]

const pad = (text, width) => String(text).padEnd(width)
console.log("\n=== reliability results ===")
console.log(`${pad("part", 10)} ${pad("tests", 12)} ${pad("seconds", 8)} result`)
for (const run of runs) {
  const tests = run.tests === undefined ? "no report" : `${run.tests.passed}/${run.tests.total - run.tests.skipped}`
  console.log(`${pad(run.part, 10)} ${pad(tests, 12)} ${pad(run.seconds, 8)} ${run.overran ? "STOPPED: over its budget" : run.exitCode === 0 ? "passed" : "FAILED"}`)
  for (const failure of run.failures) console.log(`           failed: ${failure}`)
}
console.log("")
console.log(`${pad("figure", 52)} ${pad("value", 28)} required`)
for (const [name, figureValue, required] of headline) console.log(`${pad(name, 52)} ${pad(figureValue, 28)} ${required ?? ""}`)
for (const [part, content] of Object.entries(figures)) {
  console.log(`\n[${part}] ${content.figures.map((entry) => `${entry.name}: ${entry.value}${entry.unit ?? ""}`).join("; ")}`)
}

const passed = runs.every((run) => run.exitCode === 0 && !run.overran)
mkdirSync(join(ROOT, "reliability"), { recursive: true })
writeFileSync(join(ROOT, "reliability/results.json"), JSON.stringify({
  startedAt: started.toISOString(),
  finishedAt: new Date().toISOString(),
  passed,
  headline: headline.map(([name, figureValue, required]) => ({ name, value: figureValue, required: required ?? null })),
  parts: runs,
  figures,
  root: runRoot
}, null, 2))
console.log(`\n${passed ? "All parts passed" : "Some parts FAILED"}; figures in reliability/results.json; everything the run wrote is in ${runRoot}`)
if (process.env["DBDESK_RELIABILITY_KEEP"] !== "1" && passed) rmSync(runRoot, { recursive: true, force: true })
process.exitCode = passed ? 0 : 1
