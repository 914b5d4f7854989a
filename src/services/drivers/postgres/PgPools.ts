// The sessions of one PostgreSQL connection: a pg.Pool for its own database and small pools for the other
// databases tools name (D-72), bounded in number and closed when idle. Every client has an 'error'
// listener from birth (pg emits 'error' when its socket dies; unlistened, that would end the process), and every
// session starts with dbdesk's backstops as startup parameters, so RESET/DISCARD ALL keep them (D-73).
import pg from "pg"
import { describeTlsFailure, readTlsFiles, type TlsFiles } from "../TlsFiles.ts"
import type { Tunnel } from "../../ssh/Tunnel.ts"

export interface PoolSettings {
  readonly host: string
  readonly port: number
  /** The connection's own database. */
  readonly database: string
  readonly user: string
  readonly password?: string
  readonly sslMode: "disable" | "prefer" | "require" | "verify-ca" | "verify-full"
  /** CA certificate, client certificate and key files (read when a pool opens). */
  readonly tls?: TlsFiles
  /** Every session (and cancel request) goes through this SSH tunnel; host and port are as its last host sees them. */
  readonly tunnel?: Tunnel
}

/** Sessions of the connection's own database, and of each other database. */
export const OWN_POOL_SIZE = 4
export const OTHER_POOL_SIZE = 2
/** Other databases open at once; the least recently used is closed to make room. */
export const OTHER_DATABASES = 4
const IDLE_CLOSE_MS = 60_000
const CONNECT_TIMEOUT_MS = 10_000
/** Through a tunnel the first session may wait for the SSH handshake and a host-key question. */
export const TUNNEL_CONNECT_TIMEOUT_MS = 150_000
const CLOSE_GRACE_MS = 5_000
/** Backstop: the server ends a session left idle inside a transaction this long (dbdesk never leaves one). */
export const IDLE_IN_TRANSACTION_MS = 10_000
/** Backstop (PostgreSQL 14+): a running statement notices a vanished client within this long. */
const CONNECTION_CHECK_MS = 1_000

/** A pooled session: pg's client with what dbdesk tracks about it. */
export interface PooledClient extends pg.Client {
  /** Set by the first 'error' pg emits: the socket is gone and the session must be destroyed. */
  lost: Error | undefined
  /** Leases so far; a session used before that fails before answering was probably dead while idle. */
  uses: number
  readonly processID: number
  readonly secretKey: number
  /** pg's own flag: false once the socket failed. */
  readonly _queryable: boolean
  release: (destroy?: boolean | Error) => void
}

/** The server refused one of dbdesk's startup parameters (an old server, or a pooler in front of it). */
const startupRefused = (error: unknown, parameter?: string): boolean => {
  const text = String((error as { message?: unknown }).message ?? "")
  const code = (error as { code?: unknown }).code
  return (code === "42704" || code === "08P01" || /startup parameter|configuration parameter/.test(text)) &&
    (parameter === undefined || text.includes(parameter))
}

/** How sessions start; relaxed step by step when a server refuses a part of it (remembered per connection). */
interface Startup {
  sslOff: boolean
  checkInterval: boolean
  backstops: boolean
}

const sslOf = (settings: PoolSettings, startup: Startup): pg.ClientConfig["ssl"] => {
  const mode = settings.sslMode
  if (mode === "disable" || startup.sslOff) return false
  // The files are read for every mode that uses TLS: a client certificate may be what the server asks for.
  const files = readTlsFiles(settings.tls ?? {})
  if (mode === "verify-full") return { ...files, rejectUnauthorized: true }
  // As libpq: with a CA file, require checks the certificate against it as verify-ca does.
  if (mode === "verify-ca" || (mode === "require" && files.ca !== undefined)) {
    return {
      ...files,
      rejectUnauthorized: true,
      checkServerIdentity: () => undefined
    }
  }
  return { ...files, rejectUnauthorized: false }
}

class DbdeskClient extends pg.Client {
  lost: Error | undefined = undefined
  uses = 0
  constructor(config?: pg.ClientConfig) {
    // pg-pool hides the password as a non-enumerable property: inherit it rather than spread it away.
    super(
      Object.assign(Object.create(config ?? null) as pg.ClientConfig, {
        connectionTimeoutMillis: config?.stream === undefined ? CONNECT_TIMEOUT_MS : TUNNEL_CONNECT_TIMEOUT_MS
      })
    )
    this.on("error", (error) => {
      this.lost ??= error
    })
  }
}

/** Destroys a session's socket at once: pg fails its running query and the pool drops it on release. */
export const destroyClient = (session: PooledClient, reason: Error): void => {
  session.lost ??= reason
  ;(session as unknown as { readonly connection: { readonly stream: { destroy: () => void } } }).connection.stream
    .destroy()
}

