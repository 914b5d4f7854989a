// A held cursor on MySQL/MariaDB (fetch_more): one session kept for the handle, a read-only REPEATABLE READ
// transaction, the statement sent once and its rows streamed; between pages the socket is paused, so the server
// waits (net_write_timeout set past the handle's idle limit) and nothing is read twice or run again (D-93).
// Closing a read that has not ended kills the statement, reads what was in flight, rolls back and gives the session
// back to the pool; a session that cannot be cleaned is destroyed.
import { Effect } from "effect"
import { type AnswerVerdict, keptNames, projectRow, withheldError } from "../../../domain/AnswerGate.ts"
import type { AnswerHints, AnswerLimits } from "../../../domain/AnswerBudget.ts"
import { maskedCell } from "../../../domain/ColumnGuard.ts"
import { CursorPages, type PulledRows } from "../CursorPages.ts"
import {
  type CursorOptions,
  DriverError,
  type HeldCursor,
  type OpenedCursor,
  PolicyRefusal,
  type ReachFailure,
  StatementTimeout
} from "../Driver.ts"
import { mysqlGuard, type MysqlGuardDecision } from "./MysqlGuard.ts"
import type { HeldConnection, Runner, Session } from "./MysqlRunner.ts"
import { type FieldOrigin, prepareOnly, queryWhole } from "./MysqlSession.ts"

const QUERY_INTERRUPTED = 1317
/** How long a close waits for a killed statement's last packets before destroying the session. */
const SETTLE_MS = 10_000
/** The server's wait for the client to read on: the handle's idle limit and this margin. */
const WRITE_MARGIN_SECONDS = 30

/**
 * Bytes a row takes at least in an answer (a cell cut at `cellCap`): rows are read until the answer surely cannot take
 * them all, so a page with rows left is always a cut page.
 */
const sizeOf = (row: ReadonlyArray<unknown>, cellCap: number): number => {
  let size = 2
  for (const cell of row) {
    size += 1 + Math.min(cellCap, typeof cell === "string" ? cell.length : Buffer.isBuffer(cell) ? cell.length : 1)
  }
  return size
}

/** The rows of one streaming statement, pulled a page at a time: the socket is paused whenever a page has enough. */
class RowStream {
  private queue: Array<ReadonlyArray<unknown>> = []
  private queuedBytes = 0
  private want = 0
  private wantBytes = Number.POSITIVE_INFINITY
  private cellCap = Number.POSITIVE_INFINITY
  private waiters: Array<() => void> = []
  ended = false
  error: unknown = undefined
  fields: ReadonlyArray<FieldOrigin> | undefined

  private arrived = 0

  constructor(
    private readonly held: HeldConnection,
    sql: string,
    values: ReadonlyArray<unknown> | undefined,
    onFields: (fields: ReadonlyArray<FieldOrigin>) => boolean,
    onRows: ((rows: number) => void) | undefined
  ) {
    const conn = held.conn
    const lost = (error: unknown) =>
      this.finish(
        error ??
          Object.assign(new Error("the server closed the connection"), {
            fatal: true,
            code: "PROTOCOL_CONNECTION_LOST"
          })
      )
    conn.once("error", lost)
    conn.once("end", lost)
    this.detach = () => {
      conn.removeListener("error", lost)
      conn.removeListener("end", lost)
    }
    const options = { sql, rowsAsArray: true }
    const emitter = values === undefined ? conn.query(options) : conn.execute(options, [...values] as never)
    emitter.on(
      "fields",
      (fields: ReadonlyArray<{ name: string; db?: string; orgTable?: string; orgName?: string }> | undefined) => {
        if (this.fields !== undefined || fields === undefined) return
        this.fields = fields.map((field) => ({
          name: field.name,
          db: field.db ?? "",
          orgTable: field.orgTable ?? "",
          orgName: field.orgName ?? ""
        }))
        if (!onFields(this.fields)) void this.stop()
      }
    )
    emitter.on("result", (row: unknown, index: number | undefined) => {
      if ((index ?? 0) !== 0 || this.stopping || !Array.isArray(row)) return
      this.queue.push(row)
      onRows?.(++this.arrived)
      this.queuedBytes += sizeOf(row, this.cellCap)
      if (this.queue.length >= this.want || this.queuedBytes >= this.wantBytes) {
        conn.pause()
        this.notify()
      }
    })
    emitter.on("error", (error: unknown) => this.finish(error))
    emitter.on("end", () => this.finish(undefined))
  }

