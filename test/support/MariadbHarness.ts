// A throwaway MariaDB server per test file (D-75): Debian's `mariadb-server` binaries, a data
// directory made by mariadb-install-db in a temp directory, a free port on 127.0.0.1, its own socket, no system
// service; run as the `mysql` user when we are root (mariadbd refuses root without --user); removed afterwards.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chownSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import mysql from "mysql2/promise"

const SERVER_BIN = process.env["DBDESK_MARIADB_BIN"] ?? "/usr/sbin"
const CLIENT_BIN = process.env["DBDESK_MARIADB_BIN"] ?? "/usr/bin"
const MARIADBD = join(SERVER_BIN, "mariadbd")
const INSTALL_DB = join(CLIENT_BIN, "mariadb-install-db")

/** Whether the server binaries are here. */
export const mariadbAvailable = existsSync(MARIADBD) && existsSync(INSTALL_DB)
export const MARIADB_MISSING =
  `MariaDB server binaries not found (${MARIADBD}, ${INSTALL_DB}): install them with \`apt-get install -y mariadb-server\` (or set DBDESK_MARIADB_BIN); CI installs them`

export interface MariadbServer {
  readonly host: "127.0.0.1"
  readonly port: number
  /** The database and the non-administrator account the connection under test uses. */
  readonly database: string
  /** A second database the account may use, for the `database` argument. */
  readonly otherDatabase: string
  readonly user: string
  readonly password: string
  /** An administrator connection (root over the socket) for arranging data and watching PROCESSLIST. */
  readonly admin: () => mysql.Connection
  readonly version: string
  /** Every statement the server received (general log). */
  readonly log: () => string
  /** Stops the server (SIGKILL: a crash, or SIGTERM: a clean shutdown) and starts it again on the same port. */
  readonly restart: (how: "crash" | "clean") => Promise<void>
  readonly stop: () => Promise<void>
}

const isRoot = process.getuid?.() === 0

const freePort = (): Promise<number> =>
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

const ownedByMysql = (path: string): void => {
  if (!isRoot) return
  const uid = Number(execFileSync("id", ["-u", "mysql"], { encoding: "utf8" }).trim())
  const gid = Number(execFileSync("id", ["-g", "mysql"], { encoding: "utf8" }).trim())
  chownSync(path, uid, gid)
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((done) => child.once("exit", () => done()))

/** Polls until `check` holds, at most 600 times 50 ms apart (a generous cap, not a timing assertion). */
export const eventually = async (check: () => Promise<boolean> | boolean, what: string): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    if (await Promise.resolve().then(check).catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

export interface MariadbOptions {
  /**
   * Serve TLS: `true` with a self-signed certificate made by openssl for CN=localhost (not trusted by any CA), or
   * with these files (the server's certificate and key, the CA that signs client certificates for `REQUIRE X509`).
   */
  readonly tls?: boolean | { readonly ca: string; readonly cert: string; readonly key: string }
}

/** Copies the TLS files next to the data directory, readable by the server's user. */
const tlsFiles = (
  root: string,
  tls: { readonly ca: string; readonly cert: string; readonly key: string }
): ReadonlyArray<string> => {
  const files = { ca: join(root, "tls-ca.crt"), cert: join(root, "tls-server.crt"), key: join(root, "tls-server.key") }
  copyFileSync(tls.ca, files.ca)
  copyFileSync(tls.cert, files.cert)
  copyFileSync(tls.key, files.key)
  for (const path of Object.values(files)) ownedByMysql(path)
  return [`--ssl-ca=${files.ca}`, `--ssl-cert=${files.cert}`, `--ssl-key=${files.key}`]
}

const selfSignedCertificate = (root: string): ReadonlyArray<string> => {
  const key = join(root, "server-key.pem")
  const cert = join(root, "server-cert.pem")
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    "/CN=localhost"
  ], { stdio: "ignore" })
  ownedByMysql(key)
  ownedByMysql(cert)
  return [`--ssl-cert=${cert}`, `--ssl-key=${key}`]
}

