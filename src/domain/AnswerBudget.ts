import type { ResultSet } from "./ResultSet.ts"
import { capCell, type Cell, jsonStringBytes, READ_SQL_PART, toCellValue, widestMarkerBytes } from "./SqlCell.ts"

/**
 * Byte caps on every answer built from database values (settings `limits.maxCellBytes`, `limits.maxAnswerBytes`).
 * Imports only the import-free SqlCell.ts (and a type), so the SQLite child process can use it too.
 */

export { capCell, type Cell, cutMarker, type CappedCell, utf8Length } from "./SqlCell.ts"

export interface AnswerLimits {
  /** A text or binary cell longer than this many UTF-8 bytes is cut, with a marker giving its full length. */
  readonly maxCellBytes: number
  /** The JSON of one answer's structured content stays within this many bytes; rows stop and the answer says so. */
  readonly maxAnswerBytes: number
}

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = { maxCellBytes: 32_768, maxAnswerBytes: 8 * 1024 * 1024 }

/**
 * Room kept for the fields around the rows (`row_count`, `execution_time_ms`, `status_message`…), so the whole
 * result set, not only its rows, stays within `maxAnswerBytes`.
 */
export const ENVELOPE_BYTES = 2048

/** What a truncated answer tells its reader to do; the wording depends on the tool that built the answer. */
export interface AnswerHints {
  /** After "showing the first N rows": how to get the others. */
  readonly rows: string
  /** After the answer reached `limits.maxAnswerBytes`: how to ask for less. */
  readonly bytes: string
  /** After cells were cut at `limits.maxCellBytes`: how to see a long value. */
  readonly cells: string
  /** Inside each cut cell's marker. */
  readonly readPart: string
}

/** `execute_query` and the SQL console. */
export const SQL_HINTS: AnswerHints = {
  rows: "narrow the query with WHERE, or page with LIMIT and OFFSET (max_rows allows up to limits.maxRows)",
  bytes: "select fewer columns, add a WHERE or a LIMIT, or page with OFFSET",
  cells: "select length() or substr() of long columns",
  readPart: READ_SQL_PART
}

/** `browse_table` and the grid on a SQL table. */
export const BROWSE_HINTS: AnswerHints = {
  rows: "read the next rows with offset, or add filters",
  bytes: "choose fewer columns, add filters, or lower limit and page with offset",
  cells: "use execute_query with length() or substr() on long columns",
  readPart: READ_SQL_PART
}

/** Every answer built from search-engine documents (console, grid, `browse_table`, `search_documents`). */
export const SEARCH_HINTS: AnswerHints = {
  rows: "read the next documents with offset (browse_table) or page (search_documents), or filter with filter_by",
  bytes:
    "ask for fewer documents (a smaller per_page or limit), filter with filter_by, or leave large fields out with exclude_fields",
  cells: "Typesense cannot return part of a field: leave it out with exclude_fields, or raise limits.maxCellBytes",
  readPart: "Typesense cannot return part of a field"
}

/**
 * Collects the rows of one answer under the row limit and both byte caps, counting the exact bytes of their JSON.
 * `add` returns false once the answer is full (by rows or bytes): the caller stops reading (and ends the statement)
 * there. The first row is shrunk to fit when it alone is larger than the answer may be.
 */
export class AnswerBudget {
  readonly rows: Array<ReadonlyArray<Cell>> = []
  private bytes = 0
  private cutCells = 0
  private readonly available: number
  /** Why rows stopped early: "rows" (the row limit) or "bytes" (limits.maxAnswerBytes). */
  stoppedBy: "rows" | "bytes" | undefined

  constructor(
    readonly maxRows: number,
    readonly limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
    readonly hints: AnswerHints = SQL_HINTS
  ) {
    this.available = Math.max(0, limits.maxAnswerBytes - ENVELOPE_BYTES)
  }

  /**
   * The column names as the answer shows them, charged to the budget: each cut like a cell, and all of them cut
   * further when together they would take more than half of the answer (a SQLite column named by a huge literal).
   */
  header(columns: ReadonlyArray<string>): Array<string> {
    const share = Math.floor(this.available / 2 / Math.max(1, columns.length)) -
      widestMarkerBytes(this.hints.readPart) - 8
    let capped = this.capRow(columns, this.limits.maxCellBytes)
    if (capped.bytes > this.available / 2) capped = this.capRow(columns, Math.max(0, share))
    this.bytes += capped.bytes
    this.cutCells += capped.cut
    return capped.cells as Array<string>
  }

