// A throwaway PostgreSQL cluster per test file, exactly as D-61 describes: Debian's binaries,
// a root-safe initdb through runuser, a free port on 127.0.0.1, its own socket directory, removed afterwards.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

export const PG_BIN = process.env["DBDESK_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"

/** Whether the server binaries are here; the PostgreSQL suites skip with this message when they are not. */
export const postgresAvailable = existsSync(join(PG_BIN, "initdb")) && existsSync(join(PG_BIN, "pg_ctl"))
export const POSTGRES_MISSING =
  `PostgreSQL server binaries not found in ${PG_BIN}: install them with \`apt-get install -y postgresql\` (or set DBDESK_PG_BIN); CI installs them`

export interface PostgresServer {
  readonly host: "127.0.0.1"
  readonly port: number
  /** The database and the non-superuser role the connection under test uses. */
  readonly database: string
  readonly user: string
  readonly password: string
  /** A superuser pool on the database under test, for arranging data and watching pg_stat_activity. */
  readonly admin: pg.Pool
  /** Runs one statement (or several, without values) as the superuser on the database under test; the rows as objects. */
  readonly sql: <R = Record<string, any>>(text: string, values?: ReadonlyArray<unknown>) => Promise<Array<R>>
  /** A new connected client (superuser unless `role: "app"`), on the database under test unless `database` says otherwise. */
  readonly client: (options?: { readonly database?: string; readonly role?: "admin" | "app" }) => Promise<pg.Client>
  /** `pg_ctl restart -m <mode>` on the same port; waits until the server accepts connections again. */
  readonly restart: (mode: "fast" | "immediate") => Promise<void>
  /** Every statement the server received (`log_statement = all`). */
  readonly log: () => string
  readonly version: string
  readonly stop: () => Promise<void>
}

const isRoot = process.getuid?.() === 0

/** Runs a server binary as the `postgres` user when we are root (initdb refuses root), else as ourselves. */
const runPg = (binary: string, args: ReadonlyArray<string>): string => {
  const path = join(PG_BIN, binary)
  const [command, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, [...args]]
  return execFileSync(command, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
}

const ownedByPostgres = (path: string): void => {
  if (!isRoot) return
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
  chownSync(path, uid, gid)
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(
        () => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
      )
    })
  })

const secret = (): string => randomBytes(12).toString("hex")

export interface PostgresOptions {
  /** `log_statement = all` (the default, for tests that read `log()`); the bench turns it off so logging costs nothing. */
  readonly logStatements?: boolean
  /**
   * Serve TLS with these files (the server's certificate and key, the CA that signs client certificates); with
   * `certUser`, that role logs in over TLS by client certificate only (pg_hba `hostssl … cert`).
   */
  readonly tls?: { readonly ca: string; readonly cert: string; readonly key: string; readonly certUser?: string }
}

/** Copies the TLS files into the cluster's directory, owned by the server's user (the key 0600, as PostgreSQL demands). */
const tlsSettings = (root: string, data: string, tls: NonNullable<PostgresOptions["tls"]>): string => {
  const files = { ca: join(root, "tls-ca.crt"), cert: join(root, "tls-server.crt"), key: join(root, "tls-server.key") }
  copyFileSync(tls.ca, files.ca)
  copyFileSync(tls.cert, files.cert)
  copyFileSync(tls.key, files.key)
  chmodSync(files.key, 0o600)
  for (const path of Object.values(files)) ownedByPostgres(path)
  if (tls.certUser !== undefined) {
    const hba = join(data, "pg_hba.conf")
    writeFileSync(
      hba,
      `hostssl all ${tls.certUser} 127.0.0.1/32 cert\nhost all ${tls.certUser} 127.0.0.1/32 reject\n${
        readFileSync(hba, "utf8")
      }`
    )
  }
  return ` -c ssl=on -c ssl_cert_file=${files.cert} -c ssl_key_file=${files.key} -c ssl_ca_file=${files.ca}`
}

