/**
 * Summary of a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by area (our sources by folder,
 * effect, node internals, GC, idle). Used by `npm run bench -- --profile`, or alone:
 * `node --import tsx bench/profile.ts <file.cpuprofile | directory>`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly startTime: number
  readonly endTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/**
 * A bundle built with DBDESK_BUILD_UNMINIFIED=1 keeps esbuild's `// src/…` and `// node_modules/…` comment before
 * each module's code: the module a line of the bundle came from, so a profile of the built bins reads like one of
 * the sources.
 */
const bundleModules = new Map<string, ReadonlyArray<readonly [line: number, path: string]>>()
const moduleOfBundleLine = (url: string, line: number): string | undefined => {
  if (!url.startsWith("file://") || !url.includes("/dist/")) return undefined
  let starts = bundleModules.get(url)
  if (starts === undefined) {
    const found: Array<readonly [number, string]> = []
    try {
      readFileSync(new URL(url), "utf8").split("\n").forEach((text, index) => {
        // The path is relative to the build's directory; through a linked node_modules it climbs out first.
        const comment = /^\/\/ (?:\S*?\/)?((?:src|node_modules)\/\S+\.[cm]?[jt]s)$/.exec(text)
        if (comment !== null) found.push([index, comment[1]!])
      })
    } catch {
      // not readable: leave the frame as it is
    }
    starts = found
    bundleModules.set(url, starts)
  }
  let module: string | undefined
  for (const [start, path] of starts) {
    if (start > line) break
    module = path
  }
  return module === undefined ? undefined : `/${module}`
}

/** Where a frame belongs, coarse enough to say where the time goes. */
export const areaOf = (frame: CallFrame): string => {
  const { functionName } = frame
  const url = moduleOfBundleLine(frame.url, frame.lineNumber) ?? frame.url
  if (url === "") {
    if (functionName === "(idle)") return "(idle)"
    if (functionName === "(garbage collector)") return "(garbage collector)"
    if (functionName === "(program)") return "(program)"
    return "(native)"
  }
  if (url.startsWith("node:")) return url.replace(/^node:(internal\/)?/, "node:").split("/").slice(0, 2).join("/")
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)(\/.*)?$/.exec(url)
  if (modules !== null) {
    const pkg = modules[1]!
    if (pkg === "effect") {
      const file = /\/dist\/esm\/(?:internal\/)?([^/]+?)(?:\.js)?$/.exec(modules[2] ?? "")
      return `effect${file === null ? "" : ` (${file[1]})`}`
    }
    return pkg
  }
  const source = /\/(src|bench|test)\/(.*)$/.exec(url)
  if (source !== null) return `${source[1]}/${source[2]}`
  return url
}

/**
 * Self time (ms) per node id, from the sample stream, leaving out the first `skipMs` (start-up, compilation) and
 * what comes after `untilMs` (the stop).
 */
const selfTimes = (profile: CpuProfile, skipMs: number, untilMs = Number.POSITIVE_INFINITY) => {
  const self = new Map<number, number>()
  let at = 0
  profile.samples.forEach((id, index) => {
    const delta = (profile.timeDeltas[index] ?? 0) / 1000
    at += delta
    if (at >= skipMs && at <= untilMs) self.set(id, (self.get(id) ?? 0) + delta)
  })
  return self
}

/**
 * The main-thread profile (`CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile`) of `pid`, or the newest main-thread one;
 * thread 1 is tsx's module-loader worker, which only compiles sources at start.
 */
const mainThreadProfile = (path: string, pid?: number): string => {
  if (!statSync(path).isDirectory()) return path
  const files = readdirSync(path)
    .filter((file) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file))
    .filter((file) => pid === undefined || file.split(".")[3] === String(pid))
    .map((file) => join(path, file))
  if (files.length === 0) {
    throw new Error(`no main-thread .cpuprofile${pid === undefined ? "" : ` of pid ${pid}`} in ${path}`)
  }
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!
}

/**
 * Time by where it was spent on our side: each sample goes to the nearest frame of our sources or of effect on its
 * stack, whichever comes first from the leaf (so JSON.parse called from McpDispatcher.ts counts for McpDispatcher.ts,
 * and effect's fiber loop between two of our steps counts as "effect", not for the socket callback that started the
 * fiber); a stack with neither counts for its leaf's area (node's HTTP, GC). Skips the first `skipMs` and what comes
 * after `untilMs`; idle left out.
 */
export const timeBySource = (
  path: string,
  pid?: number,
  skipMs = 0,
  untilMs?: number
): { readonly busyMs: number; readonly rows: ReadonlyArray<readonly [string, number]> } => {
  const profile = JSON.parse(readFileSync(mainThreadProfile(path, pid), "utf8")) as CpuProfile
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const parents = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  const owner = new Map<number, string>()
  const ownerOf = (id: number): string => {
    const known = owner.get(id)
    if (known !== undefined) return known
    let found: string | undefined
    for (let at: number | undefined = id; at !== undefined && found === undefined; at = parents.get(at)) {
      const area = areaOf(nodes.get(at)!.callFrame)
      if (area.startsWith("src/")) found = area
      else if (area.startsWith("effect")) found = "effect"
    }
    const result = found ?? areaOf(nodes.get(id)!.callFrame)
    owner.set(id, result)
    return result
  }
  const totals = new Map<string, number>()
  let busyMs = 0
  for (const [id, ms] of selfTimes(profile, skipMs, untilMs)) {
    const frame = nodes.get(id)?.callFrame
    if (frame === undefined || frame.functionName === "(idle)") continue
    busyMs += ms
    const key = ownerOf(id)
    totals.set(key, (totals.get(key) ?? 0) + ms)
  }
  return { busyMs, rows: [...totals.entries()].sort((a, b) => b[1] - a[1]) }
}

