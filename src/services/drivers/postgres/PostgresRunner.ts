// The one place PostgreSQL work starts and stops (D-73). A call leases one session, runs its round trips
// (reads inside BEGIN READ ONLY with the deadline backstop, PgPipeline.ts), and gives the session back either clean
// (transaction status idle, no portal, session settings as started) or destroyed. Interruption and dbdesk's deadline
// send the protocol cancel request for the running statement and wait a bounded time for the session to come back.
import { Duration, Effect } from "effect"
import { withinDriver } from "../DriverFaults.ts"
import { DriverError, type Namespace, type StatementAccess, StatementTimeout } from "../Driver.ts"
import type { Redactor } from "../Redactor.ts"
import { CANCEL_TIMEOUT_MS } from "./PgCancel.ts"
import { catalogValueOf, parameterText } from "./PgCells.ts"
import { CLEANUP_MS, DriverFault, Lease, SETTLE_MS, StaleSession, Stopped, within } from "./PgLease.ts"
import type { FieldInfo, PipelineResult, Step } from "./PgPipeline.ts"
import { destroyClient, makePools, type PoolSettings, type PooledClient } from "./PgPools.ts"
import { connectFailure, type ErrorContext, runFailure, type RunFailure } from "./PostgresErrors.ts"

export type { RunFailure } from "./PostgresErrors.ts"

export interface PostgresSettings extends PoolSettings {
  /** The connection's name, so errors say which connection failed (never its password, C7.2-b). */
  readonly name: string
  /** Secrets of the connection to redact from every error text (C7.2-b). */
  readonly secrets?: ReadonlyArray<string>
}

/** What a call's body may do with its session. */
export interface Db {
  /** One read-only round trip: BEGIN READ ONLY, the deadline backstop, the search path, `steps`, COMMIT. */
  readonly read: (steps: ReadonlyArray<Step>) => Promise<PipelineResult>
  /** One round trip of `steps` as they are, in the session's own transaction state (writes, approved). */
  readonly plain: (steps: ReadonlyArray<Step>) => Promise<PipelineResult>
  /** Catalog rows as objects, in one read-only round trip. */
  readonly rows: <R>(sql: string, values?: ReadonlyArray<unknown>) => Promise<Array<R>>
  /** The session's transaction status after the last round trip ('I' idle, 'T' in a transaction, 'E' failed). */
  readonly transactionStatus: () => string | null
}

export interface Work<A> {
  readonly access: StatementAccess
  /** dbdesk's deadline; the server's statement_timeout is one second longer (D-18). */
  readonly seconds: number
  readonly namespace?: Namespace | undefined
  /** Puts `namespace.schema` first on the search path for the call's statements (execute_query). */
  readonly searchPath?: boolean
  readonly body: (db: Db) => Promise<A>
}

/** A session kept past one call (a held cursor, fetch_more): its round trips, its failures named, and the way back. */
export interface HeldSession {
  readonly lease: Lease
  readonly failure: (error: unknown) => RunFailure
  /** Gives the session back clean (ROLLBACK, DISCARD ALL) or destroys it. */
  readonly release: () => Promise<void>
}

export interface Runner {
  readonly run: <A>(work: Work<A>) => Effect.Effect<A, RunFailure>
  readonly hold: (work: Pick<Work<unknown>, "access" | "seconds" | "namespace">) => Promise<HeldSession>
  readonly close: () => Effect.Effect<void>
}

/** A reused session that fails before answering was dead while idle: try another, this many times at most. */
const STALE_RETRIES = 5

export const searchPathStep = (schema: string, local: boolean): Step => ({
  // regnamespace raises 3F000 for a schema that does not exist instead of silently searching nothing.
  text:
    `SELECT set_config('search_path', quote_ident($1)::regnamespace::text || ', ' || current_setting('search_path'), ${local})`,
  values: [schema]
})