/** initdb + pg_ctl start; the package's own `main` cluster (port 5432) is never touched. */
export const startPostgres = async (settings: PostgresOptions = {}): Promise<PostgresServer> => {
  if (!postgresAvailable) throw new Error(POSTGRES_MISSING)
  const root = mkdtempSync(join(tmpdir(), "dbdesk-pg-"))
  const data = join(root, "data")
  const sockets = join(root, "sockets")
  const logFile = join(root, "server.log")
  const adminPassword = secret()
  mkdirSync(sockets)
  writeFileSync(join(root, "pwfile"), `${adminPassword}\n`, { mode: 0o600 })
  for (const path of [root, sockets, join(root, "pwfile")]) ownedByPostgres(path)
  let started = false
  try {
    runPg("initdb", [
      "-D",
      data,
      "-U",
      "dbdesk_admin",
      `--pwfile=${join(root, "pwfile")}`,
      "--auth-local=trust",
      "--auth-host=scram-sha-256",
      "-E",
      "UTF8",
      "--no-sync"
    ])
    const tlsOptions = settings.tls === undefined ? "" : tlsSettings(root, data, settings.tls)
    let port = 0
    let options = ""
    for (let attempt = 1; !started; attempt++) {
      port = await freePort()
      options = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c log_statement=${
        settings.logStatements === false ? "none" : "all"
      } -c fsync=off -c max_connections=60${tlsOptions}`
      try {
        runPg("pg_ctl", ["-D", data, "-l", logFile, "-o", options, "-w", "-t", "60", "start"])
        started = true
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
    const connectionOf = (database: string, role: "admin" | "app"): pg.ClientConfig =>
      role === "admin"
        ? { host: "127.0.0.1", port, user: "dbdesk_admin", password: adminPassword, database }
        : { host: "127.0.0.1", port, user, password, database }
    const client = async (options: { readonly database?: string; readonly role?: "admin" | "app" } = {}) => {
      const opened = new pg.Client(connectionOf(options.database ?? databaseName, options.role ?? "admin"))
      // A client whose backend a test terminates emits 'error'; unlistened, that would end the test process.
      opened.on("error", () => {})
      await opened.connect()
      return opened
    }
    const user = "dbdesk_app"
    const password = `pw-${secret()}`
    const databaseName = "dbdesk_test"
    const bootstrap = await client({ database: "postgres" })
    await bootstrap.query(`CREATE ROLE ${user} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`)
    await bootstrap.query(`CREATE DATABASE ${databaseName} OWNER ${user}`)
    if (settings.tls?.certUser !== undefined) {
      await bootstrap.query(`CREATE ROLE ${settings.tls.certUser} LOGIN NOSUPERUSER`)
    }
    await bootstrap.end()
    const admin = new pg.Pool({ ...connectionOf(databaseName, "admin"), max: 4 })
    admin.on("error", () => {})
    const sql = async <R>(text: string, values?: ReadonlyArray<unknown>): Promise<Array<R>> =>
      (await admin.query(text, values === undefined ? undefined : [...values])).rows as Array<R>
    const [row] = await sql<{ server_version: string }>("SHOW server_version")
    const restart = async (mode: "fast" | "immediate") => {
      runPg("pg_ctl", ["-D", data, "-l", logFile, "-o", options, "-m", mode, "-w", "-t", "60", "restart"])
      await eventually(() => sql("SELECT 1").then(() => true, () => false), "the restarted server accepts connections")
    }
    const stop = async () => {
      await admin.end().catch(() => {})
      try {
        runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    }
    return {
      host: "127.0.0.1",
      port,
      database: databaseName,
      user,
      password,
      admin,
      sql,
      client,
      restart,
      log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
      version: row?.server_version ?? "unknown",
      stop
    }
  } catch (error) {
    if (started) {
      try {
        runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } catch {
        // already down
      }
    }
    rmSync(root, { recursive: true, force: true })
    throw error
  }
}

/** Statements of the role under test still running (or idle in a transaction) whose text contains `marker`. */
export const runningStatements = async (server: PostgresServer, marker: string): Promise<number> => {
  const rows = await server.sql<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND state <> 'idle' AND position($2 in query) > 0 AND pid <> pg_backend_pid()",
    [server.user, marker]
  )
  return rows[0]?.n ?? 0
}

/**
 * Whether the server log shows the statement holding `marker` ended by a cancel request (not by its own
 * statement_timeout backstop, whose message says "statement timeout").
 */
export const cancelledByRequest = (server: PostgresServer, marker: string): boolean => {
  const lines = server.log().split("\n")
  return lines.some((line, index) =>
    line.includes("ERROR:  canceling statement due to user request") &&
    (lines[index + 1] ?? "").includes("STATEMENT:") &&
    (lines[index + 1] ?? "").includes(marker)
  )
}

/** Polls until `check` holds, at most 600 times 50 ms apart (a generous cap, not a timing assertion). */
export const eventually = async (check: () => Promise<boolean> | boolean, what: string): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

/** A backend of the role under test that is not plain idle: running a statement or idle inside a transaction. */
export interface BusyBackend {
  readonly pid: number
  readonly state: string
  readonly query: string
}

export const busyBackends = (server: PostgresServer): Promise<Array<BusyBackend>> =>
  server.sql<BusyBackend>(
    "SELECT pid, state, query FROM pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid()",
    [server.user]
  )

/**
 * The oracle of the fault scenarios (D-73): within `seconds` no backend of the role under test is idle in a
 * transaction or still running a statement. Resolves with the backends seen last when they never cleared.
 */
export const backendsSettle = async (server: PostgresServer, seconds = 2): Promise<Array<BusyBackend>> => {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const busy = await busyBackends(server).catch(() => [{ pid: 0, state: "unreachable", query: "" }])
    if (busy.length === 0 || Date.now() > until) return busy
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
