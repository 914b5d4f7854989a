// The one place PostgreSQL work starts and stops: a lazily connecting pool, `BEGIN READ ONLY` for safe
// statements, dbdesk's deadline with `statement_timeout` as a backstop, and a real cancel on interruption.
import { Duration, Effect } from "effect"
import postgres from "postgres"
import { DriverError, LockTimeout, type StatementAccess, StatementTimeout } from "../Driver.ts"
import type { Redactor } from "../Redactor.ts"

export interface PostgresSettings {
  /** The connection's name, so errors say which connection failed (never its password, C7.2-b). */
  readonly name: string
  readonly host: string
  readonly port: number
  readonly database: string
  readonly user: string
  readonly password?: string
  readonly sslMode: "disable" | "prefer" | "require" | "verify-ca" | "verify-full"
  /** Secrets of the connection to redact from every error text (C7.2-b). */
  readonly secrets?: ReadonlyArray<string>
}

export type Db = postgres.TransactionSql | postgres.ReservedSql
export type RunFailure = DriverError | StatementTimeout | LockTimeout

/** Registers a query so that interruption can send the protocol cancel request for it. */
export type Track = <Q extends Cancellable>(query: Q) => Q

interface Cancellable {
  readonly cancel: () => void
}

/**
 * `query.cancel()` of `postgres` 3.4 drops the promise of the cancel request, so a cancel sent to a server
 * that has gone away would be an unhandled rejection; call its canceller ourselves and keep the promise.
 */
const cancelQuietly = (query: Cancellable): void => {
  const internal = query as Cancellable & { canceller?: ((query: unknown) => Promise<unknown> | undefined) | null }
  if (typeof internal.canceller !== "function") return query.cancel()
  const pending = internal.canceller(query)
  internal.canceller = null
  void pending?.catch(() => undefined)
}

/** How long interruption waits for a cancelled statement to give its connection back. */
const SETTLE_CAP = Duration.seconds(10)

/** A plain promise race: an Effect timeout cannot end a wait that runs inside an (uninterruptible) canceller. */
const settledWithin = (settled: Promise<unknown>, cap: Duration.Duration): Promise<void> =>
  new Promise((done) => {
    const timer = setTimeout(done, Duration.toMillis(cap))
    void settled.finally(() => {
      clearTimeout(timer)
      done()
    })
  })
const POOL_SIZE = 4

const sslOption = (mode: PostgresSettings["sslMode"]): boolean | object | "prefer" | "require" | "verify-full" => {
  switch (mode) {
    case "disable":
      return false
    case "verify-ca":
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined }
    default:
      return mode
  }
}

/** int8 values stay exact: `toCell` turns those beyond the safe range into strings (product-decisions §3). */
const BIGINT_TYPE = { to: 20, from: [20], serialize: (value: unknown) => String(value), parse: (text: string) => BigInt(text) }

export const openPool = (settings: PostgresSettings): postgres.Sql<{}> =>
  postgres({
    host: settings.host,
    port: settings.port,
    database: settings.database,
    username: settings.user,
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ssl: sslOption(settings.sslMode),
    max: POOL_SIZE,
    idle_timeout: 60,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: "dbdesk" },
    types: { bigint: BIGINT_TYPE } as unknown as Record<string, postgres.PostgresType>
  })

const CONNECTION_CODES = /^(08|28|3D)/

const isConnectionFailure = (error: unknown): boolean =>
  error instanceof postgres.PostgresError
    ? CONNECTION_CODES.test(error.code)
    : typeof (error as { code?: unknown }).code === "string"

/** The text of a database error for the model: message, detail and hint, redacted; connection failures name the connection. */
export const errorText = (error: unknown, settings: PostgresSettings, redact: Redactor): string => {
  if (error instanceof postgres.PostgresError) {
    const parts = [error.message, error.detail, error.hint].filter((part): part is string => typeof part === "string" && part !== "")
    const text = parts.join("; ")
    return redact(isConnectionFailure(error) ? `cannot connect to '${settings.name}': ${text}` : text)
  }
  const message = error instanceof Error ? error.message : String(error)
  return redact(isConnectionFailure(error)
    ? `cannot connect to '${settings.name}' at ${settings.host}:${settings.port}: ${message}`
    : message)
}

export interface Runner {
  /**
   * Runs `body` on one connection: inside `BEGIN READ ONLY` for `readonly`, on a reserved connection for
   * `readwrite`. Interrupting it cancels every tracked query on the server and waits for the connection.
   */
  readonly run: <A>(
    access: StatementAccess,
    seconds: number,
    body: (db: Db, track: Track) => Promise<A>
  ) => Effect.Effect<A, RunFailure>
  readonly close: () => Effect.Effect<void>
}

export const makeRunner = (settings: PostgresSettings, redact: Redactor): Runner => {
  let pool: postgres.Sql<{}> | undefined
  const poolOf = () => (pool ??= openPool(settings))

  const failureOf = (error: unknown, seconds: number): RunFailure => {
    if (error instanceof postgres.PostgresError && error.code === "57014" && /statement timeout/.test(error.message)) {
      return new StatementTimeout({ seconds })
    }
    if (error instanceof postgres.PostgresError && error.code === "55P03") {
      return new LockTimeout({ message: `${errorText(error, settings, redact)} (the statement waited for a lock another session holds)` })
    }
    return new DriverError({ message: errorText(error, settings, redact) })
  }

  const start = <A>(access: StatementAccess, backstopMs: number, body: (db: Db, track: Track) => Promise<A>, track: Track) => {
    const sql = poolOf()
    if (access === "readonly") {
      return sql.begin("read only", async (tx) => {
        await track(tx.unsafe(`SET LOCAL statement_timeout = ${backstopMs}`))
        return body(tx, track)
      }) as Promise<A>
    }
    return sql.reserve().then(async (reserved) => {
      try {
        await track(reserved.unsafe(`SET statement_timeout = ${backstopMs}`))
        return await body(reserved, track)
      } finally {
        await reserved.unsafe("RESET statement_timeout").catch(() => undefined)
        reserved.release()
      }
    })
  }

  const run = <A>(access: StatementAccess, seconds: number, body: (db: Db, track: Track) => Promise<A>) => {
    const work = Effect.async<A, RunFailure>((resume) => {
      const running = new Set<Cancellable>()
      let stopped = false
      const track: Track = (query) => {
        running.add(query)
        if (stopped) cancelQuietly(query)
        return query
      }
      // product-decisions §3 "Deadlines": the server's own timer is the deadline + 1 s, a backstop behind dbdesk's.
      const settled = start(access, (seconds + 1) * 1000, body, track).then(
        (value) => resume(Effect.succeed(value)),
        (error) => resume(Effect.fail(failureOf(error, seconds)))
      )
      return Effect.suspend(() => {
        stopped = true
        for (const query of running) cancelQuietly(query)
        return Effect.promise(() => settledWithin(settled, SETTLE_CAP))
      })
    })
    return Effect.timeoutFail(work, { duration: Duration.seconds(seconds), onTimeout: () => new StatementTimeout({ seconds }) })
  }

  const close = () =>
    Effect.promise(async () => {
      const open = pool
      pool = undefined
      await open?.end({ timeout: 2 }).catch(() => undefined)
    })

  return { run, close }
}