  private readonly detach: () => void
  private stopping = false

  private notify() {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }

  private finish(error: unknown) {
    if (this.ended) return
    this.ended = true
    // A statement killed because its read was stopped ends with "interrupted": that is its end, not a failure.
    if (!(this.stopping && (error as { errno?: number } | undefined)?.errno === QUERY_INTERRUPTED)) this.error = error
    this.detach()
    this.notify()
  }

  /** At most `count` more rows (fewer once `maxBytes` were read); `done` when the statement has no more. */
  async take(
    count: number,
    maxBytes: number,
    cellCap: number
  ): Promise<{ rows: Array<ReadonlyArray<unknown>>; done: boolean }> {
    this.want = count
    this.wantBytes = maxBytes
    this.cellCap = cellCap
    while (!this.ended && this.queue.length < count && this.queuedBytes < maxBytes) {
      const woken = new Promise<void>((done) => this.waiters.push(done))
      this.held.conn.resume()
      await woken
    }
    if (this.error !== undefined) throw this.error
    const rows = this.queue.splice(0, count)
    this.queuedBytes = this.queue.reduce((sum, row) => sum + sizeOf(row, cellCap), 0)
    return { rows, done: this.ended && this.queue.length === 0 }
  }

  private stopped: Promise<boolean> | undefined

  /**
   * Ends the statement on the server (KILL QUERY), reads what was in flight; false when the session cannot be reused.
   * Every call answers the first one's outcome: a statement that ended on its own while its kill was still on the way
   * (a refusal on its fields) must not give the session back before the server has taken the kill, or the kill would
   * interrupt the next statement on that pooled session.
   */
  stop(): Promise<boolean> {
    if (this.stopped !== undefined) return this.stopped
    if (this.ended) return Promise.resolve(true)
    this.stopping = true
    return (this.stopped = this.killAndSettle())
  }

  private async killAndSettle(): Promise<boolean> {
    if (!(await this.held.kill())) return false
    const ended = new Promise<void>((done) => {
      if (this.ended) done()
      else this.waiters.push(done)
    })
    this.held.conn.resume()
    return new Promise<boolean>((done) => {
      const timer = setTimeout(() => done(false), SETTLE_MS)
      void ended.then(() => {
        clearTimeout(timer)
        done(true)
      })
    })
  }
}

const TAGS = new Set([
  "DriverError",
  "NotConnected",
  "NamespaceNotFound",
  "InvalidArgument",
  "LockTimeout",
  "PolicyRefusal",
  "StatementTimeout"
])
const isTagged = (error: unknown): error is ReachFailure | StatementTimeout =>
  typeof error === "object" && error !== null && TAGS.has((error as { _tag?: unknown })._tag as string)

/** A Session over the held connection, for the guard's catalog lookups before the statement. */
const sessionOf = (held: HeldConnection): Session => ({
  flavor: held.flavor,
  query: (sql, values) => queryWhole(held.conn, sql, values),
  prepare: (sql) => prepareOnly(held.conn, sql),
  stream: () => Promise.reject(new Error("a held session streams one statement"))
})

