/**
 * The peers as their users run them, bound to loopback, each in its own process, against the bench's own throwaway
 * databases. Each one's configuration was read before running it (bench/README.md "Peers" lists what each does per
 * call); only what binds it to 127.0.0.1, points it at the database and, for DBHub, turns its bearer check on differs
 * from the documented defaults.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort } from "../../test/support/PostgresHarness.ts"
import { stopChild } from "../proc.ts"
import type { InstalledPeers } from "./install.ts"
import type { StdioCommand } from "./stdio.ts"

const BENCH = fileURLToPath(new URL("../", import.meta.url))
const ROOT = join(BENCH, "..")

export const MODERN = "2026-07-28"

/** One request as every HTTP server receives it: body and headers built the way the 2.4.0 client shapes them. */
export interface HttpRequest {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

export interface RequestSpec {
  readonly method: string
  readonly name?: string
  readonly arguments?: Record<string, unknown>
  readonly id: number
  /** Asks for progress notifications: the answer is an SSE stream. */
  readonly progressToken?: string
}

export const httpRequest = (spec: RequestSpec, token: string | undefined): HttpRequest => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "dbdesk-bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...(spec.progressToken === undefined ? {} : { progressToken: spec.progressToken })
  }
  const params = spec.name === undefined
    ? { _meta: meta }
    : { name: spec.name, arguments: spec.arguments ?? {}, _meta: meta }
  const body = JSON.stringify({ jsonrpc: "2.0", id: spec.id, method: spec.method, params })
  return {
    body,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": spec.method,
      ...(spec.name === undefined ? {} : { "mcp-name": spec.name }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      "content-length": String(Buffer.byteLength(body))
    }
  }
}

/** How a server's SQL tool is called: its name and the argument object for one statement. */
export interface SqlTool {
  readonly name: string
  readonly args: (sql: string) => Record<string, unknown>
}

export interface HttpServer {
  readonly name: string
  readonly url: string
  readonly pid: number
  readonly token: string | undefined
  readonly sqlTool: SqlTool
  readonly stop: () => Promise<void>
}

/** Spawns a server and waits until its output matches `ready` (stdout and stderr both read). */
const startProcess = (
  name: string,
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  cwd: string
) =>
  new Promise<{ child: ChildProcess; match: RegExpExecArray }>((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${name} did not start within 60 s: ${out.slice(-800)}`))
    }, 60_000)
    const onData = (chunk: Buffer) => {
      if (out.length < 200_000) out += chunk.toString("utf8")
      const match = ready.exec(out)
      if (match !== null) {
        clearTimeout(timer)
        child.stdout.removeAllListeners("data").resume()
        child.stderr.removeAllListeners("data").resume()
        resolve({ child, match })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${signal ?? code}) before it was ready: ${out.slice(-800)}`))
    })
  })

/** A working directory of its own, so no peer picks up a configuration file lying around. */
const scratch = (name: string) => mkdtempSync(join(tmpdir(), `dbdesk-peer-${name}-`))

/** The database a peer is pointed at: PostgreSQL (host, role) or a SQLite file. */
export type Target =
  | {
    readonly kind: "postgresql"
    readonly host: string
    readonly port: number
    readonly database: string
    readonly user: string
    readonly password: string
  }
  | { readonly kind: "sqlite"; readonly path: string }

const dsnOf = (target: Target) =>
  target.kind === "sqlite"
    ? `sqlite://${target.path}`
    : `postgres://${target.user}:${
      encodeURIComponent(target.password)
    }@${target.host}:${target.port}/${target.database}?sslmode=disable`

/**
 * DBHub 1.4.0: `dbhub --transport http --dsn …` as its README starts it, plus `--host 127.0.0.1` (its default is
 * 0.0.0.0) and `--auth-token` (so it checks a bearer as dbdesk does). Its default tools: `execute_sql` (no read-only
 * transaction and no row cap unless a dbhub.toml asks) and `search_objects`.
 */
export const startDbhub = async (
  peers: Pick<InstalledPeers, "node22" | "dbhub">,
  target: Target
): Promise<HttpServer> => {
  const cwd = scratch("dbhub")
  const token = randomBytes(24).toString("hex")
  const { child, match } = await startProcess(
    "DBHub",
    peers.node22,
    [
      peers.dbhub,
      "--transport",
      "http",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--dsn",
      dsnOf(target),
      "--auth-token",
      token
    ],
    { ...process.env, NODE_ENV: "production" },
    /HTTP server listening on 127\.0\.0\.1:(\d+)/,
    cwd
  )
  return {
    name: "DBHub",
    url: `http://127.0.0.1:${match[1]}/mcp`,
    pid: child.pid!,
    token,
    sqlTool: { name: "execute_sql", args: (sql) => ({ sql }) },
    stop: async () => {
      await stopChild(child)
      rmSync(cwd, { recursive: true, force: true })
    }
  }
}