/** Every other database's pool is busy: the connection keeps at most OTHER_DATABASES open besides its own. */
export class TooManyDatabases extends Error {
  constructor() {
    super(
      `at most ${OTHER_DATABASES} other databases are open at once on one connection and all are busy; try again when their calls end`
    )
  }
}

interface Entry {
  pool: pg.Pool
  lastUsed: number
}

export interface Pools {
  /** A session of `database` (default: the connection's own); rejects with the connect error. */
  readonly acquire: (database: string | undefined) => Promise<PooledClient>
  /** Ends every session now (sockets destroyed), e.g. after a fault; the next acquire opens new pools. */
  readonly destroyAll: (reason: Error) => void
  readonly close: () => Promise<void>
}

export const makePools = (settings: PoolSettings): Pools => {
  const startup: Startup = { sslOff: false, checkInterval: true, backstops: true }
  const pools = new Map<string, Entry>()
  const checkedOut = new Set<PooledClient>()

  const open = (database: string): pg.Pool => {
    const options = [
      "-c DateStyle=ISO,MDY",
      "-c bytea_output=hex",
      ...(startup.checkInterval ? [`-c client_connection_check_interval=${CONNECTION_CHECK_MS}`] : [])
    ].join(" ")
    const pool = new pg.Pool({
      Client: DbdeskClient,
      host: settings.host,
      port: settings.port,
      database,
      user: settings.user,
      ...(settings.password === undefined ? {} : { password: settings.password }),
      ssl: sslOf(settings, startup),
      application_name: "dbdesk",
      keepAlive: true,
      ...(settings.tunnel === undefined ? {} : { stream: settings.tunnel.socket }),
      ...(startup.backstops ? { idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS, options } : {}),
      max: database === settings.database ? OWN_POOL_SIZE : OTHER_POOL_SIZE,
      idleTimeoutMillis: IDLE_CLOSE_MS
    })
    // pg-pool emits 'error' when an idle session dies (and has already dropped it); nothing else to do.
    pool.on("error", () => {})
    return pool
  }

  const poolOf = (database: string): pg.Pool => {
    const found = pools.get(database)
    if (found !== undefined) {
      found.lastUsed = Date.now()
      return found.pool
    }
    if (database !== settings.database) {
      const others = [...pools.entries()].filter(([name]) => name !== settings.database)
      if (others.length >= OTHER_DATABASES) {
        // Only a pool nobody uses or waits for is closed to make room; otherwise the bound holds and the call says so.
        const [idlest] = others
          .filter(([, entry]) => entry.pool.waitingCount === 0 && entry.pool.idleCount === entry.pool.totalCount)
          .sort((a, b) => a[1].lastUsed - b[1].lastUsed)
        if (idlest === undefined) throw new TooManyDatabases()
        pools.delete(idlest[0])
        void idlest[1].pool.end().catch(() => undefined)
      }
    }
    const entry = { pool: open(database), lastUsed: Date.now() }
    pools.set(database, entry)
    return entry.pool
  }

  /** After a refused startup, sessions start with less from then on (every pool reopens); false when nothing is left to relax. */
  const relax = (error: unknown): boolean => {
    if (
      settings.sslMode === "prefer" && !startup.sslOff && /does not support SSL/.test(String((error as Error).message))
    ) {
      startup.sslOff = true
    } else if (startup.checkInterval && startupRefused(error, "client_connection_check_interval")) {
      startup.checkInterval = false
    } else if (startup.backstops && startupRefused(error)) {
      startup.backstops = false
    } else {
      return false
    }
    endAll()
    return true
  }

  const endAll = () => {
    for (const [database, entry] of pools) {
      pools.delete(database)
      void entry.pool.end().catch(() => undefined)
    }
  }

  const acquire = async (database: string | undefined): Promise<PooledClient> => {
    const target = database ?? settings.database
    for (;;) {
      try {
        const session = (await poolOf(target).connect()) as unknown as PooledClient
        session.uses++
        checkedOut.add(session)
        const release = session.release
        session.release = (destroy) => {
          checkedOut.delete(session)
          release(destroy)
        }
        return session
      } catch (error) {
        if (!relax(error)) {
          throw describeTlsFailure(error, {
            host: settings.host,
            ...(settings.tls?.ca === undefined ? {} : { ca: settings.tls.ca }),
            files: settings.tls ?? {}
          }) ?? error
        }
      }
    }
  }

  const destroyAll = (reason: Error) => {
    for (const session of checkedOut) destroyClient(session, reason)
    endAll()
  }

  /** Ends every pool; sessions still leased after the grace period are destroyed so closing never hangs. */
  const close = async () => {
    const ending = Promise.all([...pools.values()].map((entry) => entry.pool.end().catch(() => undefined)))
    pools.clear()
    let timer: ReturnType<typeof setTimeout> | undefined
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))
    await Promise.race([ending, grace])
    clearTimeout(timer)
    for (const session of checkedOut) destroyClient(session, new Error("the connection was closed"))
  }

  return { acquire, destroyAll, close }
}
