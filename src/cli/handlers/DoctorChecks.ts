import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { AI_CLIENTS, launchOfEntry, serverEntryIn } from "../../domain/AiClients.ts"
import { defaultSettings, Settings } from "../../domain/Settings.ts"
import { TokenFile } from "../../domain/Token.ts"
import { readFileIfExists } from "../../services/AtomicFile.ts"
import { type HandshakeFile, isPidAlive, readHandshake } from "../../services/Handshake.ts"
import type { SupportFiles } from "../../services/SupportDirectory.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { packageRoot } from "../../services/PackageInfo.ts"
import { clientPlatform, userDirectories } from "../../services/BridgeLaunch.ts"
import { probeConnections } from "../ConnectionProbe.ts"
import { decodeJsonFile, readConnections } from "../SupportFiles.ts"
import { tunnelChecks } from "./DoctorTunnels.ts"

export type CheckStatus = "ok" | "warn" | "fail"

/** One finding of `dbdesk doctor`: what was checked, what was found, and what to do about it. */
export interface Check {
  readonly id: string
  readonly title: string
  readonly status: CheckStatus
  readonly detail: string
  readonly fix?: string
}

const check = (id: string, title: string, status: CheckStatus, detail: string, fix?: string): Check =>
  fix === undefined ? { id, title, status, detail } : { id, title, status, detail, fix }

