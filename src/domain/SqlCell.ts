/**
 * Driver values to JSON cells, and the byte arithmetic of a cell (UTF-8 and JSON lengths, the cut marker);
 * free of imports so the SQLite child process starts fast.
 */

export type Cell = string | number | boolean | null

/** The default of `limits.maxCellBytes`. */
export const DEFAULT_MAX_CELL_BYTES = 32_768

/** How the cut marker tells a reader to get the rest of a SQL value. */
export const READ_SQL_PART = "read it in parts with substr()"

/** UTF-8 length of a string without allocating (a lone surrogate counts as the 3 bytes of U+FFFD). */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** Bytes one character takes inside a JSON string: `pair` when `code` starts a surrogate pair. */
const jsonCharBytes = (code: number, pair: boolean): number =>
  code < 0x20
    ? (code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6)
    : code === 0x22 || code === 0x5c
    ? 2
    : code < 0x80
    ? 1
    : code < 0x800
    ? 2
    : pair
    ? 4
    : code >= 0xd800 && code <= 0xdfff
    ? 6
    : 3

const startsPair = (text: string, at: number, code: number) =>
  code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(at + 1))

/**
 * Exact UTF-8 length of `JSON.stringify(text)`, quotes included, without allocating: `"` and `\` take two bytes,
 * control characters two (`\n`) or six (`\u0001`), a lone surrogate six (`\ud800`, well-formed JSON.stringify).
 */
export const jsonStringBytes = (text: string): number => {
  let bytes = 2
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const pair = startsPair(text, i, code)
    bytes += jsonCharBytes(code, pair)
    if (pair) i++
  }
  return bytes
}

/** The longest prefix of `text` whose JSON text (quotes excluded) fits in `maxBytes`, never splitting a character. */
export const jsonPrefix = (text: string, maxBytes: number): string => {
  let bytes = 0
  let end = 0
  while (end < text.length) {
    const code = text.charCodeAt(end)
    const pair = startsPair(text, end, code)
    const width = jsonCharBytes(code, pair)
    if (bytes + width > maxBytes) break
    bytes += width
    end += pair ? 2 : 1
  }
  return text.slice(0, end)
}

/** Exact UTF-8 length of a cell's JSON text. */
export const cellJsonBytes = (cell: Cell): number =>
  cell === null ? 4 : typeof cell === "string" ? jsonStringBytes(cell) : String(cell).length

/** The longest prefix of `text` whose UTF-8 form fits in `maxBytes`, never splitting a surrogate pair. */
export const utf8Prefix = (text: string, maxBytes: number): string => {
  let bytes = 0
  let end = 0
  while (end < text.length) {
    const code = text.charCodeAt(end)
    const pair = code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(end + 1))
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3
    if (bytes + width > maxBytes) break
    bytes += width
    end += pair ? 2 : 1
  }
  return text.slice(0, end)
}

const MARKER_START = " …[cut by dbdesk: "
const MARKER_TAIL = /^ …\[cut by dbdesk: (?:blob of )?(\d+) bytes, first \d+ (?:bytes )?shown[^\]]*\]$/

/** The marker that ends a cut text cell: what a person or a model sees in place of the rest. */
export const cutMarker = (fullBytes: number, keptBytes: number, readPart: string = READ_SQL_PART): string =>
  `${MARKER_START}${fullBytes} bytes, first ${keptBytes} shown; ${readPart}]`

/** The marker that ends a cut blob, whose shown part is hex: the lengths are the blob's own bytes. */
export const blobCutMarker = (fullBytes: number, keptBytes: number, readPart: string = READ_SQL_PART): string =>
  `${MARKER_START}blob of ${fullBytes} bytes, first ${keptBytes} bytes shown; ${readPart}]`

/** The widest marker any value can get with this `readPart` (so a cut cell's JSON size is known in advance). */
export const widestMarkerBytes = (readPart: string = READ_SQL_PART): number =>
  utf8Length(blobCutMarker(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, readPart))

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"))

const hex = (bytes: Uint8Array, count: number): string => {
  let text = ""
  for (let i = 0; i < count; i++) text += HEX[bytes[i] ?? 0]
  return text
}

