/**
 * Start-up time and memory of the commands a user runs (D-76), measured as a user meets them: the real `dbdesk`
 * and `dbdesk-mcp` binaries spawned with `node`, times taken from the spawn to the event, RSS read from /proc.
 * Part of `npm run bench`; alone: `npm run bench -- --footprint [--runs N] [--bin-dir DIR]` (DIR holds `dbdesk` and
 * `dbdesk-mcp`, e.g. `node_modules/.bin` of a project that installed the tarball; default: this checkout's `bin/`).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { requestBody, requestHeaders } from "./mcp.ts"
import { descendants, readCpuMs, readRssKb, stopChild } from "./proc.ts"

const ROOT = fileURLToPath(new URL("../", import.meta.url))

export interface FootprintOptions {
  readonly runs: number
  /** The two binaries; default this checkout's `bin/dbdesk.mjs` and `bin/dbdesk-mcp.mjs`. */
  readonly dbdesk: string
  readonly dbdeskMcp: string
}

export const defaultFootprintOptions = (argv: ReadonlyArray<string>): FootprintOptions => {
  const value = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined)
  const binDir = value("bin-dir")
  return {
    runs: Number(value("runs") ?? 3),
    dbdesk: binDir === undefined ? join(ROOT, "bin", "dbdesk.mjs") : join(binDir, "dbdesk"),
    dbdeskMcp: binDir === undefined ? join(ROOT, "bin", "dbdesk-mcp.mjs") : join(binDir, "dbdesk-mcp")
  }
}

/** One run's five figures (ms and MiB). */
export interface FootprintRun {
  readonly serveReadyMs: number
  readonly serveIdleRssMiB: number
  readonly serveWithSqliteRssMiB: number
  readonly bridgeFirstAnswerMs: number
  readonly bridgeRssMiB: number
  /** CPU time each process had used at its event: what the wall times shrink to on an idle machine. */
  readonly serveReadyCpuMs: number
  readonly bridgeFirstAnswerCpuMs: number
}

type Figure = Exclude<keyof FootprintRun, "serveReadyCpuMs" | "bridgeFirstAnswerCpuMs">

/** The five figures of D-76: the tsx baseline it measured, and its targets. */
export const FIGURES: ReadonlyArray<
  {
    readonly key: Figure
    readonly name: string
    readonly unit: string
    readonly target: number
    readonly issueBaseline: string
  }
> = [
  {
    key: "serveReadyMs",
    name: "dbdesk serve: spawn → handshake file written",
    unit: "ms",
    target: 400,
    issueBaseline: "1,856–1,968"
  },
  { key: "serveIdleRssMiB", name: "serve RSS after 2 s idle", unit: "MiB", target: 100, issueBaseline: "253–261" },
  {
    key: "serveWithSqliteRssMiB",
    name: "serve + SQLite child RSS after a query",
    unit: "MiB",
    target: 150,
    issueBaseline: "335"
  },
  {
    key: "bridgeFirstAnswerMs",
    name: "dbdesk-mcp: spawn → first answer",
    unit: "ms",
    target: 200,
    issueBaseline: "917–1,227"
  },
  {
    key: "bridgeRssMiB",
    name: "dbdesk-mcp RSS after its first answer",
    unit: "MiB",
    target: 60,
    issueBaseline: "156–162"
  }
]

const IDLE_MS = 2_000
const TIMEOUT_MS = 60_000

const mib = (kb: number) => kb / 1024

/** Resolves when `file` exists (it is renamed into place, so it is complete then). */
const waitForFile = (directory: string, file: string) =>
  new Promise<void>((resolve, reject) => {
    const done = () => {
      watcher.close()
      clearInterval(poll)
      clearTimeout(timer)
      resolve()
    }
    const check = () => existsSync(file) && done()
    const watcher = watch(directory, check)
    const poll = setInterval(check, 25)
    const timer = setTimeout(() => {
      watcher.close()
      clearInterval(poll)
      reject(new Error(`${file} did not appear within ${TIMEOUT_MS} ms`))
    }, TIMEOUT_MS)
    check()
  })