const stat = (file: string) => Effect.promise(() => fs.stat(file).catch(() => undefined))
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`
const posix = process.platform !== "win32"

export const nodeCheck = Effect.promise(async () => {
  const manifest = JSON.parse(await fs.readFile(path.join(packageRoot(), "package.json"), "utf8")) as {
    engines?: { node?: string }
  }
  const wanted = /(\d+)\.(\d+)/.exec(manifest.engines?.node ?? "") ?? ["", "20", "19"]
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number]
  const ok = major > Number(wanted[1]) || (major === Number(wanted[1]) && minor >= Number(wanted[2]))
  return check(
    "node",
    "Node.js version",
    ok ? "ok" : "fail",
    `Node ${process.versions.node} (dbdesk needs ${wanted[1]}.${wanted[2]} or later)`,
    ok
      ? undefined
      : `install Node.js ${wanted[1]}.${
        wanted[2]
      } or later (nodejs.org, or your version manager), then npm install again`
  )
})

export const directoryChecks = (files: SupportFiles) =>
  Effect.gen(function*() {
    const dir = yield* stat(files.directory)
    if (dir === undefined) {
      return [
        check(
          "support-directory",
          "Support directory",
          "warn",
          `${files.directory} does not exist yet`,
          "run dbdesk serve once: it creates the directory (0700) and its files"
        )
      ]
    }
    if (!dir.isDirectory()) {
      return [
        check(
          "support-directory",
          "Support directory",
          "fail",
          `${files.directory} is not a directory`,
          `move it away; dbdesk keeps its files in ${files.directory}`
        )
      ]
    }
    const found: Array<Check> = []
    const uid = process.getuid?.()
    if (posix && uid !== undefined && dir.uid !== uid) {
      found.push(
        check(
          "support-directory",
          "Support directory",
          "fail",
          `${files.directory} belongs to another user (uid ${dir.uid})`,
          `chown -R $(id -u) "${files.directory}"`
        )
      )
    } else if (posix && (dir.mode & 0o077) !== 0) {
      found.push(
        check(
          "support-directory",
          "Support directory",
          "fail",
          `${files.directory} is ${octal(dir.mode)}: other users can look inside`,
          `chmod 700 "${files.directory}"`
        )
      )
    } else {
      found.push(check("support-directory", "Support directory", "ok", `${files.directory}${posix ? " (0700)" : ""}`))
    }
    const secrets = [files.handshake, files.connections, files.tokens, files.history, files.activity]
    const open: Array<string> = []
    for (const file of secrets) {
      const info = yield* stat(file)
      if (info !== undefined && posix && (info.mode & 0o077) !== 0) {
        open.push(`${path.basename(file)} (${octal(info.mode)})`)
      }
    }
    found.push(
      open.length === 0
        ? check(
          "file-permissions",
          "Private files",
          "ok",
          "connections, tokens, handshake, history and activity files are readable by you only"
        )
        : check(
          "file-permissions",
          "Private files",
          "fail",
          `readable by other users: ${open.join(", ")}`,
          `chmod 600 ${open.map((entry) => `"${path.join(files.directory, entry.split(" ")[0]!)}"`).join(" ")}`
        )
    )
    return found
  })

export const settingsCheck = (files: SupportFiles) =>
  Effect.gen(function*() {
    const text = yield* Effect.either(readFileIfExists(files.settings))
    if (Either.isLeft(text)) {
      return {
        settings: defaultSettings(),
        check: check(
          "settings",
          "Settings",
          "fail",
          text.left.message,
          `fix or delete ${files.settings} (the defaults come back)`
        )
      }
    }
    if (text.right === undefined) {
      return {
        settings: defaultSettings(),
        check: check("settings", "Settings", "ok", "no settings.json yet: the defaults apply")
      }
    }
    const decoded = decodeJsonFile(Settings, text.right)
    if (Either.isLeft(decoded)) {
      return {
        settings: defaultSettings(),
        check: check(
          "settings",
          "Settings",
          "fail",
          `${files.settings} is not valid: ${decoded.left}`,
          `fix or delete ${files.settings} (the defaults come back)`
        )
      }
    }
    return {
      settings: decoded.right,
      check: check(
        "settings",
        "Settings",
        "ok",
        `${files.settings} (MCP port ${decoded.right.mcp.port}, authentication ${
          decoded.right.mcp.requireAuth ? "on" : "off"
        })`
      )
    }
  })

/** Asks the server the handshake names for its instance id, as the bridge does (D-53). */
const discover = (port: number) =>
  Effect.tryPromise(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "doctor",
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      }),
      signal: AbortSignal.timeout(3000)
    })
    const body = (await response.json()) as { result?: { _meta?: Record<string, unknown> } }
    return body.result?._meta?.["dev.dbdesk/instanceId"]
  })

export const serverCheck = (files: SupportFiles) =>
  Effect.gen(function*() {
    const handshake = yield* Effect.orElseSucceed(readHandshake(files.handshake), () => undefined)
    if (handshake === undefined) {
      return {
        running: undefined,
        check: check(
          "server",
          "Running server",
          "warn",
          "dbdesk is not running (no handshake file)",
          "start it with dbdesk serve; AI clients reach it through the bridge only while it runs"
        )
      }
    }
    if (!isPidAlive(handshake.pid)) {
      return {
        running: undefined,
        check: check(
          "server",
          "Running server",
          "warn",
          `the handshake file names pid ${handshake.pid}, which is not running (the server did not stop cleanly)`,
          "start dbdesk serve: it replaces the stale file"
        )
      }
    }
    const instance = yield* Effect.either(discover(handshake.port))
    if (Either.isRight(instance) && instance.right === handshake.instanceId) {
      return {
        running: handshake,
        check: check(
          "server",
          "Running server",
          "ok",
          `dbdesk ${handshake.pid} answers on http://127.0.0.1:${handshake.port}/mcp`
        )
      }
    }
    return {
      running: undefined,
      check: check(
        "server",
        "Running server",
        "fail",
        `the handshake file names pid ${handshake.pid} on port ${handshake.port}, but no dbdesk with its instance answers there${
          Either.isLeft(instance) ? ` (${String(instance.left.error)})` : ""
        }`,
        `stop process ${handshake.pid} if it is a hung dbdesk, or delete ${files.handshake}, then start dbdesk serve`
      )
    }
  })

const portFree = (port: number) =>
  Effect.async<boolean>((resume) => {
    const server = net.createServer()
    server.once("error", () => resume(Effect.succeed(false)))
    server.listen(port, "127.0.0.1", () => server.close(() => resume(Effect.succeed(true))))
  })

/** The UI's port in the handshake's `uiUrl`, when it names one. */
const uiPortOf = (uiUrl: string): number | undefined => {
  const port = URL.canParse(uiUrl) ? Number(new URL(uiUrl).port) : Number.NaN
  return Number.isInteger(port) && port > 0 ? port : undefined
}

/**
 * Each port as it is: with a server running, the port it really listens on (from the handshake it wrote) and, when
 * that is not the configured one, that another program holds the configured one (serve fell back to a free port).
 */