  /** Adds one row of driver values (or cells); false when the row was not kept because the answer is full. */
  add(row: ReadonlyArray<unknown>): boolean {
    if (this.stoppedBy !== undefined) return false
    if (this.rows.length >= this.maxRows) {
      this.stoppedBy = "rows"
      return false
    }
    const comma = this.rows.length > 0 ? 1 : 0
    let capped = this.capRow(row, this.limits.maxCellBytes)
    if (this.rows.length === 0 && this.bytes + capped.bytes > this.available) {
      const share = Math.floor((this.available - this.bytes - 2 - row.length) / Math.max(1, row.length))
      capped = this.capRow(row, Math.max(0, share - widestMarkerBytes(this.hints.readPart) - 2))
    }
    if (this.bytes + comma + capped.bytes > this.available) {
      this.stoppedBy = "bytes"
      return false
    }
    this.bytes += comma + capped.bytes
    this.cutCells += capped.cut
    this.rows.push(capped.cells)
    return true
  }

  private capRow(row: ReadonlyArray<unknown>, maxCellBytes: number) {
    let bytes = 1 + row.length
    let cut = 0
    const cells = row.map((value) => {
      const result = capCell(toCellValue(value), maxCellBytes, this.hints.readPart)
      bytes += result.bytes
      if (result.cutNow === true) cut++
      return result.cell
    })
    return { cells, bytes: row.length === 0 ? 2 : bytes, cut }
  }

  /** Whether a row was refused: the answer holds fewer rows than the statement produced. */
  get truncated(): boolean {
    return this.stoppedBy !== undefined
  }

  /** Exact bytes of the JSON of the kept rows and header (the answer's fields around them excluded). */
  get size(): number {
    return this.bytes
  }

  /** A sentence for `status_message` saying what was cut and how to get the rest; undefined when nothing was. */
  note(): string | undefined {
    const parts: Array<string> = []
    if (this.stoppedBy === "rows") parts.push(`showing the first ${this.rows.length} rows; ${this.hints.rows}`)
    if (this.stoppedBy === "bytes") {
      parts.push(
        this.rows.length === 0
          ? `no row shown: the first row alone is larger than limits.maxAnswerBytes (${this.limits.maxAnswerBytes} bytes); ${this.hints.bytes}`
          : `showing the first ${this.rows.length} rows: the answer reached limits.maxAnswerBytes (${this.limits.maxAnswerBytes} bytes); ${this.hints.bytes}`
      )
    }
    if (this.cutCells > 0) {
      parts.push(
        `${this.cutCells} value${
          this.cutCells === 1 ? " was" : "s were"
        } cut at limits.maxCellBytes (${this.limits.maxCellBytes} bytes); ${this.hints.cells}`
      )
    }
    return parts.length === 0 ? undefined : parts.join("; ")
  }

  /** The result set of this answer; `statusMessage` (e.g. "3 rows affected") goes before the note. */
  resultSet(columns: ReadonlyArray<string>, fields: {
    readonly executionMs: number
    readonly rowsAffected?: number
    readonly statusMessage?: string | undefined
  }): ResultSet {
    const message = joinMessages(fields.statusMessage, this.note())
    return {
      columns,
      rows: this.rows,
      row_count: this.rows.length,
      rows_affected: fields.rowsAffected ?? 0,
      execution_time_ms: fields.executionMs,
      is_truncated: this.truncated,
      ...(message === undefined ? {} : { status_message: message })
    }
  }
}

const joinMessages = (first: string | undefined, second: string | undefined): string | undefined =>
  first === undefined ? second : second === undefined ? first : `${first}; ${second}`

/** Longest `status_message` kept whole: a driver's message is the database's own text and could be anything. */
const MAX_MESSAGE_BYTES = 1024

/**
 * Caps a finished result set (built by any driver) under `limits`: the safety net every tool answer passes, so no
 * result set is larger than `limits.maxAnswerBytes` whatever built it. Cells already cut keep their marker and are
 * not counted again; a result set within the caps comes back unchanged (the same object).
 */
export const capResultSet = (resultSet: ResultSet, limits: AnswerLimits, hints: AnswerHints = SQL_HINTS): ResultSet => {
  const budget = new AnswerBudget(Number.MAX_SAFE_INTEGER, limits, hints)
  const columns = budget.header(resultSet.columns)
  for (const row of resultSet.rows) if (!budget.add(row)) break
  const previous = resultSet.status_message
  const messageFits = previous === undefined || jsonStringBytes(previous) <= MAX_MESSAGE_BYTES
  const note = budget.note()
  if (note === undefined && messageFits && !columns.some((name, index) => name !== resultSet.columns[index])) {
    return resultSet
  }
  const kept = previous === undefined || messageFits
    ? previous
    : capCell(previous, MAX_MESSAGE_BYTES - 200, hints.readPart).cell as string
  const message = joinMessages(kept, note)
  return {
    ...resultSet,
    columns,
    rows: budget.rows,
    row_count: budget.rows.length,
    is_truncated: resultSet.is_truncated || budget.truncated,
    ...(message === undefined ? {} : { status_message: message })
  }
}
