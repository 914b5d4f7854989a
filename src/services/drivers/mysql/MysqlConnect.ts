// How dbdesk opens MySQL/MariaDB sessions (issue 34 item 1): TLS by SSL mode, LOCAL INFILE switched off in the
// client, one statement per query, exact integers, dates as the server writes them.
import mysql from "mysql2"
import type { Tunnel } from "../../ssh/Tunnel.ts"

export type MysqlSslMode = "disabled" | "preferred" | "required" | "verify-ca" | "verify-full"

export interface MysqlSettings {
  /** The connection's name, so errors say which connection failed (never its password, C7.2-b). */
  readonly name: string
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password?: string
  /** The default database; absent means none is selected unless a call names one. */
  readonly database?: string
  readonly sslMode: MysqlSslMode
  /** Secrets of the connection to redact from every error text (C7.2-b). */
  readonly secrets?: ReadonlyArray<string>
  /** Every session (and the KILL QUERY session) goes through this SSH tunnel; host and port as its last host sees them. */
  readonly tunnel?: Tunnel
}

/** MariaDB and MySQL differ in their statement backstop variable and a few catalog columns. */
export type Flavor = "mariadb" | "mysql"

const POOL_SIZE = 4
/** Calls waiting for a pooled session at most; more are refused with mysql2's "Queue limit reached." */
const QUEUE_LIMIT = 64

const tlsOptions = (mode: MysqlSslMode): mysql.SslOptions | undefined => {
  switch (mode) {
    case "disabled":
      return undefined
    case "preferred":
    case "required":
      return { rejectUnauthorized: false }
    case "verify-ca":
      return { rejectUnauthorized: true, verifyIdentity: false }
    case "verify-full":
      return { rejectUnauthorized: true, verifyIdentity: true }
  }
}

export const connectionOptions = (settings: MysqlSettings, useTls: boolean): mysql.ConnectionOptions => {
  const ssl = useTls ? tlsOptions(settings.sslMode) : undefined
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.database === undefined ? {} : { database: settings.database }),
    ...(ssl === undefined ? {} : { ssl }),
    // Issue 34 item 1: a server must not read the user's files; without the capability it cannot even ask.
    flags: ["-LOCAL_FILES"],
    multipleStatements: false,
    // Through a tunnel the first session may wait for the SSH handshake and a host-key question.
    connectTimeout: settings.tunnel === undefined ? 10_000 : 150_000,
    ...(settings.tunnel === undefined ? {} : { stream: settings.tunnel.socket }),
    // Exact values: BIGINT beyond 2^53 and DECIMAL as text, dates and JSON as the server writes them.
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: false,
    dateStrings: true,
    jsonStrings: true,
    charset: "utf8mb4_general_ci",
    connectAttributes: { program_name: "dbdesk" },
    maxPreparedStatements: 64
  }
}

export const poolOptions = (settings: MysqlSettings, useTls: boolean): mysql.PoolOptions => ({
  ...connectionOptions(settings, useTls),
  connectionLimit: POOL_SIZE,
  maxIdle: POOL_SIZE,
  idleTimeout: 60_000,
  queueLimit: QUEUE_LIMIT,
  enableKeepAlive: true
})

const connect = (options: mysql.ConnectionOptions): Promise<mysql.Connection> =>
  new Promise((resolve, reject) => {
    const connection = mysql.createConnection(options)
    connection.on("error", () => undefined) // errors of a lost session reach the command that was running
    connection.connect((error) => (error === null ? resolve(connection) : reject(error)))
  })

/**
 * One session; for `preferred` TLS is tried first and dropped only when the server offers none (the client's
 * HANDSHAKE_NO_SSL_SUPPORT), like the MySQL client's PREFERRED mode.
 */
export const openConnection = async (settings: MysqlSettings): Promise<{ connection: mysql.Connection; useTls: boolean }> => {
  const wantsTls = settings.sslMode !== "disabled"
  try {
    return { connection: await connect(connectionOptions(settings, wantsTls)), useTls: wantsTls }
  } catch (error) {
    if (settings.sslMode !== "preferred" || (error as { code?: string }).code !== "HANDSHAKE_NO_SSL_SUPPORT") throw error
    return { connection: await connect(connectionOptions(settings, false)), useTls: false }
  }
}

export const flavorOf = (connection: mysql.Connection): Promise<Flavor> =>
  new Promise((resolve, reject) =>
    connection.query("SELECT VERSION() AS v", (error, rows) => {
      if (error !== null) return reject(error)
      const version = String((rows as Array<{ v: string }>)[0]?.v ?? "")
      resolve(/mariadb/i.test(version) ? "mariadb" : "mysql")
    }))