/** Toolbox's prebuilt configuration for a database (`--prebuilt postgres|sqlite`), read from the environment. */
const toolboxEnv = (target: Target): NodeJS.ProcessEnv =>
  target.kind === "sqlite"
    ? { SQLITE_DATABASE: target.path }
    : {
      POSTGRES_HOST: target.host,
      POSTGRES_PORT: String(target.port),
      POSTGRES_DATABASE: target.database,
      POSTGRES_USER: target.user,
      POSTGRES_PASSWORD: target.password
    }

const toolboxArgs = (
  target: Target
) => ["--prebuilt", target.kind === "sqlite" ? "sqlite" : "postgres", "--disable-version-check", "--disable-reload"]

/**
 * MCP Toolbox for Databases 1.12.0, the Go binary with its prebuilt configuration (`--prebuilt postgres`: 29 tools,
 * `execute_sql` among them; `--prebuilt sqlite`: `execute_sql`, `list_tables`), `--address 127.0.0.1` (its default too)
 * on a free port, Host and Origin narrowed to loopback (its defaults are `*`), no version check (no network), no
 * config reload polling. No auth: the prebuilt configurations have none.
 */
export const startToolbox = async (peers: Pick<InstalledPeers, "toolbox">, target: Target): Promise<HttpServer> => {
  const cwd = scratch("toolbox")
  const port = await freePort()
  const { child } = await startProcess(
    "Toolbox",
    peers.toolbox,
    [
      ...toolboxArgs(target),
      "--address",
      "127.0.0.1",
      "--port",
      String(port),
      "--allowed-hosts",
      "127.0.0.1",
      "--allowed-origins",
      "http://127.0.0.1"
    ],
    { ...process.env, ...toolboxEnv(target) },
    /Server ready to serve/,
    cwd
  )
  return {
    name: "Toolbox",
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid!,
    token: undefined,
    sqlTool: { name: "execute_sql", args: (sql) => ({ sql }) },
    stop: async () => {
      await stopChild(child)
      rmSync(cwd, { recursive: true, force: true })
    }
  }
}

/** The node:http ceiling (bench/servers/ceiling.ts) with dbdesk's captured answers. */
export const startCeiling = (fixturePath: string) =>
  startProcess(
    "ceiling",
    process.execPath,
    ["--import", "tsx", join(BENCH, "servers/ceiling.ts"), fixturePath],
    process.env,
    /^READY (\S+)$/m,
    ROOT
  )
    .then(({ child, match }): Omit<HttpServer, "sqlTool"> => ({
      name: "ceiling",
      url: match[1]!,
      pid: child.pid!,
      token: undefined,
      stop: () => stopChild(child)
    }))

/** The stdio commands: the same servers started by a host (DBHub and Toolbox in their stdio mode, the reference server). */
export const stdioCommands = (
  peers: Partial<InstalledPeers>,
  target: Target
): ReadonlyArray<{ readonly name: string; readonly command: StdioCommand; readonly sqlTool: SqlTool }> => {
  const sql: SqlTool = { name: "execute_sql", args: (text) => ({ sql: text }) }
  const commands: Array<{ name: string; command: StdioCommand; sqlTool: SqlTool }> = []
  if (peers.node22 !== undefined && peers.dbhub !== undefined) {
    commands.push({
      name: "DBHub",
      command: {
        command: peers.node22,
        args: [peers.dbhub, "--transport", "stdio", "--dsn", dsnOf(target)],
        cwd: tmpdir()
      },
      sqlTool: sql
    })
  }
  if (peers.toolbox !== undefined) {
    commands.push({
      name: "Toolbox",
      command: {
        command: peers.toolbox,
        args: [...toolboxArgs(target), "--stdio"],
        env: { ...process.env, ...toolboxEnv(target) },
        cwd: tmpdir()
      },
      sqlTool: sql
    })
  }
  if (peers.serverPostgres !== undefined && target.kind === "postgresql") {
    // The reference server: one `query` tool, BEGIN TRANSACTION READ ONLY then the statement (its ROLLBACK is not awaited).
    const url = `postgresql://${target.user}:${
      encodeURIComponent(target.password)
    }@${target.host}:${target.port}/${target.database}`
    commands.push({
      name: "server-postgres",
      command: { command: process.execPath, args: [peers.serverPostgres, url], cwd: tmpdir() },
      sqlTool: { name: "query", args: (text) => ({ sql: text }) }
    })
  }
  return commands
}