const untilOutput = (child: ChildProcess, pattern: RegExp, what: string) =>
  new Promise<RegExpExecArray>((resolve, reject) => {
    let text = ""
    const timer = setTimeout(
      () => reject(new Error(`${what}: no match for ${pattern} within ${TIMEOUT_MS} ms:\n${text}`)),
      TIMEOUT_MS
    )
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
      const match = pattern.exec(text)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match)
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited (${code}) before it answered:\n${text}`))
    })
  })

const treeRssKb = (pid: number) => [pid, ...descendants(pid)].reduce((sum, each) => sum + readRssKb(each), 0)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const measureOnce = async (options: FootprintOptions): Promise<FootprintRun> => {
  const home = mkdtempSync(join(tmpdir(), "dbdesk-footprint-"))
  // A free UI port: the footprint never touches a dbdesk the user runs on the default ports.
  writeFileSync(join(home, "settings.json"), JSON.stringify({ ui: { port: 0 } }), { mode: 0o600 })
  const handshake = join(home, "mcp-handshake.json")
  const spawnedAt = performance.now()
  const serve = spawn(process.execPath, [options.dbdesk, "serve", "--port", "0", "--home", home], {
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const tokenLine = untilOutput(serve, /^(dbd_\S+)$/m, "dbdesk serve")
  try {
    await waitForFile(home, handshake)
    const serveReadyMs = performance.now() - spawnedAt
    const serveReadyCpuMs = readCpuMs(serve.pid!)
    const token = (await tokenLine)[1]!
    await sleep(IDLE_MS)
    const serveIdleRssMiB = mib(readRssKb(serve.pid!))

    const { port } = JSON.parse(readFileSync(handshake, "utf8")) as { port: number }
    const connections = JSON.parse(readFileSync(join(home, "connections.json"), "utf8")) as {
      connections: Array<{ id: string }>
    }
    const spec = {
      method: "tools/call",
      name: "execute_query",
      arguments: { connection_id: connections.connections[0]!.id, query: "SELECT * FROM orders LIMIT 1" },
      id: 1
    }
    const body = requestBody(spec)
    const reply = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: requestHeaders(spec, token, body),
      body
    })
    const text = await reply.text()
    if (!reply.ok || !text.includes("\"result\"")) throw new Error(`execute_query failed: ${reply.status} ${text}`)
    const serveWithSqliteRssMiB = mib(treeRssKb(serve.pid!))

    const bridgeSpawnedAt = performance.now()
    const bridge = spawn(process.execPath, [options.dbdeskMcp, "--home", home], {
      cwd: home,
      stdio: ["pipe", "pipe", "pipe"]
    })
    bridge.stdin.write(`${requestBody({ method: "server/discover", id: 1 })}\n`)
    await untilOutput(bridge, /\n/, "dbdesk-mcp")
    const bridgeFirstAnswerMs = performance.now() - bridgeSpawnedAt
    const bridgeFirstAnswerCpuMs = readCpuMs(bridge.pid!)
    const bridgeRssMiB = mib(readRssKb(bridge.pid!))
    bridge.stdin.end()
    await stopChild(bridge, 15_000)
    return {
      serveReadyMs,
      serveIdleRssMiB,
      serveWithSqliteRssMiB,
      bridgeFirstAnswerMs,
      bridgeRssMiB,
      serveReadyCpuMs,
      bridgeFirstAnswerCpuMs
    }
  } finally {
    await stopChild(serve, 15_000)
    rmSync(home, { recursive: true, force: true })
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export interface FootprintFigure {
  readonly name: string
  readonly unit: string
  readonly median: number
  readonly min: number
  readonly max: number
  readonly target: number
  readonly met: boolean
  readonly issueBaseline: string
}

export interface FootprintResult {
  readonly runs: ReadonlyArray<FootprintRun>
  readonly figures: ReadonlyArray<FootprintFigure>
  /** Medians of the CPU time used up to the two timed events. */
  readonly cpu: { readonly serveReadyMs: number; readonly bridgeFirstAnswerMs: number }
  /** The machine's load average when the runs ended: wall times above stretch with it. */
  readonly loadAverage: ReadonlyArray<number>
  readonly binaries: { readonly dbdesk: string; readonly dbdeskMcp: string }
}

/** Runs the measurement `options.runs` times, one after another (never two servers at once). */
export const runFootprint = async (
  options: FootprintOptions,
  log: (line: string) => void
): Promise<FootprintResult> => {
  const runs: Array<FootprintRun> = []
  for (let i = 0; i < options.runs; i++) {
    runs.push(await measureOnce(options))
    const run = runs[i]!
    log(
      `footprint run ${i + 1}/${options.runs}: ${
        FIGURES.map((f) => `${run[f.key].toFixed(0)} ${f.unit}`).join(", ")
      } (CPU: serve ${run.serveReadyCpuMs} ms, bridge ${run.bridgeFirstAnswerCpuMs} ms)`
    )
  }
  const figures = FIGURES.map((figure) => {
    const values = runs.map((run) => run[figure.key])
    const value = median(values)
    return {
      name: figure.name,
      unit: figure.unit,
      median: value,
      min: Math.min(...values),
      max: Math.max(...values),
      target: figure.target,
      met: value <= figure.target,
      issueBaseline: figure.issueBaseline
    }
  })
  const cpu = {
    serveReadyMs: median(runs.map((run) => run.serveReadyCpuMs)),
    bridgeFirstAnswerMs: median(runs.map((run) => run.bridgeFirstAnswerCpuMs))
  }
  return {
    runs,
    figures,
    cpu,
    loadAverage: loadavg(),
    binaries: { dbdesk: options.dbdesk, dbdeskMcp: options.dbdeskMcp }
  }
}

export const footprintTable = (result: FootprintResult): ReadonlyArray<string> => {
  const rows = result.figures.map((
    f
  ) => [
    f.name,
    `${f.median.toFixed(0)} (${f.min.toFixed(0)}–${f.max.toFixed(0)}) ${f.unit}`,
    `≤ ${f.target} ${f.unit}`,
    `${f.issueBaseline} ${f.unit}`,
    f.met ? "met" : "MISSED"
  ])
  const header = [
    "figure (median of " + result.runs.length + ", min–max)",
    "measured",
    "target",
    "before the build (tsx)",
    "verdict"
  ]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
  return [
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.map(line),
    `CPU time used up to the event (medians): serve ${result.cpu.serveReadyMs} ms, dbdesk-mcp ${result.cpu.bridgeFirstAnswerMs} ms; ` +
    `load average ${result.loadAverage.map((l) => l.toFixed(1)).join(" ")} (wall times stretch on a busy machine)`
  ]
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await runFootprint(defaultFootprintOptions(process.argv.slice(2)), console.log)
  for (const line of footprintTable(result)) console.log(line)
}
