// `dbdesk serve` as users run it (bin/dbdesk.mjs, the built dist/app) in its own process, prepared for a reliability
// part: settings written first, extra connections and tokens of every kind added between a first and a second start,
// its output kept in a log file (the secrets scan reads it), and the app's approval dialog answered "denied" through
// the UI API, as a user who refuses everything would.
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { createServer } from "node:net"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect, Layer } from "effect"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { registerSecret } from "./Run.ts"

const ROOT = join(import.meta.dirname, "../..")

export interface ServeProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly url: string
  readonly port: number
  readonly uiOrigin: string
  readonly uiLaunchUrl: string
  readonly output: () => string
  readonly exited: Promise<number | string | null>
  /** The inspector's WebSocket URL when started with `inspect` (for heapAfterGc). */
  readonly inspector: string | undefined
  /** SIGTERM and wait (SIGKILL after 20 s). */
  readonly stop: () => Promise<void>
}

/** Starts `serve --port 0` on `home`, appending everything it prints to `logFile`. */
export const spawnServe = async (
  home: string,
  logFile: string,
  alsoWaitFor?: RegExp,
  inspect = false
): Promise<ServeProcess> => {
  const child = spawn(process.execPath, [
    ...(inspect ? ["--inspect=127.0.0.1:0"] : []),
    join(ROOT, "bin/dbdesk.mjs"),
    "serve",
    "--port",
    "0"
  ], {
    cwd: ROOT,
    env: { ...process.env, DBDESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const collect = (chunk: Buffer) => {
    const text = chunk.toString("utf8")
    output += text
    appendFileSync(logFile, text)
  }
  child.stdout.on("data", collect)
  child.stderr.on("data", collect)
  const exited = new Promise<number | string | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal))
  )
  const ready = await new Promise<{ url: string; ui: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dbdesk serve did not start within 60 s:\n${output}`)), 60_000)
    const check = () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1]
      const ui = /dbdesk UI: (http:\/\/127\.0\.0\.1:\d+\/\?key=\S+)/.exec(output)?.[1]
      if (url === undefined || ui === undefined || (alsoWaitFor !== undefined && !alsoWaitFor.test(output))) return
      clearTimeout(timer)
      resolve({ url, ui })
    }
    child.stdout.on("data", check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`dbdesk serve exited (${code}) before it listened:\n${output}`))
    })
  })
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    await exited
    clearTimeout(timer)
  }
  return {
    child,
    pid: child.pid!,
    url: ready.url,
    port: Number(new URL(ready.url).port),
    uiOrigin: new URL(ready.ui).origin,
    uiLaunchUrl: ready.ui,
    output: () => output,
    exited,
    inspector: /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1],
    stop
  }
}

export type TokenKind = "readOnly" | "readWrite" | "fullAccess" | "revoked" | "expired"

/** Runs an Effect needing the token store of `home` (the server is stopped meanwhile, or picks the change up). */
const withTokens = <A>(home: string, use: (tokens: Tokens) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Tokens, use).pipe(Effect.provide(Tokens.Default.pipe(Layer.provide(SupportPaths.layer(home)))))
    )
  )

/** One token of each kind, created in `home`'s tokens.json; every value is registered for the secrets scan. */
export const createTokens = async (
  home: string,
  part: string,
  more = 0
): Promise<Record<TokenKind, string> & { readonly more: ReadonlyArray<string> }> => {
  const made = await withTokens(home, (tokens) =>
    Effect.gen(function*() {
      const level = (access: "readOnly" | "readWrite" | "fullAccess", extra: { readonly expiresAt?: Date } = {}) =>
        Effect.map(
          tokens.create({
            name: `reliability ${access}${extra.expiresAt === undefined ? "" : " expired"}`,
            access,
            connections: "all",
            ...extra
          }),
          (created) => created
        )
      const readOnly = yield* level("readOnly")
      const readWrite = yield* level("readWrite")
      const fullAccess = yield* level("fullAccess")
      const expired = yield* level("readWrite", { expiresAt: new Date(Date.now() - 60_000) })
      const revoked = yield* level("readWrite")
      yield* tokens.revoke(revoked.token.id)
      const extra = yield* Effect.forEach(Array.from({ length: more }, (_, index) => index), (index) =>
        Effect.map(
          tokens.create({ name: `reliability caller ${index}`, access: "readOnly", connections: "all" }),
          (created) => created.value
        ))
      return {
        readOnly: readOnly.value,
        readWrite: readWrite.value,
        fullAccess: fullAccess.value,
        revoked: revoked.value,
        expired: expired.value,
        more: extra
      }
    }))
  for (const [kind, value] of Object.entries(made)) {
    if (typeof value === "string") registerSecret(part, `token ${kind}`, value)
  }
  for (const value of made.more) registerSecret(part, "token caller", value)
  return made
}

export interface PreparedServe {
  readonly home: string
  readonly logFile: string
  readonly process: ServeProcess
  readonly tokens: Record<TokenKind, string>
  /** `moreTokens` readOnly tokens, one per simulated caller. */
  readonly callers: ReadonlyArray<string>
  /** The printed "Default" token (readWrite). */
  readonly defaultToken: string
  readonly bridgeToken: () => string
  readonly sampleId: string
  /** The UI session cookie (after the key exchange). */
  readonly uiCookie: string
  readonly restart: () => Promise<PreparedServe>
}

export interface PrepareOptions {
  readonly directory: string
  readonly part: string
  /** settings.json before the first start. */
  readonly settings?: Record<string, unknown>
  /** Connections added to connections.json after the first start (their secrets are registered). */
  readonly connections?: ReadonlyArray<Record<string, unknown>>
  /** readOnly tokens to create besides one of each kind. */
  readonly moreTokens?: number
  /** Start with the inspector on loopback, so heapAfterGc can collect and measure the heap. */
  readonly inspect?: boolean
}

/** The UI's key exchange: the session cookie of a launch URL. */
export const exchangeKey = async (launchUrl: string): Promise<string> => {
  const response = await fetch(launchUrl, { redirect: "manual" })
  const cookie = response.headers.get("set-cookie")?.split(";")[0]
  if (cookie === undefined) throw new Error(`the UI key exchange failed: ${response.status}`)
  return cookie
}

/**
 * A support directory with the sample connection, `connections` and a token of each kind, and `serve` running on it.
 * The first start creates the sample database, its connection and the printed "Default" token.
 */
export const prepareServe = async (options: PrepareOptions): Promise<PreparedServe> => {
  const home = join(options.directory, "home")
  mkdirSync(home, { recursive: true, mode: 0o700 })
  const logFile = join(options.directory, "serve.log")
  if (options.settings !== undefined) {
    writeFileSync(join(home, "settings.json"), JSON.stringify(options.settings, null, 2), { mode: 0o600 })
  }
  const first = await spawnServe(home, logFile, /^dbd_[A-Za-z0-9_-]{43}$/m)
  const defaultToken = /^(dbd_[A-Za-z0-9_-]{43})$/m.exec(first.output())?.[1]
  await first.stop()
  if (defaultToken === undefined) throw new Error(`serve printed no Default token:\n${first.output()}`)
  registerSecret(options.part, "token Default", defaultToken)
  const file = join(home, "connections.json")
  const saved = JSON.parse(readFileSync(file, "utf8")) as { version: 1; connections: Array<Record<string, unknown>> }
  for (const connection of options.connections ?? []) {
    for (const key of ["password", "apiKey"]) {
      if (typeof connection[key] === "string") {
        registerSecret(options.part, `connection ${key}`, connection[key])
      }
    }
  }
  writeFileSync(
    file,
    JSON.stringify({ version: 1, connections: [...saved.connections, ...(options.connections ?? [])] }, null, 2),
    { mode: 0o600 }
  )
  const { more: callers, ...tokens } = await createTokens(home, options.part, options.moreTokens ?? 0)
  const sampleId = String(saved.connections[0]!["id"])
  const start = async (): Promise<PreparedServe> => {
    const running = await spawnServe(home, logFile, undefined, options.inspect === true)
    const bridgeToken = () => {
      const value = String(JSON.parse(readFileSync(join(home, "mcp-handshake.json"), "utf8")).bridgeToken)
      registerSecret(options.part, "bridge token", value)
      return value
    }
    bridgeToken()
    registerSecret(options.part, "ui key", new URL(running.uiLaunchUrl).searchParams.get("key")!)
    const uiCookie = await exchangeKey(running.uiLaunchUrl)
    registerSecret(options.part, "ui session", uiCookie.slice(uiCookie.indexOf("=") + 1))
    return {
      home,
      logFile,
      process: running,
      tokens,
      callers,
      defaultToken,
      bridgeToken,
      sampleId,
      uiCookie,
      restart: start
    }
  }
  return start()
}

/** Calls the UI API of a running serve with its session cookie. */
export const uiApi = async (
  serve: PreparedServe,
  path: string,
  init: { readonly method?: string; readonly body?: unknown } = {}
) => {
  const response = await fetch(`${serve.process.uiOrigin}${path}`, {
    method: init.method ?? "GET",
    headers: { cookie: serve.uiCookie, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, text, json }
}

/**
 * The user refusing every dialog the app shows (statement approvals and connection access), through the UI API as the
 * UI's modal does. Counts what it answered; `stop` ends the loop.
 */
export const denyEveryApproval = (serve: PreparedServe) => {
  let running = true
  let denied = 0
  const loop = (async () => {
    while (running) {
      const pending = await uiApi(serve, "/api/approvals").catch(() => undefined)
      for (const approval of (pending?.json ?? []) as Array<{ id: string }>) {
        const answer = await uiApi(serve, `/api/approvals/${approval.id}`, {
          method: "POST",
          body: { decision: "denied" }
        }).catch(() => undefined)
        if (answer?.json?.answered === true) denied++
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })()
  return {
    denied: () => denied,
    stop: async () => {
      running = false
      await loop
    }
  }
}

/** A port nothing listens on (bound, then closed). */
export const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

/** A recognisable fake secret (a password, an API key) for a part to configure and the scan to look for. */
export const fakeSecret = (kind: string) => `dbdesk-secret-${kind}-${randomBytes(9).toString("hex")}`

/** Over the inspector (Chrome DevTools Protocol), run from a child with Node 20's WebSocket: two full collections, then the heap in use. */
const HEAP_AFTER_GC = `
const ws = new WebSocket(process.argv.at(-1))
let id = 0
const pending = new Map()
const call = (method) => new Promise((resolve, reject) => { const n = ++id; pending.set(n, { resolve, reject }); ws.send(JSON.stringify({ id: n, method, params: {} })) })
ws.onmessage = (event) => { const m = JSON.parse(event.data); const p = pending.get(m.id); if (p === undefined) return; pending.delete(m.id); m.error ? p.reject(new Error(m.error.message)) : p.resolve(m.result) }
ws.onopen = async () => { await call("HeapProfiler.enable"); await call("HeapProfiler.collectGarbage"); await call("HeapProfiler.collectGarbage"); console.log(JSON.stringify(await call("Runtime.getHeapUsage"))); ws.close() }
ws.onerror = () => process.exit(1)
`

/** The JavaScript heap in use after a full collection, and the process's RSS right after it, in KiB. */
export const heapAfterGc = async (
  serve: ServeProcess
): Promise<{ readonly heapKib: number; readonly rssKib: number }> => {
  if (serve.inspector === undefined) throw new Error("serve was not started with the inspector")
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--experimental-websocket",
    "--no-warnings",
    "-e",
    HEAP_AFTER_GC,
    serve.inspector
  ], { timeout: 60_000 })
  const usage = JSON.parse(stdout) as { usedSize: number }
  return { heapKib: Math.round(usage.usedSize / 1024), rssKib: rssKib(serve.pid) }
}

/** VmRSS of a process in KiB (Linux /proc). */
export const rssKib = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  if (match === null) throw new Error(`no VmRSS for ${pid}`)
  return Number(match[1])
}
