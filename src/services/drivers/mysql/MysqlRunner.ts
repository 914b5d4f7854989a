// The one place MySQL/MariaDB work starts and stops (D-75): a lazily opened pool, `START TRANSACTION READ ONLY`
// for safe statements, dbdesk's deadline with max_statement_time / max_execution_time as a backstop, and
// `KILL QUERY` on a separate connection on interruption. A connection goes back to the pool clean or is destroyed.
import { Duration, Effect } from "effect"
import mysql from "mysql2"
import {
  DriverError,
  LockTimeout,
  NamespaceNotFound,
  NotConnected,
  type StatementAccess,
  StatementTimeout
} from "../Driver.ts"
import type { Redactor } from "../Redactor.ts"
import {
  type Flavor,
  flavorOf,
  identityProblem,
  openConnection,
  poolOptions,
  type MysqlSettings
} from "./MysqlConnect.ts"
import {
  type FieldOrigin,
  prepareOnly,
  type QueryOutcome,
  queryWhole,
  type StreamOutcome,
  streamRows
} from "./MysqlSession.ts"

export type { QueryOutcome, StreamOutcome } from "./MysqlSession.ts"

export type { MysqlSettings } from "./MysqlConnect.ts"

export type RunFailure = DriverError | NotConnected | NamespaceNotFound | StatementTimeout | LockTimeout

type Conn = mysql.PoolConnection

/** What a body of work may do on its connection; every statement it starts is killed on interruption. */
export interface Session {
  readonly flavor: Flavor
  /** A small statement read whole (catalog reads). `values` are bound server-side (a prepared statement). */
  readonly query: (sql: string, values?: ReadonlyArray<unknown>) => Promise<QueryOutcome>
  /** Prepares the statement and closes it again, running nothing (D-68). */
  readonly prepare: (sql: string) => Promise<void>
  /** Rows one at a time; when `onRow` answers false, the rest is not read: the statement is killed (D-71). */
  readonly stream: (
    sql: string,
    values: ReadonlyArray<unknown> | undefined,
    onRow: (row: ReadonlyArray<unknown>) => boolean,
    onColumns: (fields: ReadonlyArray<FieldOrigin>) => void
  ) => Promise<StreamOutcome>
}

/**
 * A session kept out of the pool for one held read (fetch_more), inside a read-only REPEATABLE READ transaction.
 * `kill` sends `KILL QUERY` for its running statement (false: could not be sent); `release` gives it back clean
 * (ROLLBACK, its write timeout reset) or destroys it.
 */
export interface HeldConnection {
  readonly conn: Conn
  readonly flavor: Flavor
  readonly kill: () => Promise<boolean>
  readonly failure: (error: unknown, seconds: number) => RunFailure
  readonly release: (broken: boolean) => Promise<void>
}

export interface Runner {
  /**
   * A session held for one read: `writeSeconds` is how long the server may wait for the client to read on (the
   * handle's idle limit and a margin), `lifeSeconds` the statement's own backstop (the handle's whole life).
   */
  readonly hold: (database: string | undefined, writeSeconds: number, lifeSeconds: number) => Promise<HeldConnection>
  readonly run: <A>(
    access: StatementAccess,
    seconds: number,
    database: string | undefined,
    body: (session: Session) => Promise<A>
  ) => Effect.Effect<A, RunFailure>
  readonly flavor: () => Effect.Effect<Flavor, RunFailure>
  readonly close: () => Effect.Effect<void>
}

/** How long interruption waits for a killed statement to give its connection back before destroying it. */
const SETTLE_CAP = Duration.seconds(10)
/** MariaDB ER_STATEMENT_TIMEOUT, MySQL ER_QUERY_TIMEOUT: the server's own backstop ended the statement. */
const BACKSTOP_CODES = new Set([1969, 3024])
const LOCK_WAIT_TIMEOUT = 1205
/** ER_BAD_DB_ERROR, ER_DBACCESS_DENIED_ERROR: the database named does not exist or the account may not use it. */
const DATABASE_CODES = new Set([1049, 1044])

interface MysqlError {
  readonly errno?: number
  readonly code?: string
  readonly fatal?: boolean
  readonly message?: string
  readonly sqlMessage?: string
}

