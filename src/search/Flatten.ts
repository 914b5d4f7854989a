import type { SearchCell } from "../domain/SearchGrid.ts"

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const setOwn = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

/**
 * Nested objects become dotted leaf keys (doc 2 §2.2, S2.2-c): `{"meta":{"pages":1}}` → `{"meta.pages":1}`. Arrays and
 * empty objects are leaves.
 */
export const flattenDocument = (document: Record<string, unknown>): Record<string, unknown> => {
  const flat: Record<string, unknown> = {}
  const walk = (value: Record<string, unknown>, prefix: string) => {
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === "" ? key : `${prefix}.${key}`
      if (isPlainObject(child) && Object.keys(child).length > 0) walk(child, path)
      else setOwn(flat, path, child)
    }
  }
  walk(document, "")
  return flat
}

/** The inverse of {@link flattenDocument} for documents whose keys hold no dots. */
export const unflattenDocument = (flat: Record<string, unknown>): Record<string, unknown> => {
  const nested: Record<string, unknown> = {}
  for (const [path, value] of Object.entries(flat)) {
    const segments = path.split(".")
    let target = nested
    segments.slice(0, -1).forEach((segment) => {
      const next = Object.prototype.hasOwnProperty.call(target, segment) ? target[segment] : undefined
      if (isPlainObject(next)) target = next
      else {
        const created: Record<string, unknown> = {}
        setOwn(target, segment, created)
        target = created
      }
    })
    setOwn(target, segments[segments.length - 1] ?? path, value)
  }
  return nested
}

/**
 * The value of a (possibly dotted) column in a stored document. A dotted key stored verbatim wins; a path that crosses
 * an array of objects collects one value per element (typesense-reference §7.2).
 */
export const columnValue = (document: Record<string, unknown>, column: string): unknown => {
  if (Object.prototype.hasOwnProperty.call(document, column)) return document[column]
  const walk = (value: unknown, segments: ReadonlyArray<string>): unknown => {
    if (segments.length === 0) return value
    if (Array.isArray(value)) {
      const collected = value.map((element) => walk(element, segments)).filter((v) => v !== undefined)
      return collected.length === 0 ? undefined : collected
    }
    if (!isPlainObject(value)) return undefined
    const [head, ...rest] = segments
    return head !== undefined && Object.prototype.hasOwnProperty.call(value, head) ? walk(value[head], rest) : undefined
  }
  return walk(document, column.split("."))
}

/** A grid cell: arrays and objects as JSON text (S2.2-d), a missing value as `null`. */
export const toCell = (value: unknown): SearchCell => {
  if (value === undefined || value === null) return null
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  return JSON.stringify(value) ?? null
}

export const documentRow = (document: Record<string, unknown>, columns: ReadonlyArray<string>) =>
  columns.map((column) => toCell(columnValue(document, column)))
