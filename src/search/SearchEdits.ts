import { Effect, Schema } from "effect"
import { SearchEditRefused } from "../domain/SearchErrors.ts"
import type { SearchColumn } from "../domain/SearchGrid.ts"
import { enginePath } from "./SearchClient.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"

const integerText = /^-?\d+$/
const numberText = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/

const parseJsonContainer = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * A cell value typed from the schema before it is sent (doc 2 §4, S4-e; typesense-reference §7.6): `int*` as a number,
 * `float` as a number, `bool` as `true`/`false`, array and object fields as parsed JSON. Text that does not fit goes out
 * as a string, so the engine answers with its own message (`Field `year` must be an int32.`, S7-d). `null` stays `null`
 * (it removes an optional field); values that are already typed pass unchanged.
 */
export const typeCellValue = (value: unknown, type: string | undefined): unknown => {
  if (typeof value !== "string" || type === undefined) return value
  const text = value.trim()
  if (type.endsWith("[]") || type.startsWith("object")) return parseJsonContainer(text) ?? value
  if (type === "int32" || type === "int64") {
    // beyond 2^53 a JSON number would silently change the value, so the text goes out and the engine says why
    if (integerText.test(text)) return Number.isSafeInteger(Number(text)) ? Number(text) : value
    return numberText.test(text) ? Number(text) : value
  }
  if (type === "float") return numberText.test(text) ? Number(text) : value
  if (type === "bool") {
    const lower = text.toLowerCase()
    return lower === "true" ? true : lower === "false" ? false : value
  }
  return value
}

const typedBody = (cells: Readonly<Record<string, unknown>>, columns: ReadonlyArray<SearchColumn>) => {
  const types = new Map(columns.map((column) => [column.name, column.type]))
  return Object.fromEntries(Object.entries(cells).map(([name, value]) => [name, typeCellValue(value, types.get(name))]))
}

/** Cells whose value differs from the original row; only these are sent by an update (D-55). */
export const changedCells = (
  original: Readonly<Record<string, unknown>>,
  edited: Readonly<Record<string, unknown>>
): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(edited).filter(([name, value]) => JSON.stringify(original[name]) !== JSON.stringify(value))
  )

const StoredDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * Insert (typesense-reference §7.6): `POST /collections/:c/documents` with every non-null cell; a blank `id` is left
 * out so the engine assigns one. Answers the stored document.
 */
export const insertDocument = Effect.fn("SearchEdits.insertDocument")(function*(
  client: SearchClient,
  collection: string,
  cells: Readonly<Record<string, unknown>>,
  columns: ReadonlyArray<SearchColumn>,
  options?: CallOptions
) {
  const present = Object.fromEntries(
    Object.entries(cells).filter(([name, value]) =>
      value !== null && value !== undefined && !(name === "id" && typeof value === "string" && value.trim() === "")
    )
  )
  const json = yield* client.call(
    "POST",
    enginePath("collections", collection, "documents"),
    { _tag: "Json", value: typedBody(present, columns) },
    options
  )
  return yield* client.decode(StoredDocument, json)
})

/**
 * Update (typesense-reference §7.6): `PATCH /collections/:c/documents/:id` with only the changed cells; `id` is
 * read-only (S2.2-b), so a change to it is refused before any request. Answers the full merged document.
 */
export const updateDocument = Effect.fn("SearchEdits.updateDocument")(function*(
  client: SearchClient,
  collection: string,
  id: string,
  changes: Readonly<Record<string, unknown>>,
  columns: ReadonlyArray<SearchColumn>,
  options?: CallOptions
) {
  if ("id" in changes && changes.id !== id) {
    return yield* new SearchEditRefused({
      message: "The id of a Typesense document cannot be changed. Insert a new row with the new id and delete this one."
    })
  }
  const { id: _, ...cells } = changes
  const json = yield* client.call(
    "PATCH",
    enginePath("collections", collection, "documents", id),
    { _tag: "Json", value: typedBody(cells, columns) },
    options
  )
  return yield* client.decode(StoredDocument, json)
})

/** Delete: `DELETE /collections/:c/documents/:id`; one call per row, no transaction (doc 2 §8). */
export const deleteDocument = Effect.fn("SearchEdits.deleteDocument")(function*(
  client: SearchClient,
  collection: string,
  id: string,
  options?: CallOptions
) {
  yield* client.call("DELETE", enginePath("collections", collection, "documents", id), undefined, options)
})