export const portChecks = (settings: Settings, running: HandshakeFile | undefined) =>
  Effect.forEach(
    [
      ["mcp-port", "MCP port", settings.mcp.port, "mcp.port", running?.port],
      ["ui-port", "UI port", settings.ui.port, "ui.port", running === undefined ? undefined : uiPortOf(running.uiUrl)]
    ] as const,
    ([id, title, port, key, actual]) => {
      const fix =
        `dbdesk serve picks a free port instead (clients read it from the handshake file); to keep a fixed one, set ${key} in settings.json`
      if (running !== undefined && actual === undefined) {
        return Effect.succeed(
          check(id, title, "ok", "in use by the running dbdesk")
        )
      }
      if (actual !== undefined && (port === 0 || actual === port)) {
        return Effect.succeed(
          check(id, title, "ok", `${actual}, used by the running dbdesk`)
        )
      }
      if (actual !== undefined) {
        return Effect.map(portFree(port), (free) =>
          free
            ? check(
              id,
              title,
              "warn",
              `the running dbdesk uses ${actual}, not the configured ${port} (free now): it was started with another setting`,
              `restart dbdesk serve to use ${port}`
            )
            : check(
              id,
              title,
              "warn",
              `the running dbdesk uses ${actual}: the configured ${port} is held by another program`,
              fix
            ))
      }
      return Effect.map(port === 0 ? Effect.succeed(true) : portFree(port), (free) =>
        free
          ? check(id, title, "ok", port === 0 ? "any free port (0)" : `${port} is free`)
          : check(id, title, "warn", `${port} is in use by another program`, fix))
    }
  )

export const sqliteCheck = Effect.tryPromise(async () => {
  const { default: Database } = await import("better-sqlite3")
  const db = new Database(":memory:")
  try {
    return (db.prepare("SELECT sqlite_version() AS version").get() as { version: string }).version
  } finally {
    db.close()
  }
}).pipe(
  Effect.map((version) => check("sqlite", "SQLite module", "ok", `better-sqlite3 loads (SQLite ${version})`)),
  Effect.catchAll((error) =>
    Effect.succeed(
      check(
        "sqlite",
        "SQLite module",
        "fail",
        `better-sqlite3 does not load: ${String(error.error).split("\n")[0]}`,
        "run npm rebuild better-sqlite3 in dbdesk's folder (it needs python3, make and a C++ compiler)"
      )
    )
  )
)

export const tokensCheck = (files: SupportFiles, settings: Settings) =>
  Effect.gen(function*() {
    const text = yield* Effect.either(readFileIfExists(files.tokens))
    const fix =
      `fix ${files.tokens}, or delete it (every token stops working) and create new ones with dbdesk token create`
    if (Either.isLeft(text)) return check("tokens", "Token store", "fail", text.left.message, fix)
    if (text.right === undefined) {
      return settings.mcp.requireAuth
        ? check(
          "tokens",
          "Token store",
          "warn",
          "no tokens yet",
          "dbdesk serve prints a \"Default\" token at its first start, or create one with dbdesk token create --name NAME --access readWrite"
        )
        : check("tokens", "Token store", "ok", "no tokens (authentication is off)")
    }
    const decoded = decodeJsonFile(TokenFile, text.right)
    if (Either.isLeft(decoded)) {
      return check("tokens", "Token store", "fail", `${files.tokens} is not valid: ${decoded.left}`, fix)
    }
    const now = Date.now()
    const active = decoded.right.tokens.filter((token) =>
      !token.bridge && token.revokedAt === undefined &&
      (token.expiresAt === undefined || Date.parse(token.expiresAt) > now)
    )
    if (settings.mcp.requireAuth && active.length === 0) {
      return check(
        "tokens",
        "Token store",
        "warn",
        "no active token: every token is revoked or expired",
        "dbdesk token create --name NAME --access readWrite"
      )
    }
    return check("tokens", "Token store", "ok", `${active.length} active token${active.length === 1 ? "" : "s"}`)
  })