/** The stages of a request, for the table in bench/README.md: which of our files (or areas) make up each. */
const STAGES: ReadonlyArray<readonly [stage: string, match: RegExp]> = [
  [
    "HTTP: node's parser, sockets, writes; transport checks, body",
    /^(node:|src\/http\/(NodeMcpServer|TransportGuard|BodyReader)\.ts$|\(native\)$|\(program\)$)/
  ],
  [
    "JSON-RPC decode, header checks, envelope, result envelope",
    /^src\/(http\/(McpDispatcher|HeaderChecks|HeaderValues|ResultEnvelope|ResponseEncoding|Cursor|LegacyGate)|domain\/(RequestEnvelope|JsonRpc|Json))\.ts$/
  ],
  ["auth: token check, lockouts", /^src\/(http\/TokenAuthenticator|services\/(Tokens|AuthLockouts))\.ts$/],
  [
    "rate limits, request registry",
    /^(src\/services\/(RateLimits|RateLimitStore|RequestRegistry|BoundedMap)\.ts|@effect\/experimental)$/
  ],
  ["activity log, connected clients", /^src\/services\/(activity\/|ActivityLog|ConnectedClients)/],
  ["query history", /^src\/services\/(QueryHistory|StatementRecorder)\.ts$/],
  [
    "tool: arguments, gates, SQL classifier, answer caps",
    /^src\/(http\/methods\/|services\/tools\/|services\/(ConnectionAccess|ConnectionGrants|Connections|Settings|StatementApproval)\.ts|domain\/)/
  ],
  [
    "driver: SQLite child IPC / PostgreSQL pipeline",
    /^(src\/services\/(Drivers\.ts|drivers\/)|pg|pg-protocol|pg-pool|pg-types|better-sqlite3)/
  ],
  ["bridge: stdio lines, upstream HTTP, JSON", /^src\/bridge\//],
  ["Effect runtime (fibers, between our steps)", /^effect/],
  ["garbage collector", /^\(garbage collector\)$/]
]

export const stageOf = (where: string): string =>
  STAGES.find(([, match]) => match.test(where))?.[0] ?? `other (${where})`

/** `timeBySource` summed by stage. */
export const timeByStage = (path: string, pid?: number, skipMs = 0, untilMs?: number) => {
  const { busyMs, rows } = timeBySource(path, pid, skipMs, untilMs)
  const stages = new Map<string, number>()
  for (const [where, ms] of rows) stages.set(stageOf(where), (stages.get(stageOf(where)) ?? 0) + ms)
  return { busyMs, rows: [...stages.entries()].sort((a, b) => b[1] - a[1]) }
}

export const summarizeProfile = (
  path: string,
  pid?: number,
  skipMs = 0,
  top = 25,
  untilMs?: number
): ReadonlyArray<string> => {
  const file = mainThreadProfile(path, pid)
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const self = selfTimes(profile, skipMs, untilMs)
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const idle = [...self.entries()].filter(([id]) => nodes.get(id)?.callFrame.functionName === "(idle)").reduce(
    (a, [, t]) => a + t,
    0
  )
  const busy = total - idle
  const byArea = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const [id, ms] of self) {
    const frame = nodes.get(id)?.callFrame
    if (frame === undefined || frame.functionName === "(idle)") continue
    const area = areaOf(frame)
    byArea.set(area, (byArea.get(area) ?? 0) + ms)
    const name = `${frame.functionName || "(anonymous)"}  ${area}${frame.url === "" ? "" : `:${frame.lineNumber + 1}`}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms)
  }
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`
  const lines: Array<string> = [
    `profile ${file}${skipMs > 0 ? ` (first ${(skipMs / 1000).toFixed(1)} s, start-up and probes, left out)` : ""}`,
    `  ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (percentages below are of busy time)`,
    "  self time by area:"
  ]
  for (const [area, ms] of [...byArea.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`    ${pct(ms)}  ${(ms / 1000).toFixed(2).padStart(7)} s  ${area}`)
  }
  lines.push("  self time by function:")
  for (const [name, ms] of [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`    ${pct(ms)}  ${(ms / 1000).toFixed(2).padStart(7)} s  ${name}`)
  }
  return lines
}

if (process.argv[1]?.endsWith("profile.ts") === true) {
  const [target, skip, until] = process.argv.slice(2)
  if (target === undefined) throw new Error("usage: profile.ts <file.cpuprofile | directory> [skip-ms] [until-ms]")
  for (
    const line of summarizeProfile(
      target,
      undefined,
      Number(skip ?? 0),
      25,
      until === undefined ? undefined : Number(until)
    )
  ) process.stdout.write(`${line}\n`)
}
