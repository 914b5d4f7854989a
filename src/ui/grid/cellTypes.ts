import type { Cell } from "../../domain/UiSchemas.ts"

export interface GridColumn {
  readonly name: string
  /** Declared type shown in the header; empty for console results (the kind comes from the values). */
  readonly type: string
  readonly sortable?: boolean
  readonly sortNote?: string | null
  readonly readOnly?: boolean
}

/** How a column's values are shown and edited (D-85): by its declared type, else by what its values are. */
export type CellKind = "number" | "boolean" | "date" | "json" | "binary" | "text"

const NUMBER =
  /\b(int|integer|tinyint|smallint|mediumint|bigint|int2|int4|int8|int32|int64|real|float|float4|float8|double|numeric|decimal|number|serial|bigserial|smallserial|money|year)\b/i
const BOOLEAN = /\bbool(ean)?\b/i
const DATE = /date|time/i
const JSON_TYPE = /json|object/i
const BINARY = /blob|bytea|binary|bytes/i

export const kindOfType = (type: string): CellKind | undefined => {
  if (type === "") return undefined
  if (BINARY.test(type)) return "binary"
  if (BOOLEAN.test(type)) return "boolean"
  if (JSON_TYPE.test(type)) return "json"
  if (NUMBER.test(type)) return "number"
  if (DATE.test(type)) return "date"
  return "text"
}

/** A result column without a declared type (a console result): the kind of its first non-null value. */
export const kindOfValues = (rows: ReadonlyArray<ReadonlyArray<Cell>>, column: number): CellKind => {
  for (let i = 0; i < Math.min(rows.length, 50); i++) {
    const value = rows[i]?.[column]
    if (value === null || value === undefined) continue
    if (typeof value === "number") return "number"
    if (typeof value === "boolean") return "boolean"
    if (/^X'[0-9a-f]*'/i.test(value)) return "binary"
    if (/^[[{]/.test(value)) return "json"
    return "text"
  }
  return "text"
}

const LONG = 120

/** The text a cell shows; NULL is not text (the grid styles it apart from an empty string). */
export const displayText = (value: Cell, kind: CellKind): string => {
  if (value === null) return "NULL"
  if (kind === "boolean" && (value === 0 || value === 1)) return value === 1 ? "true" : "false"
  const text = String(value)
  if (kind === "binary" && text.length > LONG) return `${text.slice(0, LONG)}…`
  return text.length > 4 * LONG ? `${text.slice(0, 4 * LONG)}…` : text
}

/** Pretty text for the cell viewer: JSON indented, everything else as is. */
export const viewerText = (value: Cell): string => {
  if (value === null) return "NULL"
  const text = String(value)
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2)
    } catch {
      return text
    }
  }
  return text
}

/** Parses what the user typed into a cell of this kind; a message when it cannot be that kind. */
export const parseInput = (input: string, kind: CellKind): { readonly value: Cell } | { readonly error: string } => {
  if (kind === "number") {
    const trimmed = input.trim()
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed)) {
      return { error: "Enter a number (or set NULL with Ctrl+Shift+N)." }
    }
    const number = Number(trimmed)
    // beyond 2^53 a number would be rounded: send the digits as text, the database converts them exactly
    return {
      value: Number.isSafeInteger(number) || (!/^[+-]?\d+$/.test(trimmed) && String(number) === trimmed)
        ? number
        : trimmed
    }
  }
  if (kind === "boolean") {
    const lower = input.trim().toLowerCase()
    if (["true", "t", "1", "yes"].includes(lower)) return { value: true }
    if (["false", "f", "0", "no"].includes(lower)) return { value: false }
    return { error: "Enter true or false (or set NULL with Ctrl+Shift+N)." }
  }
  if (kind === "json" && input.trim() !== "") {
    try {
      JSON.parse(input)
    } catch {
      return { error: "This column holds JSON: the text is not valid JSON." }
    }
  }
  return { value: input }
}
