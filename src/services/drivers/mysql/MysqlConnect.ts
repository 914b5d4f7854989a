// How dbdesk opens MySQL/MariaDB sessions (D-75): TLS by SSL mode, LOCAL INFILE switched off in the
// client, one statement per query, exact integers, dates as the server writes them.
import mysql from "mysql2"
import { isIP } from "node:net"
import { checkServerIdentity, type TLSSocket } from "node:tls"
import { describeTlsFailure, readTlsFiles, type TlsFiles } from "../TlsFiles.ts"
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
  /** CA certificate, client certificate and key files (read when a session opens). */
  readonly tls?: TlsFiles
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

const tlsOptions = (mode: MysqlSslMode, files: TlsFiles, host: string): mysql.SslOptions | undefined => {
  if (mode === "disabled") return undefined
  const material = readTlsFiles(files)
  switch (mode) {
    case "preferred":
    case "required":
      return { ...material, rejectUnauthorized: false }
    case "verify-ca":
      return { ...material, rejectUnauthorized: true, verifyIdentity: false }
    case "verify-full":
      // mysql2 checks an IP address against the name "localhost": dbdesk checks those itself (identityProblem).
      return { ...material, rejectUnauthorized: true, verifyIdentity: isIP(host) === 0 }
  }
}

/**
 * verify-full by IP address: the session's certificate must hold that address (mysql2 checks the name
 * "localhost" instead). Undefined when the session passes or the check is not dbdesk's to make.
 */
export const identityProblem = (
  settings: MysqlSettings,
  connection: { readonly stream?: unknown }
): Error | undefined => {
  if (settings.sslMode !== "verify-full" || isIP(settings.host) === 0) return undefined
  const stream = connection.stream as Partial<TLSSocket> | undefined
  if (typeof stream?.getPeerCertificate !== "function") {
    return new Error(`TLS: the session to ${settings.host} is not encrypted, so its certificate cannot be checked`)
  }
  return checkServerIdentity(settings.host, stream.getPeerCertificate())
}

export const connectionOptions = (settings: MysqlSettings, useTls: boolean): mysql.ConnectionOptions => {
  const ssl = useTls ? tlsOptions(settings.sslMode, settings.tls ?? {}, settings.host) : undefined
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.database === undefined ? {} : { database: settings.database }),
    ...(ssl === undefined ? {} : { ssl }),
    // D-75: a server must not read the user's files; without the capability it cannot even ask.
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

const connect = (settings: MysqlSettings, useTls: boolean): Promise<mysql.Connection> =>
  new Promise((resolve, reject) => {
    const connection = mysql.createConnection(connectionOptions(settings, useTls))
    connection.on("error", () => undefined) // errors of a lost session reach the command that was running
    const fail = (error: unknown) =>
      reject(
        describeTlsFailure(error, {
          host: settings.host,
          ...(settings.tls?.ca === undefined ? {} : { ca: settings.tls.ca }),
          files: settings.tls ?? {}
        }) ?? error
      )
    connection.connect((error) => {
      if (error !== null) return fail(error)
      const problem = useTls
        ? identityProblem(settings, connection as unknown as { readonly stream?: unknown })
        : undefined
      if (problem === undefined) return resolve(connection)
      connection.destroy()
      fail(problem)
    })
  })

/**
 * One session; for `preferred` TLS is tried first and dropped only when the server offers none (the client's
 * HANDSHAKE_NO_SSL_SUPPORT), like the MySQL client's PREFERRED mode.
 */
export const openConnection = async (
  settings: MysqlSettings
): Promise<{ connection: mysql.Connection; useTls: boolean }> => {
  const wantsTls = settings.sslMode !== "disabled"
  try {
    return { connection: await connect(settings, wantsTls), useTls: wantsTls }
  } catch (error) {
    if (settings.sslMode !== "preferred" || (error as { code?: string }).code !== "HANDSHAKE_NO_SSL_SUPPORT") {
      throw error
    }
    return { connection: await connect(settings, false), useTls: false }
  }
}

export const flavorOf = (connection: mysql.Connection): Promise<Flavor> =>
  new Promise((resolve, reject) =>
    connection.query("SELECT VERSION() AS v", (error, rows) => {
      if (error !== null) return reject(error)
      const version = String((rows as Array<{ v: string }>)[0]?.v ?? "")
      resolve(/mariadb/i.test(version) ? "mariadb" : "mysql")
    })
  )
