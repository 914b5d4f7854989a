// A throwaway PostgreSQL cluster per test file, exactly as product-decisions §10 describes: Debian's binaries,
// a root-safe initdb through runuser, a free port on 127.0.0.1, its own socket directory, removed afterwards.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import postgres from "postgres"

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
  /** A superuser connection to the database under test, for arranging data and watching pg_stat_activity. */
  readonly admin: postgres.Sql
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

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

const secret = (): string => randomBytes(12).toString("hex")

/** initdb + pg_ctl start; the package's own `main` cluster (port 5432) is never touched. */
export const startPostgres = async (): Promise<PostgresServer> => {
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
    runPg("initdb", ["-D", data, "-U", "dbdesk_admin", `--pwfile=${join(root, "pwfile")}`, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"])
    let port = 0
    for (let attempt = 1; !started; attempt++) {
      port = await freePort()
      const options = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c log_statement=all -c fsync=off -c max_connections=40`
      try {
        runPg("pg_ctl", ["-D", data, "-l", logFile, "-o", options, "-w", "-t", "60", "start"])
        started = true
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
    const superuser = (database: string) =>
      postgres({ host: "127.0.0.1", port, user: "dbdesk_admin", password: adminPassword, database, onnotice: () => {}, max: 2 })
    const user = "dbdesk_app"
    const password = `pw-${secret()}`
    const database = "dbdesk_test"
    const bootstrap = superuser("postgres")
    await bootstrap.unsafe(`CREATE ROLE ${user} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`)
    await bootstrap.unsafe(`CREATE DATABASE ${database} OWNER ${user}`)
    await bootstrap.end()
    const admin = superuser(database)
    const [row] = await admin.unsafe<Array<{ server_version: string }>>("SHOW server_version")
    const stop = async () => {
      await admin.end({ timeout: 5 }).catch(() => {})
      try {
        runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    }
    return {
      host: "127.0.0.1",
      port,
      database,
      user,
      password,
      admin,
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
  const rows = await server.admin.unsafe<Array<{ n: number }>>(
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
    line.includes("ERROR:  canceling statement due to user request") && (lines[index + 1] ?? "").includes("STATEMENT:") &&
    (lines[index + 1] ?? "").includes(marker))
}

/** Polls until `check` holds, at most 600 times 50 ms apart (a generous cap, not a timing assertion). */
export const eventually = async (check: () => Promise<boolean> | boolean, what: string): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}
