// A statement's rows into a result set under the answer's caps (D-71): AnswerBudget keeps at most max_rows
// rows, cuts long cells and stops at limits.maxAnswerBytes; a read also stops once the rows read from the server
// pass TRANSFER_FACTOR × maxAnswerBytes (huge cells cost transfer even when cut), and is then cancelled server-side.
import {
  AnswerBudget,
  type AnswerHints,
  type AnswerLimits,
  DEFAULT_ANSWER_LIMITS,
  SQL_HINTS
} from "../../../domain/AnswerBudget.ts"
import { type AnswerVerdict, keptNames, projectRow } from "../../../domain/AnswerGate.ts"
import { maskedCell } from "../../../domain/ColumnGuard.ts"
import type { ResultSet } from "../../../domain/ResultSet.ts"
import { cellOf } from "./PgCells.ts"
import type { FieldInfo, PipelineResult, RowSink, SinkVerdict, StepOutcome } from "./PgPipeline.ts"

/** Rows stop once this many times limits.maxAnswerBytes has been read from the server. */
export const TRANSFER_FACTOR = 4

const CHANGES_ROWS = /^(INSERT|UPDATE|DELETE|MERGE|COPY)$/

export class ResultCollector implements RowSink {
  /** The columns with their origins (table OID, column number), kept for callers that need them. */
  columns: ReadonlyArray<FieldInfo> = []
  readonly budget: AnswerBudget
  private readonly limits: AnswerLimits
  private read = 0
  private transferStopped = false

  /** The column names as the answer shows them (charged to the budget, cut like cells when huge). */
  private names: ReadonlyArray<string> = []
  /** D-64: the guard's verdict on this answer, made from the RowDescription before any row is kept. */
  verdict: AnswerVerdict | undefined

  /**
   * `stopsStatement`: the statement is a read that may be cancelled when the answer is full (never a write).
   * `guard`: decides on the answer from its columns' origins (MCP callers; D-65).
   */
  constructor(
    maxRows: number,
    limits: AnswerLimits | undefined,
    private readonly stopsStatement: boolean,
    hints: AnswerHints = SQL_HINTS,
    private readonly guard?: { readonly decide: (fields: ReadonlyArray<FieldInfo>) => AnswerVerdict | undefined }
  ) {
    this.limits = limits ?? DEFAULT_ANSWER_LIMITS
    this.budget = new AnswerBudget(maxRows, this.limits, hints)
  }

  /** The row limit to give the portal: one more than kept, so a truncated answer knows it is. */
  get portalRows(): number {
    return this.budget.maxRows + 1
  }

  /** Whether the statement's RowDescription arrived: errors after it come from reading rows. */
  described = false

  fields(fields: ReadonlyArray<FieldInfo>): void {
    this.described = true
    this.columns = fields
    this.verdict = this.guard?.decide(fields)
    const names = fields.map((field) => field.name)
    this.names = this.verdict?.kind === "refuse"
      ? []
      : this.budget.header(this.verdict === undefined ? names : keptNames(names, this.verdict.actions))
  }

  row(values: ReadonlyArray<string | null>, size: number): SinkVerdict {
    if (this.verdict?.kind === "refuse") return this.stopsStatement ? "stop" : "more"
    this.read += size
    const cells = values.map((value, index) => cellOf(value, this.columns[index]?.typeOid ?? 0))
    const kept = this.budget.add(
      this.verdict === undefined ? cells : projectRow(cells, this.verdict.actions, maskedCell)
    )
    if (!this.stopsStatement) return "more"
    if (!kept) return this.budget.stoppedBy === "bytes" ? "stop" : "more"
    if (this.read > TRANSFER_FACTOR * this.limits.maxAnswerBytes) {
      this.transferStopped = true
      return "stop"
    }
    return "more"
  }

  /** The result set of the statement whose step ended with `outcome` (undefined when it was cancelled). */
  resultSet(pipeline: PipelineResult, outcome: StepOutcome | undefined, started: number): ResultSet {
    // Stopped on transfer: truncated unless the statement then ended by itself with nothing dropped.
    const transferCut = this.transferStopped && (pipeline.discarded > 0 || outcome === undefined || outcome.suspended)
    const command = outcome?.command ?? "SELECT"
    const changesRows = CHANGES_ROWS.test(command)
    const affected = changesRows ? outcome?.count ?? 0 : 0
    const transferNote = transferCut
      ? `showing the first ${this.budget.rows.length} rows: the rows read from the database passed ${
        TRANSFER_FACTOR * this.limits.maxAnswerBytes
      } bytes (${TRANSFER_FACTOR} × limits.maxAnswerBytes); select fewer or shorter columns (length(), substr()) or add a WHERE or a LIMIT`
      : undefined
    const status = changesRows
      ? `${affected} row${affected === 1 ? "" : "s"} affected`
      : command === "SELECT" || command === ""
      ? undefined
      : command
    const resultSet = this.budget.resultSet([...this.names], {
      executionMs: performance.now() - started,
      rowsAffected: affected,
      statusMessage: status === undefined
        ? transferNote
        : transferNote === undefined
        ? status
        : `${status}; ${transferNote}`
    })
    return transferCut ? { ...resultSet, is_truncated: true } : resultSet
  }
}
