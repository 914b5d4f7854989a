/**
 * What loading costs at start (D-76): the table in bench/README.md "Module load costs" comes from this script.
 * `node --import tsx bench/module-costs.ts [--runs N]` after `npm run build -- app` (npm run bench builds it). Every
 * figure is measured in a fresh `node` process (median of N): wall and CPU time of an `import()`, or of a command
 * from spawn to exit, and the RSS it adds. Wall times stretch on a busy machine; CPU times much less.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const ROOT = fileURLToPath(new URL("../", import.meta.url))
const APP = join(ROOT, "dist", "app")
const argv = process.argv.slice(2)
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 3

interface Cost {
  readonly wallMs: number
  readonly cpuMs: number
  readonly rssMiB: number
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const medianCost = (costs: ReadonlyArray<Cost>): Cost => ({
  wallMs: median(costs.map((c) => c.wallMs)),
  cpuMs: median(costs.map((c) => c.cpuMs)),
  rssMiB: median(costs.map((c) => c.rssMiB))
})

/** Imports `specifiers` one after another in one fresh process; the cost of each on top of the ones before. */
const importSequence = (specifiers: ReadonlyArray<string>): ReadonlyArray<Cost> => {
  const program = `
    const out = []
    for (const specifier of ${JSON.stringify(specifiers)}) {
      const rss = process.memoryUsage().rss, cpu = process.cpuUsage(), at = performance.now()
      await import(specifier)
      const used = process.cpuUsage(cpu)
      out.push({ wallMs: performance.now() - at, cpuMs: (used.user + used.system) / 1000, rssMiB: (process.memoryUsage().rss - rss) / 2 ** 20 })
    }
    process.stdout.write(JSON.stringify(out))
    process.exit(0)`
  const samples = Array.from(
    { length: runs },
    () =>
      JSON.parse(
        execFileSync(process.execPath, ["--input-type=module", "-e", program], { cwd: ROOT, encoding: "utf8" })
      ) as Array<Cost>
  )
  return specifiers.map((_, index) => medianCost(samples.map((sample) => sample[index]!)))
}

/** A command from spawn to exit, with the CPU and peak RSS the kernel reports for it (GNU time's format). */
const command = (args: ReadonlyArray<string>): Cost => {
  const samples = Array.from({ length: runs }, () => {
    const at = performance.now()
    const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", process.execPath, ...args], {
      cwd: ROOT,
      encoding: "utf8",
      input: ""
    })
    const wallMs = performance.now() - at
    const [user, system, maxKb] = result.stderr.trim().split("\n").at(-1)!.split(" ").map(Number) as [
      number,
      number,
      number
    ]
    return { wallMs, cpuMs: (user + system) * 1000, rssMiB: maxKb / 1024 }
  })
  return medianCost(samples)
}

const chunk = (prefix: string) => {
  const name = readdirSync(APP).find((file) => file.startsWith(`${prefix}-`) && file.endsWith(".js"))
  if (name === undefined) throw new Error(`no ${prefix}-*.js in dist/app: run npm run build -- app`)
  return pathToFileURL(join(APP, name)).href
}

const rows: Array<readonly [string, Cost]> = []
const home = mkdtempSync(join(tmpdir(), "dbdesk-module-costs-"))
try {
  rows.push(["node -e 0 (the floor: node's own start)", command(["-e", "0"])])
  rows.push([
    "dbdesk --version (dist/app/cli.js: effect core, @effect/cli, the command tree)",
    command([join(ROOT, "bin", "dbdesk.mjs"), "--version"])
  ])
  rows.push([
    "dbdesk token list (+ Token handler chunk, Tokens service)",
    command([join(ROOT, "bin", "dbdesk.mjs"), "token", "list", "--home", home])
  ])
  rows.push([
    "dbdesk-mcp with no server running (dist/app/bridge.js, refusal)",
    command([join(ROOT, "bin", "dbdesk-mcp.mjs"), "--home", home])
  ])
  const lazy = ["Serve", "UiApp", "PostgresDriver", "MysqlDriver", "SearchDriver", "ChainVerifier"] as const
  const costs = importSequence(lazy.map(chunk))
  const what: Record<(typeof lazy)[number], string> = {
    Serve: "import Serve chunk alone (the server's modules, with the effect chunks cli.js shares)",
    UiApp: "  then UiApp chunk (first UI API request: HttpApi, platform-node HTTP server, undici)",
    PostgresDriver: "  then PostgresDriver chunk (first PostgreSQL connection: pg)",
    MysqlDriver: "  then MysqlDriver chunk (first MySQL connection: mysql2)",
    SearchDriver: "  then SearchDriver chunk (first search connection)",
    ChainVerifier: "  then ChainVerifier chunk (first activity-chain check)"
  }
  lazy.forEach((name, index) => rows.push([what[name], costs[index]!]))
  for (
    const pkg of [
      "effect",
      "@effect/platform",
      "@effect/platform-node",
      "@effect/cli",
      "undici",
      "pg",
      "mysql2",
      "jose",
      "better-sqlite3"
    ]
  ) {
    rows.push([`import("${pkg}") unbundled, alone (how the tsx start loaded it)`, importSequence([pkg])[0]!])
  }
} finally {
  rmSync(home, { recursive: true, force: true })
}

const width = Math.max(...rows.map(([name]) => name.length))
console.log(`${"what (median of " + runs + ")".padEnd(0)}`.padEnd(width), "   wall ms    CPU ms   RSS MiB")
for (const [name, cost] of rows) {
  console.log(
    name.padEnd(width),
    cost.wallMs.toFixed(0).padStart(9),
    cost.cpuMs.toFixed(0).padStart(9),
    cost.rssMiB.toFixed(1).padStart(9)
  )
}