export const connectionChecks = (files: SupportFiles) =>
  Effect.gen(function*() {
    const all = yield* Effect.either(readConnections(files.connections))
    if (Either.isLeft(all)) {
      return [
        check(
          "connections",
          "Connections",
          "fail",
          all.left.message,
          `fix ${files.connections}, or move it away to start again with the sample connection`
        )
      ]
    }
    if (all.right === undefined) {
      return [
        check(
          "connections",
          "Connections",
          "ok",
          "none yet: dbdesk serve creates the sample SQLite connection at its first start"
        )
      ]
    }
    if (all.right.length === 0) {
      return [check("connections", "Connections", "warn", "no connections", "add one with dbdesk connection add")]
    }
    // dbdesk's own known_hosts (in the support directory) counts for tunnelled connections, as under serve.
    const results = yield* probeConnections(all.right).pipe(Effect.provide(Layer.succeed(SupportPaths, files)))
    const tunnels = yield* tunnelChecks(all.right, files)
    return [
      ...results.map((result) => {
        const detail = `${result.type} at ${result.where}: ${result.message}`
        if (result.ok) return check(`connection:${result.id}`, `Connection "${result.name}"`, "ok", detail)
        const what = result.type === "sqlite"
          ? "that the file exists and you may read it"
          : "that its server runs and that its host, port and credentials are right"
        return check(
          `connection:${result.id}`,
          `Connection "${result.name}"`,
          "fail",
          detail,
          `check ${what} (dbdesk connection list shows its settings; dbdesk connection test ${result.id} tries again)`
        )
      }),
      ...tunnels
    ]
  })

const onPath = (command: string) =>
  Effect.promise(async () => {
    if (path.isAbsolute(command)) return fs.access(command).then(() => true, () => false)
    const extensions = process.platform === "win32" ? ["", ".cmd", ".exe"] : [""]
    for (const dir of (process.env["PATH"] ?? "").split(path.delimiter).filter((entry) => entry !== "")) {
      for (const extension of extensions) {
        if (await fs.access(path.join(dir, command + extension)).then(() => true, () => false)) return true
      }
    }
    return false
  })

export const clientChecks = (files: SupportFiles) =>
  Effect.gen(function*() {
    const found: Array<Check> = []
    for (const client of AI_CLIENTS) {
      const file = client.configPath(clientPlatform(), userDirectories())
      const text = yield* Effect.orElseSucceed(readFileIfExists(file), () => undefined)
      const entry = text === undefined ? undefined : serverEntryIn(client, text, "dbdesk")
      if (entry === undefined) continue
      const launch = launchOfEntry(entry)
      const fix = `dbdesk clients install ${client.id} rewrites the entry for this installation`
      if (launch === undefined) {
        found.push(check(`client:${client.id}`, client.name, "fail", `the dbdesk entry in ${file} has no command`, fix))
        continue
      }
      // An entry an older dbdesk wrote for a global install: npx asks a registry for dbdesk, which is in none.
      if (/^npx(\.cmd)?$/i.test(path.basename(launch.command))) {
        found.push(
          check(
            `client:${client.id}`,
            client.name,
            "fail",
            `the dbdesk entry in ${file} starts npx, which cannot fetch dbdesk: it is in no package registry`,
            fix
          )
        )
        continue
      }
      const missing: Array<string> = []
      if (!(yield* onPath(launch.command))) missing.push(launch.command)
      for (const arg of launch.args.filter((candidate) => path.isAbsolute(candidate))) {
        if (!(yield* onPath(arg))) missing.push(arg)
      }
      const home = launch.env?.["DBDESK_HOME"]
      if (missing.length > 0) {
        found.push(
          check(
            `client:${client.id}`,
            client.name,
            "fail",
            `the dbdesk entry in ${file} starts ${missing.join(" and ")}, which does not exist`,
            fix
          )
        )
      } else if (home !== undefined && path.resolve(home) !== path.resolve(files.directory)) {
        found.push(
          check(
            `client:${client.id}`,
            client.name,
            "warn",
            `the dbdesk entry in ${file} uses the support directory ${home}, not ${files.directory}`,
            `${fix} (add --home if you meant ${home})`
          )
        )
      } else found.push(check(`client:${client.id}`, client.name, "ok", `configured in ${file}`))
    }
    return found.length > 0
      ? found
      : [
        check(
          "clients",
          "AI clients",
          "warn",
          "no AI client is configured for dbdesk yet",
          "dbdesk clients list shows the clients; dbdesk clients install <client> sets one up"
        )
      ]
  })