/**
 * Turns a driver value into a JSON value, leaving blobs as bytes for {@link capCell}. 64-bit integers beyond the safe
 * range become their decimal string (D-20); non-finite floats become "Infinity"/"-Infinity"/"NaN";
 * dates become ISO 8601 text; anything else structured becomes its JSON text.
 */
export const toCellValue = (value: unknown): Cell | Uint8Array => {
  if (value === null || value === undefined) return null
  if (typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString()
  }
  if (value instanceof Uint8Array) return value
  if (value instanceof Date) return value.toISOString()
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner)) ?? null
}

export interface CappedCell {
  readonly cell: Cell
  /** Exact UTF-8 bytes of the cell's JSON text. */
  readonly bytes: number
  /** The full length in bytes when the value is shown cut (by this call or an earlier one). */
  readonly cutFrom?: number
  /** True when this call did the cut (a value already cut by dbdesk keeps its marker and is not counted again). */
  readonly cutNow?: boolean
}

/**
 * A blob as the SQL hex literal `X'0a1b…'` (readable, and usable back in a query) when the literal fits in
 * `maxCellBytes`; otherwise the literal of its first bytes followed by the blob marker with its full length.
 */
const capBlob = (bytes: Uint8Array, maxCellBytes: number, readPart: string): CappedCell => {
  if (3 + 2 * bytes.length <= maxCellBytes) {
    const cell = `X'${hex(bytes, bytes.length)}'`
    return { cell, bytes: cell.length + 2 }
  }
  const kept = Math.max(0, Math.floor((maxCellBytes - 3) / 2))
  const cell = `X'${hex(bytes, kept)}'${blobCutMarker(bytes.length, kept, readPart)}`
  return { cell, bytes: jsonStringBytes(cell), cutFrom: bytes.length, cutNow: true }
}

/** A text that already ends with dbdesk's marker: its shown part and the full length the marker names. */
const earlierCut = (text: string): { readonly shown: string; readonly full: number } | undefined => {
  const at = text.lastIndexOf(MARKER_START)
  if (at < 0) return undefined
  const match = MARKER_TAIL.exec(text.slice(at))
  return match === null ? undefined : { shown: text.slice(0, at), full: Number(match[1]) }
}

/** Whether a cell shows only the start of its value (it ends with dbdesk's cut marker): such a value cannot be edited. */
export const isCutCell = (cell: Cell): boolean => typeof cell === "string" && earlierCut(cell) !== undefined

/**
 * Caps one cell at `maxCellBytes` UTF-8 bytes: a longer text keeps its longest prefix that fits (never splitting a
 * character) followed by {@link cutMarker}; a blob is shown as hex (see `capBlob`); numbers, booleans and null are
 * small. Idempotent: a cell cut earlier keeps its marker and its original full length.
 */
export const capCell = (
  value: Cell | Uint8Array,
  maxCellBytes: number,
  readPart: string = READ_SQL_PART
): CappedCell => {
  if (value instanceof Uint8Array) return capBlob(value, maxCellBytes, readPart)
  if (typeof value !== "string") return { cell: value, bytes: cellJsonBytes(value) }
  if (value.length * 3 <= maxCellBytes) return { cell: value, bytes: jsonStringBytes(value) }
  const earlier = earlierCut(value)
  if (earlier !== undefined && utf8Length(earlier.shown) <= maxCellBytes) {
    return { cell: value, bytes: jsonStringBytes(value), cutFrom: earlier.full }
  }
  const full = earlier?.full ?? utf8Length(value)
  const whole = earlier?.shown ?? value
  if (earlier === undefined && full <= maxCellBytes) return { cell: value, bytes: jsonStringBytes(value) }
  const kept = utf8Prefix(whole, maxCellBytes)
  const cell = kept + cutMarker(full, utf8Length(kept), readPart)
  return { cell, bytes: jsonStringBytes(cell), cutFrom: full, cutNow: true }
}

/**
 * A driver value as a JSON cell (D-20); a blob as its hex literal within the default
 * `limits.maxCellBytes`. One argument on purpose, so `row.map(toCell)` stays right; an answer caps its cells with
 * AnswerBudget, which takes the raw values and the configured caps.
 */
export const toCell = (value: unknown): Cell => {
  const cell = toCellValue(value)
  return cell instanceof Uint8Array ? capCell(cell, DEFAULT_MAX_CELL_BYTES).cell : cell
}