export const openMysqlCursor = (
  runner: Runner,
  sql: string,
  values: ReadonlyArray<unknown> | undefined,
  database: string | undefined,
  options: CursorOptions,
  hints?: AnswerHints
): Effect.Effect<OpenedCursor, ReachFailure | StatementTimeout> =>
  Effect.suspend(() => {
    let held: HeldConnection | undefined
    let holding: Promise<HeldConnection> | undefined
    let stream: RowStream | undefined
    let decision: MysqlGuardDecision | undefined
    let verdict: AnswerVerdict | undefined
    let broken = false
    let closing: Promise<void> | undefined

    const connect = () => (holding ??= runner.hold(
      database,
      options.idleSeconds + WRITE_MARGIN_SECONDS,
      (options.lifeSeconds ?? options.idleSeconds) + WRITE_MARGIN_SECONDS
    ).then((got) => {
      held = got
      return got
    }))

    const pull = async (count: number, limits: AnswerLimits): Promise<PulledRows> => {
      const session = await connect()
      if (closing !== undefined) throw new DriverError({ message: "the read was closed" })
      if (stream === undefined) {
        decision = options.guard === undefined
          ? undefined
          : await mysqlGuard(sessionOf(session), options.guard, database)
        stream = new RowStream(session, sql, values, (fields) => {
          verdict = decision?.decide(fields)
          return verdict?.kind !== "refuse"
        }, options.onRows)
      }
      try {
        const { rows, done } = await stream.take(count, limits.maxAnswerBytes, limits.maxCellBytes)
        if (verdict?.kind === "refuse") throw new PolicyRefusal({ refusal: verdict.refusal })
        const answer = verdict
        return {
          rows: answer === undefined ? rows : rows.map((row) => projectRow(row, answer.actions, maskedCell)),
          done
        }
      } catch (error) {
        if (verdict?.kind === "refuse") throw new PolicyRefusal({ refusal: verdict.refusal })
        const failure = error as { readonly errno?: unknown; readonly fatal?: unknown }
        // An error while reading guarded rows may quote a value the AI settings protect: only its code is told.
        if (decision?.readsGuarded === true && typeof failure.errno === "number" && failure.fatal !== true) {
          throw new DriverError({ message: withheldError(String(failure.errno)) })
        }
        throw error
      }
    }

    const pages = new CursorPages({
      columns: () => {
        const names = (stream?.fields ?? []).map((field) => field.name)
        return verdict?.kind === "answer" ? keptNames(names, verdict.actions) : names
      },
      applied: () => (verdict?.kind === "answer" ? verdict.applied : []),
      pull
    }, hints)

    const close = (): Promise<void> => (closing ??= (async () => {
      const session = await holding?.catch(() => undefined)
      if (session === undefined) return
      const clean = !broken && (stream === undefined || await stream.stop())
      await session.release(!clean)
    })())

    /** A page within dbdesk's deadline; the deadline or an interruption kills the statement (the handle is then closed). */
    const page: HeldCursor["page"] = (maxRows, limits) =>
      Effect.async((resume) => {
        let settled = false
        const finish = (outcome: ReturnType<HeldCursor["page"]>) => {
          if (settled) return
          settled = true
          clearTimeout(deadline)
          resume(outcome)
        }
        pages.page(maxRows, limits).then(
          (value) => finish(Effect.succeed(value)),
          (error: unknown) => {
            // Already the driver's own failure: the guard's, or the session's that could not be held (Runner.hold).
            if (isTagged(error)) return finish(Effect.fail(error))
            if ((error as { fatal?: unknown }).fatal === true) broken = true
            finish(Effect.fail(
              held === undefined
                ? new DriverError({ message: "the read could not start" })
                : held.failure(error, options.timeoutSeconds)
            ))
          }
        )
        const deadline = setTimeout(() => {
          if (settled) return
          settled = true
          void close().then(() => resume(Effect.fail(new StatementTimeout({ seconds: options.timeoutSeconds }))))
        }, options.timeoutSeconds * 1000)
        return Effect.promise(() => {
          settled = true
          clearTimeout(deadline)
          return close()
        })
      })

    const cursor: HeldCursor = { page, close: () => Effect.promise(close) }
    return cursor.page(options.maxRows, options.limits).pipe(
      Effect.tap((first) => (first.more ? Effect.void : cursor.close())),
      Effect.onError(() => cursor.close()),
      Effect.map((first) => ({ cursor, first }))
    )
  })