const READ_ONLY = ["START TRANSACTION READ ONLY"]

const asError = (
  error: unknown
): MysqlError => (typeof error === "object" && error !== null ? error : { message: String(error) })

/** A failure of the socket or of the login, as opposed to an error the server reported for one statement. */
const isConnectionFailure = (error: MysqlError): boolean =>
  error.fatal === true || error.errno === 1045 || error.errno === 1040 || error.errno === 1129 ||
  (typeof error.code === "string" && /^(E[A-Z]+|PROTOCOL_|HANDSHAKE_)/.test(error.code) && error.errno === undefined)

/** Marks a database that could not be selected, so the failure names it. */
class DatabaseMissing {
  constructor(readonly database: string, readonly cause: MysqlError) {}
}

export const makeRunner = (settings: MysqlSettings, redact: Redactor): Runner => {
  let pool: mysql.Pool | undefined
  let opening: Promise<{ pool: mysql.Pool; flavor: Flavor }> | undefined
  let flavor: Flavor | undefined
  let killer: Promise<mysql.Connection> | undefined
  /** The database and backstop each pooled session has selected (reliable: sessions that ran a write are destroyed). */
  const state = new WeakMap<Conn, { database: string | null; backstop: number }>()

  const errorText = (error: MysqlError): string => redact(error.sqlMessage ?? error.message ?? String(error))
  const unreachable = (error: MysqlError) =>
    new NotConnected({
      message: redact(
        error.code === "PROTOCOL_CONNECTION_LOST"
          ? `'${settings.name}' lost its connection to ${settings.host}:${settings.port} during the call: ${
            errorText(error)
          }; the next call reconnects`
          : `cannot connect to '${settings.name}' at ${settings.host}:${settings.port}: ${errorText(error)}`
      )
    })

  const failureOf = (error: unknown, seconds: number): RunFailure => {
    if (error instanceof DatabaseMissing) {
      return new NamespaceNotFound({
        message: redact(
          `database '${error.database}' cannot be used on '${settings.name}': ${
            errorText(error.cause)
          }; call list_databases for the names`
        )
      })
    }
    const failure = asError(error)
    if (failure.errno !== undefined && BACKSTOP_CODES.has(failure.errno)) return new StatementTimeout({ seconds })
    if (failure.errno === LOCK_WAIT_TIMEOUT) {
      return new LockTimeout({
        message: `${errorText(failure)} (the statement waited for a lock another session holds)`
      })
    }
    if (isConnectionFailure(failure)) return unreachable(failure)
    return new DriverError({ message: errorText(failure) })
  }

  const open = (): Promise<{ pool: mysql.Pool; flavor: Flavor }> => {
    if (pool !== undefined && flavor !== undefined) return Promise.resolve({ pool, flavor })
    opening ??= (async () => {
      // The first session decides the flavour (MariaDB or MySQL) and, for sslMode preferred, whether TLS is offered.
      const { connection, useTls } = await openConnection(settings)
      const found = await flavorOf(connection).finally(() => connection.destroy())
      const created = mysql.createPool(poolOptions(settings, useTls))
      // mysql2 listens once for 'error' on a pooled connection; a second error would be thrown: keep one listener for good.
      created.on("connection", (conn) => {
        conn.on("error", () => undefined)
        // verify-full by IP address: a pooled session whose certificate does not hold the address is closed unused.
        if (useTls && identityProblem(settings, conn as unknown as { readonly stream?: unknown }) !== undefined) {
          conn.destroy()
        }
      })
      pool = created
      flavor = found
      return { pool: created, flavor: found }
    })().finally(() => {
      opening = undefined
    })
    return opening
  }

  const killerConnection = (): Promise<mysql.Connection> => {
    killer ??= openConnection(settings).then(({ connection }) => {
      const forget = () => {
        killer = undefined
      }
      connection.on("error", forget)
      connection.on("end", forget)
      return connection
    })
    killer.catch(() => {
      killer = undefined
    })
    return killer
  }

  /** `KILL QUERY` on a separate session (D-75); false when it could not be sent. */
  const killQuery = (threadId: number): Promise<boolean> =>
    killerConnection().then(
      (connection) =>
        new Promise<boolean>((done) =>
          connection.query(`KILL QUERY ${threadId}`, (error) => done(error === null || asError(error).errno === 1094))
        ),
      () => false
    )

  const command = (conn: Conn, sql: string): Promise<void> =>
    new Promise((resolve, reject) => conn.query(sql, (error) => (error === null ? resolve() : reject(error))))

  const getConnection = (from: mysql.Pool): Promise<Conn> =>
    new Promise((resolve, reject) =>
      from.getConnection((error, conn) => (error === null ? resolve(conn) : reject(error)))
    )

  const backstopSql = (found: Flavor, seconds: number): string =>
    found === "mariadb"
      ? `SET SESSION max_statement_time = ${seconds}`
      : `SET SESSION max_execution_time = ${seconds * 1000}`

  /** Selects the database and the backstop on a pooled session; a dead pooled socket is replaced once. */
  const prepare = async (
    access: StatementAccess,
    backstop: number,
    database: string | undefined,
    begin: ReadonlyArray<string> = READ_ONLY
  ): Promise<Conn> => {
    const { pool: from, flavor: found } = await open()
    const wanted = database ?? settings.database ?? null
    for (let attempt = 1;; attempt++) {
      const conn = await getConnection(from)
      const known = state.get(conn) ?? { database: settings.database ?? null, backstop: 0 }
      try {
        if (wanted === null && known.database !== null) {
          conn.destroy() // no statement unselects a database; a fresh session has none
          continue
        }
        if (wanted !== null && known.database !== wanted) {
          await command(conn, `USE \`${wanted.replace(/`/g, "``")}\``).catch((error: unknown) => {
            throw asError(error).errno !== undefined && DATABASE_CODES.has(asError(error).errno!)
              ? new DatabaseMissing(wanted, asError(error))
              : error
          })
          known.database = wanted
        }
        if (known.backstop !== backstop) {
          await command(conn, backstopSql(found, backstop))
          known.backstop = backstop
        }
        state.set(conn, known)
        if (access === "readonly") { for (const statement of begin) await command(conn, statement) }
        else await new Promise<void>((resolve, reject) => conn.ping((error) => (error ? reject(error) : resolve())))
        return conn
      } catch (error) {
        if (error instanceof DatabaseMissing) {
          conn.release()
          throw error
        }
        conn.destroy()
        if (attempt >= 2 || !isConnectionFailure(asError(error))) throw error
      }
    }
  }

  /**
   * Puts a session back clean (a read's transaction rolled back) or destroys it (after a write, or when anything failed).
   * `killsTaken` settles once every KILL QUERY sent for the session was acknowledged: a kill still on its way would
   * interrupt the next statement on the pooled session; it answers whether the session is still sound.
   */
  const finish = async (
    conn: Conn,
    access: StatementAccess,
    broken: boolean,
    killsTaken: () => Promise<boolean>
  ): Promise<void> => {
    if (broken || access === "readwrite") return conn.destroy()
    try {
      await command(conn, "ROLLBACK")
      if (await killsTaken()) conn.release()
      else conn.destroy()
    } catch {
      conn.destroy()
    }
  }

  const run = <A>(
    access: StatementAccess,
    seconds: number,
    database: string | undefined,
    body: (session: Session) => Promise<A>
  ) => {
    const work = Effect.async<A, RunFailure>((resume) => {
      let conn: Conn | undefined
      let stopped = false
      /** Settles when the statement in flight (if any) has ended, including its kill. */
      let inFlight: Promise<unknown> = Promise.resolve()
      let broken = false
      let cancelCurrent: (() => Promise<void>) | undefined
      /** Kills sent and not yet acknowledged; once the session is given back, no kill is sent for it any more. */
      const pendingKills = new Set<Promise<void>>()
      let givenBack = false
      const killsTaken = async (): Promise<boolean> => {
        while (pendingKills.size > 0) await Promise.all(pendingKills)
        givenBack = true
        return !broken
      }

      const track = <T>(start: (session: Conn, kill: () => Promise<void>) => Promise<T>): Promise<T> => {
        if (stopped || conn === undefined) return Promise.reject(new Error("the call was cancelled"))
        const session = conn
        let killing: Promise<void> | undefined
        const kill = () => {
          if (killing !== undefined || givenBack) return killing ?? Promise.resolve()
          const sending = killQuery(session.threadId).then((sent) => {
            if (!sent) broken = true
          }).finally(() => pendingKills.delete(sending))
          pendingKills.add(sending)
          return (killing = sending)
        }
        const running = start(session, kill).finally(() => killing)
        inFlight = running.then(() => undefined, () => undefined)
        cancelCurrent = kill
        return running
      }

      const session = (found: Flavor): Session => ({
        flavor: found,
        query: (sql, values) => track((db) => queryWhole(db, sql, values)),
        prepare: (sql) => track((db) => prepareOnly(db, sql)),
        stream: (sql, values, onRow, onColumns) =>
          track((db, kill) => streamRows(db, sql, values, onRow, onColumns, kill))
      })

      const backstop = seconds + 1 // D-18: the server's own timer is the deadline + 1 s
      const settled = prepare(access, backstop, database).then(async (acquired) => {
        conn = acquired
        const { flavor: found } = await open()
        try {
          const value = await body(session(found))
          await inFlight
          await finish(acquired, access, broken || stopped, killsTaken)
          return value
        } catch (error) {
          await inFlight
          const failure = asError(error)
          await finish(acquired, access, broken || stopped || failure.fatal === true, killsTaken)
          throw error
        }
      }).then(
        (value) => resume(Effect.succeed(value)),
        (error) => resume(Effect.fail(failureOf(error, seconds)))
      )

      return Effect.suspend(() => {
        stopped = true
        const killing = cancelCurrent?.() ?? Promise.resolve()
        return Effect.promise(() =>
          settledWithin(Promise.all([killing, settled]), SETTLE_CAP).then((ended) => {
            if (!ended) conn?.destroy() // the server did not give the session back: closing it ends the statement
          })
        )
      })
    })
    return Effect.timeoutFail(work, {
      duration: Duration.seconds(seconds),
      onTimeout: () => new StatementTimeout({ seconds })
    })
  }

  const hold = async (
    database: string | undefined,
    writeSeconds: number,
    lifeSeconds: number
  ): Promise<HeldConnection> => {
    // D-93: one statement read from one snapshot; the server waits for the next page at most writeSeconds.
    // Its failures are the driver's own (a database that cannot be used, a server that cannot be reached).
    const conn = await prepare("readonly", lifeSeconds, database, [
      `SET SESSION net_write_timeout = ${writeSeconds}`,
      "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
      "START TRANSACTION READ ONLY"
    ]).catch((error: unknown) => Promise.reject(failureOf(error, lifeSeconds)))
    const { flavor: found } = await open()
    let released = false
    return {
      conn,
      flavor: found,
      kill: () => killQuery(conn.threadId),
      failure: failureOf,
      release: async (broken) => {
        if (released) return
        released = true
        if (broken) return conn.destroy()
        try {
          await command(conn, "ROLLBACK")
          await command(conn, "SET SESSION net_write_timeout = DEFAULT")
          conn.release()
        } catch {
          conn.destroy()
        }
      }
    }
  }

  const flavorEffect = () =>
    Effect.tryPromise({ try: () => open().then((opened) => opened.flavor), catch: (error) => failureOf(error, 0) })

  const close = () =>
    Effect.promise(async () => {
      const openPool = pool
      const openKiller = killer
      pool = undefined
      flavor = undefined
      killer = undefined
      await new Promise<void>((done) => (openPool === undefined ? done() : openPool.end(() => done())))
      await openKiller?.then((connection) => connection.destroy(), () => undefined)
    })

  return { run, hold, flavor: flavorEffect, close }
}

/** A plain promise race: an Effect timeout cannot end a wait that runs inside an (uninterruptible) canceller. */
const settledWithin = (settled: Promise<unknown>, cap: Duration.Duration): Promise<boolean> =>
  new Promise((done) => {
    const timer = setTimeout(() => done(false), Duration.toMillis(cap))
    void settled.finally(() => {
      clearTimeout(timer)
      done(true)
    })
  })
