import type { Cell, UiColumn } from "../../../domain/UiSchemas.ts"
import { kindOfType } from "../../grid/cellTypes.ts"

const structured = (column: UiColumn, value: Cell): unknown => {
  // object fields and arrays (a search field of type `string[]`, …) travel as JSON text in the grid's cells
  if (typeof value !== "string" || (kindOfType(column.type) !== "json" && !column.type.endsWith("[]"))) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/** A search document as the row detail shows it: one JSON object, object and array fields as JSON, not text. */
export const documentText = (columns: ReadonlyArray<UiColumn>, row: ReadonlyArray<Cell>): string =>
  JSON.stringify(
    Object.fromEntries(columns.map((column, i) => [column.name, structured(column, row[i] ?? null)])),
    null,
    2
  )

/**
 * The fields an edited document changes, as grid edits: a field left out is unchanged (a document update is partial),
 * a field the grid cannot edit (the id of a stored document) or a field the collection does not have is refused.
 */
export const documentChanges = (
  text: string,
  columns: ReadonlyArray<UiColumn>,
  row: ReadonlyArray<Cell>,
  canEdit: (column: number) => boolean
): { readonly changes: ReadonlyArray<readonly [number, Cell]> } | { readonly error: string } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { error: "The document is not valid JSON." }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { error: "A document is a JSON object." }
  }
  const changes: Array<readonly [number, Cell]> = []
  for (const [name, next] of Object.entries(parsed)) {
    const i = columns.findIndex((column) => column.name === name)
    const column = columns[i]
    if (column === undefined) return { error: `The collection has no field “${name}”.` }
    const value: Cell = typeof next === "object" && next !== null ? JSON.stringify(next) : (next as Cell)
    if (JSON.stringify(structured(column, value)) === JSON.stringify(structured(column, row[i] ?? null))) continue
    if (!canEdit(i)) return { error: `“${name}” cannot be changed here.` }
    changes.push([i, value])
  }
  return { changes }
}
