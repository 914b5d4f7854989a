import type { ConsoleOutput } from "../domain/SearchGrid.ts"
import { documentRow, flattenDocument } from "./Flatten.ts"

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** Columns of a grid of documents: the union of flattened keys, `id` first, the rest sorted ignoring case. */
const gridOf = (objects: ReadonlyArray<Record<string, unknown>>): ConsoleOutput => {
  const flat = objects.map(flattenDocument)
  const keys = new Set<string>()
  flat.forEach((object) => Object.keys(object).forEach((key) => keys.add(key)))
  const rest = [...keys]
    .filter((key) => key !== "id")
    .sort((a, b) => {
      const x = a.toLowerCase()
      const y = b.toLowerCase()
      return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0
    })
  const columns = keys.has("id") ? ["id", ...rest] : rest
  // an empty grid still shows the `response` column (typesense-reference §7.8)
  if (columns.length === 0) return { _tag: "Grid", columns: ["response"], rows: [] }
  return { _tag: "Grid", columns, rows: flat.map((object) => documentRow(object, columns)) }
}

const hitDocuments = (hits: ReadonlyArray<unknown>): ReadonlyArray<Record<string, unknown>> =>
  hits.map((hit) => (isPlainObject(hit) && isPlainObject(hit.document) ? hit.document : {}))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (!isPlainObject(value)) return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])])
  )
}

/** The export endpoint always renders as a grid, even with one document (D-58, Console row). */
export const isExportPath = (path: string) =>
  /^\/collections\/[^/]+\/documents\/export\/?$/.test(path.split(/[?#]/)[0] ?? "")

/**
 * How a successful console response is shown (doc 2 §4.3, typesense-reference §7.8): `hits` → grid of documents
 * (S4.3-b); a `multi_search` of exactly one search with `hits` → the same grid; a JSON array of objects → grid; JSON
 * lines (export, import results) → grid (S4.3-c); anything else, a batch of several searches included, one pretty JSON
 * cell (S4.3-d).
 */
export const renderConsoleResponse = (body: string, path: string): ConsoleOutput => {
  const parsed = parseJson(body)
  if (parsed.ok) {
    const value = parsed.value
    if (isPlainObject(value) && Array.isArray(value.hits)) return gridOf(hitDocuments(value.hits))
    if (isPlainObject(value) && Array.isArray(value.results) && value.results.length === 1) {
      const only: unknown = value.results[0]
      if (isPlainObject(only) && Array.isArray(only.hits)) return gridOf(hitDocuments(only.hits))
    }
    if (Array.isArray(value) && value.every(isPlainObject)) return gridOf(value)
    if (isPlainObject(value) && isExportPath(path)) return gridOf([value])
    return { _tag: "Json", text: JSON.stringify(sortKeys(value), null, 2) }
  }
  const lines = body.split("\n").filter((line) => line.trim() !== "")
  const objects = lines.map((line) => parseJson(line))
  const allObjects = objects.every((line) => line.ok && isPlainObject(line.value))
  if (allObjects && (lines.length > 1 || isExportPath(path))) {
    return gridOf(objects.map((line) => (line.ok && isPlainObject(line.value) ? line.value : {})))
  }
  return { _tag: "Json", text: body }
}