export const startMariadb = async (options: MariadbOptions = {}): Promise<MariadbServer> => {
  if (!mariadbAvailable) throw new Error(MARIADB_MISSING)
  const root = mkdtempSync(join(tmpdir(), "dbdesk-mariadb-"))
  const data = join(root, "data")
  const socket = join(root, "mariadb.sock")
  const logFile = join(root, "general.log")
  ownedByMysql(root)
  const userFlag = isRoot ? ["--user=mysql"] : []
  let child: ChildProcess | undefined
  const killOnExit = () => child?.kill("SIGKILL")
  process.once("exit", killOnExit)
  try {
    execFileSync(INSTALL_DB, [
      "--no-defaults",
      `--datadir=${data}`,
      ...userFlag,
      "--auth-root-authentication-method=normal",
      "--skip-test-db",
      "--skip-name-resolve"
    ], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    const port = await freePort()
    const tlsFlags = options.tls === true
      ? selfSignedCertificate(root)
      : options.tls === undefined || options.tls === false
      ? []
      : tlsFiles(root, options.tls)
    const launch = () => {
      child = spawn(MARIADBD, [
        "--no-defaults",
        `--datadir=${data}`,
        ...userFlag,
        `--port=${port}`,
        "--bind-address=127.0.0.1",
        `--socket=${socket}`,
        `--pid-file=${join(root, "mariadbd.pid")}`,
        `--log-error=${join(root, "error.log")}`,
        "--skip-name-resolve",
        "--skip-log-bin",
        "--innodb-buffer-pool-size=64M",
        "--innodb-log-file-size=16M",
        "--innodb-flush-log-at-trx-commit=0",
        "--max-connections=80",
        "--general-log=1",
        `--general-log-file=${logFile}`,
        ...tlsFlags
      ], { stdio: "ignore" })
    }
    const connectAdmin = () => mysql.createConnection({ socketPath: socket, user: "root", multipleStatements: true })
    const ready = async () => {
      await eventually(async () => {
        if (child?.exitCode !== null) {
          throw new Error(`mariadbd exited: ${readFileSync(join(root, "error.log"), "utf8").slice(-2000)}`)
        }
        const probe = await connectAdmin()
        await probe.end()
        return true
      }, "mariadbd accepting connections")
    }
    launch()
    await ready()
    const user = "dbdesk_app"
    const password = `pw-${secret()}`
    const database = "dbdesk_test"
    const otherDatabase = "dbdesk_other"
    const admins: Array<mysql.Connection> = []
    const bootstrap = await connectAdmin()
    await bootstrap.query(
      `CREATE DATABASE ${database}; CREATE DATABASE ${otherDatabase};
       CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}';
       GRANT ALL ON ${database}.* TO '${user}'@'127.0.0.1'; GRANT ALL ON ${otherDatabase}.* TO '${user}'@'127.0.0.1'`
    )
    const [versionRows] = await bootstrap.query("SELECT VERSION() AS v")
    await bootstrap.end()
    let admin = await connectAdmin()
    await admin.query(`USE ${database}`)
    admins.push(admin)
    const stopChild = async (signal: NodeJS.Signals) => {
      const running = child
      if (running === undefined) return
      running.kill(signal)
      await exited(running)
    }
    return {
      host: "127.0.0.1",
      port,
      database,
      otherDatabase,
      user,
      password,
      admin: () => admin,
      version: String((versionRows as Array<{ v: string }>)[0]?.v ?? "unknown"),
      log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
      restart: async (how) => {
        await admin.end().catch(() => undefined)
        await stopChild(how === "crash" ? "SIGKILL" : "SIGTERM")
        launch()
        await ready()
        admin = await connectAdmin()
        await admin.query(`USE ${database}`)
      },
      stop: async () => {
        await admin.end().catch(() => undefined)
        await stopChild("SIGKILL")
        process.removeListener("exit", killOnExit)
        rmSync(root, { recursive: true, force: true })
      }
    }
  } catch (error) {
    if (child !== undefined) {
      child.kill("SIGKILL")
      await exited(child)
    }
    process.removeListener("exit", killOnExit)
    rmSync(root, { recursive: true, force: true })
    throw error
  }
}

/** Sessions of the account under test still running a statement whose text contains `marker` (D-75). */
export const runningStatements = async (server: MariadbServer, marker: string): Promise<number> => {
  const [rows] = await server.admin().query(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND = 'Query' AND INSTR(INFO, ?) > 0 AND ID <> CONNECTION_ID()",
    [server.user, marker]
  )
  return Number((rows as Array<{ n: number }>)[0]?.n ?? 0)
}

/** Sessions of the account under test with an open transaction while idle (D-73's "idle in transaction"). */
export const idleInTransaction = async (server: MariadbServer): Promise<number> => {
  const [rows] = await server.admin().query(
    `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
      WHERE p.USER = ? AND p.COMMAND = 'Sleep'`,
    [server.user]
  )
  return Number((rows as Array<{ n: number }>)[0]?.n ?? 0)
}

/** Thread ids of the account under test's sessions running a statement that contains `marker`. */
export const threadsRunning = async (server: MariadbServer, marker: string): Promise<Array<number>> => {
  const [rows] = await server.admin().query(
    "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND = 'Query' AND INSTR(INFO, ?) > 0",
    [server.user, marker]
  )
  return (rows as Array<{ id: number }>).map((row) => Number(row.id))
}
