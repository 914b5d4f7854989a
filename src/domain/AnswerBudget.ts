/**
 * Byte caps on every answer built from database values (settings `limits.maxCellBytes`,
 * `limits.maxAnswerBytes`). Free of imports so the SQLite child process can use it too.
 */

export interface AnswerLimits {
  /** A text or binary cell longer than this many UTF-8 bytes is cut, with a marker giving its full length. */
  readonly maxCellBytes: number
  /** Rows stop once the cells kept add up to this many bytes; the answer says so. */
  readonly maxAnswerBytes: number
}

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = { maxCellBytes: 32_768, maxAnswerBytes: 8 * 1024 * 1024 }

export type Cell = string | number | boolean | null

/** UTF-8 length of a string without allocating. */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** The longest prefix of `text` whose UTF-8 form fits in `maxBytes`, never splitting a surrogate pair. */
const utf8Prefix = (text: string, maxBytes: number): string => {
  let bytes = 0
  let end = 0
  while (end < text.length) {
    const code = text.charCodeAt(end)
    const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < text.length
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3
    if (bytes + width > maxBytes) break
    bytes += width
    end += pair ? 2 : 1
  }
  return text.slice(0, end)
}

/** The marker that ends a cut cell: what a person or a model sees in place of the rest. */
export const cutMarker = (fullBytes: number, keptBytes: number): string =>
  ` …[cut by dbdesk: ${fullBytes} bytes, first ${keptBytes} shown; read it in parts with substr()]`

export interface CappedCell {
  readonly cell: Cell
  /** Bytes the cell counts for in the answer. */
  readonly bytes: number
  /** The full UTF-8 length when the cell was cut. */
  readonly cutFrom?: number
}

/** Caps one cell at `maxCellBytes` (strings only: numbers, booleans and null are small). */
export const capCell = (cell: Cell, maxCellBytes: number): CappedCell => {
  if (typeof cell !== "string") return { cell, bytes: cell === null ? 4 : String(cell).length }
  if (cell.length * 3 <= maxCellBytes) return { cell, bytes: cell.length + 2 }
  const full = utf8Length(cell)
  if (full <= maxCellBytes) return { cell, bytes: full + 2 }
  const kept = utf8Prefix(cell, maxCellBytes)
  const text = kept + cutMarker(full, utf8Length(kept))
  return { cell: text, bytes: utf8Length(text) + 2, cutFrom: full }
}

/**
 * Collects the rows of one answer under the row limit and both byte caps. `add` returns false once the
 * answer is full (by rows or bytes): the caller stops reading (and ends the statement) there.
 */
export class AnswerBudget {
  readonly rows: Array<ReadonlyArray<Cell>> = []
  private bytes = 0
  private cutCells = 0
  /** Why rows stopped early: "rows" (the row limit) or "bytes" (limits.maxAnswerBytes). */
  stoppedBy: "rows" | "bytes" | undefined

  constructor(readonly maxRows: number, readonly limits: AnswerLimits = DEFAULT_ANSWER_LIMITS) {}

  /** Adds one row of cells; false when the row was not kept because the answer is full. */
  add(row: ReadonlyArray<Cell>): boolean {
    if (this.stoppedBy !== undefined) return false
    if (this.rows.length >= this.maxRows) {
      this.stoppedBy = "rows"
      return false
    }
    let rowBytes = 2
    let cutHere = 0
    const capped = row.map((cell) => {
      const result = capCell(cell, this.limits.maxCellBytes)
      rowBytes += result.bytes + 1
      if (result.cutFrom !== undefined) cutHere++
      return result.cell
    })
    if (this.bytes + rowBytes > this.limits.maxAnswerBytes && this.rows.length > 0) {
      this.stoppedBy = "bytes"
      return false
    }
    this.bytes += rowBytes
    this.cutCells += cutHere
    this.rows.push(capped)
    return true
  }

  /** Whether a row was refused: the answer holds fewer rows than the statement produced. */
  get truncated(): boolean {
    return this.stoppedBy !== undefined
  }

  /** Approximate bytes of the kept cells (their JSON form). */
  get size(): number {
    return this.bytes
  }

  /** A sentence for `status_message` saying what was cut and how to narrow the query; undefined when nothing was. */
  note(): string | undefined {
    const parts: Array<string> = []
    if (this.stoppedBy === "rows") parts.push(`showing the first ${this.rows.length} rows`)
    if (this.stoppedBy === "bytes") {
      parts.push(
        `showing the first ${this.rows.length} rows: the answer reached ${this.limits.maxAnswerBytes} bytes (limits.maxAnswerBytes); select fewer columns, add a WHERE or a LIMIT, or page with OFFSET`
      )
    }
    if (this.cutCells > 0) {
      parts.push(
        `${this.cutCells} cell${this.cutCells === 1 ? " was" : "s were"} cut at ${this.limits.maxCellBytes} bytes (limits.maxCellBytes); select length() or substr() of long columns`
      )
    }
    return parts.length === 0 ? undefined : parts.join("; ")
  }
}
