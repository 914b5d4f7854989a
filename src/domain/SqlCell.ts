/** Driver values to JSON cells; free of imports so the SQLite child process starts fast. */

/** Blobs up to this size are shown as a SQL hex literal; larger ones only by their size. */
export const BLOB_HEX_LIMIT = 4096

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * Turns a driver value into a JSON cell. 64-bit integers beyond the safe range become their decimal
 * string (product-decisions §3); non-finite floats become "Infinity"/"-Infinity"/"NaN"; blobs become the
 * SQL hex literal `X'0a1b…'` (readable and usable back in a query) up to 4,096 bytes, else
 * `<blob N bytes>`; dates become ISO 8601 text; anything else structured becomes its JSON text.
 */
export const toCell = (value: unknown): string | number | boolean | null => {
  if (value === null || value === undefined) return null
  if (typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString()
  }
  if (value instanceof Uint8Array) {
    return value.length <= BLOB_HEX_LIMIT ? `X'${hex(value)}'` : `<blob ${value.length} bytes>`
  }
  if (value instanceof Date) return value.toISOString()
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner))
}
