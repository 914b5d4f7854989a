import type { Cell } from "./SqlCell.ts"

/**
 * D-92: the four export formats, written row by row (the exporter never holds more than a page). Cells are the
 * result-set cells every answer has (D-20): NULL, numbers, booleans and text; a blob is its hex text as the answers
 * show it (SQLite and MySQL `X'0a1b'`, PostgreSQL `\x0a1b`).
 */
export const EXPORT_FORMATS = ["csv", "jsonl", "json", "sql"] as const
export type ExportFormat = typeof EXPORT_FORMATS[number]

export const EXTENSIONS: Record<ExportFormat, string> = { csv: "csv", jsonl: "jsonl", json: "json", sql: "sql" }
export const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv",
  jsonl: "application/jsonl",
  json: "application/json",
  sql: "application/sql"
}

/** How the SQL format quotes names and text: MySQL's backslash escapes are on by default. */
export type ExportDialect = "postgresql" | "mysql" | "sqlite" | "search"

/**
 * RFC 4180 like `psql \copy … CSV`: NULL is an empty field, an empty text is `""`, a field with a comma, a quote, a
 * line break is quoted with its quotes doubled, and so is psql's end marker `\.` alone on a line (the only column);
 * lines end with LF as psql writes them.
 */
export const csvField = (cell: Cell, only = false): string => {
  if (cell === null) return ""
  if (typeof cell !== "string") return String(cell)
  if (cell === "" || (only && cell === "\\.") || /[",\r\n]/.test(cell)) return `"${cell.replaceAll("\"", "\"\"")}"`
  return cell
}

const quoteName = (name: string, dialect: ExportDialect) =>
  dialect === "mysql" ? `\`${name.replaceAll("`", "``")}\`` : `"${name.replaceAll("\"", "\"\"")}"`

const sqlLiteral = (cell: Cell, dialect: ExportDialect): string => {
  if (cell === null) return "NULL"
  if (typeof cell === "boolean") return cell ? "TRUE" : "FALSE"
  if (typeof cell === "number") return String(cell)
  const quoted = cell.replaceAll("'", "''")
  return `'${dialect === "mysql" ? quoted.replaceAll("\\", "\\\\") : quoted}'`
}

/** Object keys of a row: a repeated column name gets `_2`, `_3`… so no value is lost in JSON. */
const uniqueKeys = (columns: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Map<string, number>()
  return columns.map((name) => {
    const count = (seen.get(name) ?? 0) + 1
    seen.set(name, count)
    return count === 1 ? name : `${name}_${count}`
  })
}

/** Writes one format: the text before the first row, each row, and the text after the last. */
export interface RowWriter {
  readonly start: () => string
  readonly row: (cells: ReadonlyArray<Cell>) => string
  readonly end: () => string
}

export const rowWriter = (
  format: ExportFormat,
  columns: ReadonlyArray<string>,
  target: { readonly table: string; readonly dialect: ExportDialect }
): RowWriter => {
  switch (format) {
    case "csv": {
      const only = columns.length === 1
      const line = (cells: ReadonlyArray<Cell>) => `${cells.map((cell) => csvField(cell, only)).join(",")}\n`
      return { start: () => line(columns), row: line, end: () => "" }
    }
    case "jsonl":
    case "json": {
      const keys = uniqueKeys(columns)
      const object = (cells: ReadonlyArray<Cell>) => {
        const value: Record<string, Cell> = {}
        keys.forEach((key, index) => {
          value[key] = cells[index] ?? null
        })
        return JSON.stringify(value)
      }
      if (format === "jsonl") return { start: () => "", row: (cells) => `${object(cells)}\n`, end: () => "" }
      let first = true
      return {
        start: () => "[",
        row: (cells) => {
          const text = `${first ? "\n" : ",\n"}${object(cells)}`
          first = false
          return text
        },
        end: () => (first ? "]\n" : "\n]\n")
      }
    }
    case "sql": {
      const head = `INSERT INTO ${quoteName(target.table, target.dialect)} (${
        columns.map((name) => quoteName(name, target.dialect)).join(", ")
      }) VALUES (`
      return {
        start: () => "",
        row: (cells) => `${head}${cells.map((cell) => sqlLiteral(cell, target.dialect)).join(", ")});\n`,
        end: () => ""
      }
    }
  }
}

/** A file name's stem from a table name or a statement: letters, digits, `-`, `_` and `.` only, never empty. */
export const fileStem = (name: string | undefined): string => {
  const cleaned = (name ?? "").replace(/[^\p{L}\p{N}_.-]+/gu, "_").replace(/^[._]+|[._]+$/g, "").slice(0, 80)
  return cleaned === "" ? "export" : cleaned
}
