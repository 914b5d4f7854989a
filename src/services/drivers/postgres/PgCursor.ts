// A held cursor on PostgreSQL (fetch_more): one session kept for the handle, a read-only REPEATABLE READ transaction,
// the statement bound once to the unnamed portal and executed page by page with a row limit (the portal suspends in
// between, PgPipeline.ts `resume`). Every page sees the transaction's snapshot, taken when the statement started.
// Closing rolls the transaction back and gives the session back clean (PgLease.finish).
import pg from "pg"
import { Effect } from "effect"
import { type AnswerVerdict, keptNames, projectRow, withheldError } from "../../../domain/AnswerGate.ts"
import type { AnswerHints, AnswerLimits } from "../../../domain/AnswerBudget.ts"
import { maskedCell } from "../../../domain/ColumnGuard.ts"
import { CursorPages } from "../CursorPages.ts"
import {
  type CursorOptions,
  DriverError,
  type HeldCursor,
  type OpenedCursor,
  PolicyRefusal,
  type ReachFailure,
  StatementTimeout
} from "../Driver.ts"
import type { Cell } from "../../../domain/SqlCell.ts"
import { TRANSFER_FACTOR } from "./PgResults.ts"
import { cellOf } from "./PgCells.ts"
import { PgGuardLookup } from "./PgGuard.ts"
import type { FieldInfo, Step, StepOutcome } from "./PgPipeline.ts"
import { CANCEL_TIMEOUT_MS } from "./PgCancel.ts"
import { SETTLE_MS, Stopped, within } from "./PgLease.ts"
import type { HeldSession, RunFailure, Runner } from "./PostgresRunner.ts"

const asReach = (error: RunFailure): ReachFailure | StatementTimeout =>
  error._tag === "TableNotFound" || error._tag === "Unsupported"
    ? new DriverError({ message: error._tag === "Unsupported" ? error.message : `no table named ${error.table}` })
    : error

/** The session of a handle, leased on its first page; one that arrives after the handle was stopped goes straight back. */
class Slot {
  session: HeldSession | undefined
  stopped = false
  constructor(private readonly runner: Runner, private readonly options: CursorOptions) {}

  async get(): Promise<HeldSession> {
    if (this.session !== undefined) return this.session
    const held = await this.runner.hold({
      access: "readonly",
      seconds: this.options.timeoutSeconds,
      namespace: this.options
    })
    if (this.stopped) {
      await held.release()
      throw new Stopped()
    }
    this.session = held
    return held
  }

  stop(): void {
    this.stopped = true
    this.session?.lease.stop()
  }

  release(): Promise<void> {
    this.stopped = true
    return this.session?.release() ?? Promise.resolve()
  }
}

/**
 * Runs `body` on the handle's session within dbdesk's deadline (D-18: the server's own
 * statement_timeout is one second longer), the wait for a session included. Interrupting it or the deadline cancels
 * the running statement; the handle is then closed by its owner.
 */
const onSession = <A>(
  slot: Slot,
  seconds: number,
  body: (session: HeldSession) => Promise<A>
): Effect.Effect<A, ReachFailure | StatementTimeout> =>
  Effect.async((resume) => {
    let settled = false
    const finish = (outcome: Effect.Effect<A, ReachFailure | StatementTimeout>) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      resume(outcome)
    }
    const done = slot.get().then(body)
    done.then(
      (value) => finish(Effect.succeed(value)),
      (error: unknown) => {
        if (error instanceof PolicyRefusal || error instanceof DriverError) return finish(Effect.fail(error))
        // Before a session was leased the failure is already the connection's (PostgresRunner.hold).
        finish(Effect.fail(asReach(slot.session === undefined ? error as RunFailure : slot.session.failure(error))))
      }
    )
    const deadline = setTimeout(() => {
      if (settled) return
      settled = true
      // Still waiting for a session: nothing runs on the server, and the session goes straight back when it comes.
      const waited = slot.session === undefined ? Promise.resolve(true) : within(done, CANCEL_TIMEOUT_MS + SETTLE_MS)
      slot.stop()
      void waited.then(() => resume(Effect.fail(new StatementTimeout({ seconds }))))
    }, seconds * 1000)
    return Effect.sync(() => {
      settled = true
      clearTimeout(deadline)
      slot.stop()
    })
  })