export const makeRunner = (settings: PostgresSettings, redact: Redactor): Runner => {
  let pools = makePools(settings)
  const leases = new Set<Lease>()

  const scope = {
    connection: settings.name,
    redact,
    onFault: (error: Error) => {
      const fault = new DriverFault(error.message)
      const old = pools
      pools = makePools(settings)
      old.destroyAll(fault)
      for (const lease of leases) lease.stopped = true
    }
  }

  const contextOf = (work: Work<unknown>): ErrorContext => {
    const database = work.namespace?.database ?? settings.database
    return {
      connection: settings.name,
      host: settings.host,
      port: settings.port,
      database,
      ownDatabase: database === settings.database,
      seconds: work.seconds,
      writes: work.access === "readwrite",
      redact
    }
  }

  const dbOf = (lease: Lease, work: Work<unknown>): Db => {
    const schema = work.searchPath === true ? work.namespace?.schema : undefined
    const prefix: ReadonlyArray<Step> = [
      { text: "BEGIN READ ONLY" },
      { text: `SET LOCAL statement_timeout = ${(work.seconds + 1) * 1000}`, flush: schema === undefined },
      ...(schema === undefined ? [] : [{ ...searchPathStep(schema, true), flush: true }])
    ]
    const read = async (steps: ReadonlyArray<Step>) => {
      const result = await lease.submit([...prefix, ...steps, { text: "COMMIT" }])
      return { ...result, outcomes: result.outcomes.slice(prefix.length, prefix.length + steps.length) }
    }
    const rows = async <R>(sql: string, values: ReadonlyArray<unknown> = []): Promise<Array<R>> => {
      let fields: ReadonlyArray<FieldInfo> = []
      const collected: Array<R> = []
      await read([{
        text: sql,
        values: values.map(parameterText),
        rows: {
          limit: 0,
          sink: {
            fields: (described) => {
              fields = described
            },
            row: (row) => {
              const entry: Record<string, unknown> = {}
              for (const [index, field] of fields.entries()) {
                entry[field.name] = catalogValueOf(row[index] ?? null, field.typeOid)
              }
              collected.push(entry as R)
              return "more"
            }
          }
        }
      }])
      return collected
    }
    return {
      read,
      plain: (steps) => lease.submit(steps),
      rows,
      transactionStatus: () => lease.client.getTransactionStatus()
    }
  }

  /** What a call gets when the safety net (D-74) caught a failure in this connection's driver during it. */
  const driverFault = () =>
    new DriverError({
      message: redact(
        `dbdesk's PostgreSQL driver failed unexpectedly on '${settings.name}' (logged); the call was stopped and the next call opens a new session`
      )
    })

  const execute = async <A>(work: Work<A>, state: { stopped: boolean; lease: Lease | undefined }): Promise<A> => {
    const context = contextOf(work)
    for (let attempt = 0;; attempt++) {
      if (state.stopped) throw new Stopped()
      let client: PooledClient
      try {
        client = await pools.acquire(work.namespace?.database)
      } catch (error) {
        throw connectFailure(error, context)
      }
      const lease = new Lease(client, settings)
      if (state.stopped) {
        await lease.finish()
        throw new Stopped()
      }
      state.lease = lease
      leases.add(lease)
      try {
        if (work.access === "readwrite") {
          lease.tainted = true
          const schema = work.searchPath === true ? work.namespace?.schema : undefined
          await lease.submit([
            { text: `SET statement_timeout = ${(work.seconds + 1) * 1000}` },
            ...(schema === undefined ? [] : [searchPathStep(schema, false)])
          ])
        }
        return await work.body(dbOf(lease, work))
      } catch (error) {
        if (error instanceof StaleSession && attempt < STALE_RETRIES) continue
        if (lease.client.lost instanceof DriverFault) throw driverFault()
        throw runFailure(error, context)
      } finally {
        leases.delete(lease)
        await lease.finish()
        state.lease = undefined
      }
    }
  }

  // dbdesk's deadline is a timer inside the call rather than Effect.timeoutFail, which races two fibers on every
  // statement (~25 µs, bench/README.md "Where a request's time goes"); it stops the call exactly as an interrupt does.
  const run = <A>(work: Work<A>): Effect.Effect<A, RunFailure> =>
    Effect.async<A, RunFailure>((resume) => {
      const state: { stopped: boolean; lease: Lease | undefined } = { stopped: false, lease: undefined }
      let settled = false
      let expired = false
      const settle = (outcome: Effect.Effect<A, RunFailure>, onDeadline = false) => {
        if (settled || expired !== onDeadline) return
        settled = true
        clearTimeout(deadline)
        resume(outcome)
      }
      const done = withinDriver(scope, () => execute(work, state)).then(
        (value) => settle(Effect.succeed(value)),
        (error: unknown) => settle(Effect.fail(error as RunFailure))
      )
      const stop = async () => {
        state.stopped = true
        // Still waiting for a session: nothing runs on the server; the session, when it comes, goes straight back.
        const lease = state.lease
        if (lease === undefined) return
        lease.stop()
        // The answer waits until the statement ended and the session is back (or destroyed), within bounds.
        if (!(await within(done, CANCEL_TIMEOUT_MS + SETTLE_MS + CLEANUP_MS))) {
          destroyClient(lease.client, new Error("the stopped call did not end"))
        }
      }
      const deadline = setTimeout(() => {
        if (settled) {
          return
        }
        // The call's own failure (the cancel it gets) is not the answer: the deadline is.
        expired = true
        void stop().then(() => settle(Effect.fail(new StatementTimeout({ seconds: work.seconds })), true))
      }, Duration.toMillis(Duration.seconds(work.seconds)))
      return Effect.promise(() => {
        clearTimeout(deadline)
        settled = true
        return stop()
      })
    })

  // A held session's I/O belongs to the driver's scope like a call's (D-74): its socket may be opened here.
  const hold = (work: Pick<Work<unknown>, "access" | "seconds" | "namespace">): Promise<HeldSession> =>
    withinDriver(scope, () => holdSession(work))

  const holdSession = async (work: Pick<Work<unknown>, "access" | "seconds" | "namespace">): Promise<HeldSession> => {
    const context = contextOf({ ...work, body: () => Promise.resolve(undefined) })
    let client: PooledClient
    try {
      client = await pools.acquire(work.namespace?.database)
    } catch (error) {
      throw connectFailure(error, context)
    }
    // Reads only, in a transaction, with every setting LOCAL: the ROLLBACK at release leaves the session as it was.
    const lease = new Lease(client, settings)
    leases.add(lease)
    let released: Promise<void> | undefined
    return {
      lease,
      failure: (error) =>
        lease.client.lost instanceof DriverFault
          ? driverFault()
          : runFailure(error, context),
      release: () => {
        released ??= (async () => {
          leases.delete(lease)
          await lease.finish()
        })()
        return released
      }
    }
  }

  const close = () => Effect.promise(() => pools.close())

  return { run, hold, close }
}
