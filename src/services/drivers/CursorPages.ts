// The pages of a held cursor (fetch_more): rows are pulled from the database's open cursor one page (plus one row)
// at a time and answered under the same caps as execute_query; a row the answer could not take waits for the next
// page, so nothing is skipped and nothing is read twice.
import {
  AnswerBudget,
  type AnswerHints,
  type AnswerLimits,
  DEFAULT_ANSWER_LIMITS,
  SQL_HINTS
} from "../../domain/AnswerBudget.ts"
import type { AppliedRule } from "../../domain/AnswerGate.ts"
import type { GuardedResultSet } from "./Driver.ts"

/** What a cut page tells its reader: the rest is one call away, on the same cursor (cells keep the tool's own advice). */
export const continueHints = (base: AnswerHints): AnswerHints => ({
  ...base,
  rows: "the statement is still open: call fetch_more with continuation.handle for the next rows",
  bytes:
    "the statement is still open: call fetch_more with continuation.handle for the next rows, or select fewer columns"
})
export const CONTINUE_HINTS = continueHints(SQL_HINTS)

/** A driver's open cursor: rows as the answer shows them (after the guard's projection). */
export interface RowSource {
  readonly columns: () => ReadonlyArray<string>
  readonly applied: () => ReadonlyArray<AppliedRule>
  /**
   * At most `count` more rows; `done` once the statement has no more. `stopped`: the read was ended early (too many
   * bytes read for one answer) and cannot go on; the text says why.
   */
  readonly pull: (count: number, limits: AnswerLimits) => Promise<PulledRows>
}

export interface PulledRows {
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  readonly done: boolean
  readonly stopped?: string | undefined
}

export class CursorPages {
  private pending: Array<ReadonlyArray<unknown>> = []
  private done = false

  constructor(private readonly source: RowSource, private readonly hints: AnswerHints = SQL_HINTS) {}

  /** The next page: at most `maxRows` rows within the caps; `more` while rows remain (one row is always read ahead). */
  async page(
    maxRows: number,
    limits: AnswerLimits | undefined
  ): Promise<{ readonly resultSet: GuardedResultSet; readonly more: boolean }> {
    const started = performance.now()
    const wanted = this.wanted(maxRows)
    return this.assemble(
      maxRows,
      limits,
      wanted > 0 ? await this.source.pull(wanted, limits ?? DEFAULT_ANSWER_LIMITS) : undefined,
      started
    )
  }

  /** Rows to pull for a page of `maxRows` (0: the rows read ahead suffice, or the statement has no more). */
  wanted(maxRows: number): number {
    return this.done ? 0 : Math.max(0, maxRows + 1 - this.pending.length)
  }

  /** The page from the rows read ahead and `pulled` (for a source read synchronously, as in the SQLite child). */
  assemble(
    maxRows: number,
    limits: AnswerLimits | undefined,
    pulled: PulledRows | undefined,
    started = performance.now()
  ): { readonly resultSet: GuardedResultSet; readonly more: boolean } {
    let stopped: string | undefined
    if (pulled !== undefined) {
      this.pending.push(...pulled.rows)
      this.done = pulled.done || pulled.stopped !== undefined
      stopped = pulled.stopped
    }
    const budget = new AnswerBudget(
      maxRows,
      limits ?? DEFAULT_ANSWER_LIMITS,
      stopped === undefined ? continueHints(this.hints) : this.hints
    )
    const columns = budget.header(this.source.columns())
    let kept = 0
    while (kept < this.pending.length && budget.add(this.pending[kept]!)) kept++
    // A read ended early cannot go on: the rows it read past this answer are dropped with it.
    this.pending = stopped === undefined ? this.pending.slice(kept) : []
    const more = this.pending.length > 0 || !this.done
    const built = budget.resultSet(columns, { executionMs: performance.now() - started, statusMessage: stopped })
    const resultSet = stopped === undefined ? built : { ...built, is_truncated: true }
    const applied = this.source.applied()
    return { resultSet: applied.length === 0 ? resultSet : { ...resultSet, applied }, more }
  }
}