export const openPgCursor = (
  runner: Runner,
  sql: string,
  values: ReadonlyArray<string | null>,
  prefix: ReadonlyArray<Step>,
  options: CursorOptions,
  hints?: AnswerHints
): Effect.Effect<OpenedCursor, ReachFailure | StatementTimeout> =>
  Effect.sync(() => {
    const slot = new Slot(runner, options)
    const lookup = options.guard === undefined ? undefined : new PgGuardLookup(options.guard)
    let fields: ReadonlyArray<FieldInfo> = []
    let verdict: AnswerVerdict | undefined
    let opened = false
    let rows: Array<ReadonlyArray<Cell>> = []
    let read = 0
    let transferLimit = 0
    let transferStopped = false
    let arrived = 0
    const sink = {
      fields: (described: ReadonlyArray<FieldInfo>) => {
        fields = described
        verdict = lookup?.decide(described)
      },
      row: (cells: ReadonlyArray<string | null>, size: number) => {
        // A refused answer reads no row; the refusal is told once the round trip ends.
        if (verdict?.kind === "refuse") return "stop" as const
        rows.push(cells.map((text, index) => cellOf(text, fields[index]?.typeOid ?? 0)))
        options.onRows?.(++arrived)
        read += size
        if (read <= transferLimit) return "more" as const
        transferStopped = true
        return "stop" as const
      }
    }
    const pull = async (count: number, limits: AnswerLimits) => {
      rows = []
      read = 0
      transferLimit = TRANSFER_FACTOR * limits.maxAnswerBytes
      const first = !opened
      opened = true
      const step: Step = first
        ? { text: sql, values, rows: { limit: count, sink } }
        : { text: "", resume: true, rows: { limit: count, sink } }
      const steps: ReadonlyArray<Step> = first
        ? [
          { text: "BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ" },
          { text: `SET LOCAL statement_timeout = ${(options.timeoutSeconds + 1) * 1000}` },
          // The server's backstop against a forgotten session: past the handle's own idle limit, never before it.
          { text: `SET LOCAL idle_in_transaction_session_timeout = ${(options.idleSeconds + 30) * 1000}`, flush: true },
          ...prefix,
          ...(lookup?.steps ?? []),
          step
        ]
        : [step]
      let outcome: StepOutcome | undefined
      let stoppedEarly = false
      let discarded = 0
      try {
        const result = await slot.session!.lease.submit(steps)
        outcome = result.outcomes[steps.length - 1]
        stoppedEarly = result.stoppedEarly
        discarded = result.discarded
        const confirmation = first ? lookup?.confirmation : undefined
        if (confirmation !== undefined && !stoppedEarly) {
          await slot.session!.lease.submit(confirmation)
          verdict = lookup!.decide(fields)
        }
      } catch (error) {
        if (verdict?.kind === "refuse") throw new PolicyRefusal({ refusal: verdict.refusal })
        // An error while reading guarded rows may quote a value the AI settings protect: only its code is told.
        if (lookup?.readsGuarded === true && error instanceof pg.DatabaseError && !/^(08|57)/.test(error.code ?? "")) {
          throw new DriverError({ message: withheldError(error.code) })
        }
        throw error
      }
      if (verdict?.kind === "refuse") throw new PolicyRefusal({ refusal: verdict.refusal })
      const answer = verdict
      const projected = answer === undefined ? rows : rows.map((row) => projectRow(row, answer.actions, maskedCell))
      // Stopped on transfer: cut unless the statement then ended by itself with nothing dropped (as PgResults.ts).
      if (transferStopped && (discarded > 0 || outcome === undefined || outcome.suspended)) {
        return {
          rows: projected,
          done: true,
          stopped:
            `the rows read from the database passed ${transferLimit} bytes (${TRANSFER_FACTOR} × limits.maxAnswerBytes), so the read was ended; select fewer or shorter columns (length(), substr()) or add a WHERE or a LIMIT`
        }
      }
      return { rows: projected, done: stoppedEarly || outcome === undefined || !outcome.suspended }
    }
    const pages = new CursorPages({
      columns: () => {
        const names = fields.map((field) => field.name)
        return verdict?.kind === "answer" ? keptNames(names, verdict.actions) : names
      },
      applied: () => (verdict?.kind === "answer" ? verdict.applied : []),
      pull
    }, hints)
    const cursor: HeldCursor = {
      page: (maxRows: number, limits: AnswerLimits | undefined) =>
        onSession(slot, options.timeoutSeconds, () => pages.page(maxRows, limits)),
      close: () => Effect.promise(() => slot.release())
    }
    return cursor
  }).pipe(Effect.flatMap((cursor) =>
    cursor.page(options.maxRows, options.limits).pipe(
      // D-104: a read that was not cut gives its session back (one ROLLBACK) before it answers: the next call then
      // finds it idle in the pool rather than opening another.
      Effect.tap((first) => (first.more ? Effect.void : cursor.close())),
      Effect.onError(() => cursor.close()),
      Effect.map((first) => ({ cursor, first }))
    )
  ))
