import type { CellValue } from "./ResultSet.ts"
import type { SqlDialect } from "./SqlLexer.ts"

/**
 * SQL text for values and names, per dialect (D-86): the grid's Save shows and runs statements with their values
 * written in, and "copy as SQL INSERT" writes the same text. Pure, shared by the UI and the server.
 */
export const quoteName = (dialect: SqlDialect, name: string): string =>
  dialect === "mysql" ? `\`${name.replaceAll("`", "``")}\`` : `"${name.replaceAll("\"", "\"\"")}"`

/** A table as the sidebar names it; PostgreSQL names tables outside `public` as `schema.table` (PostgresCatalog). */
export const quoteTable = (dialect: SqlDialect, table: string): string => {
  const dot = table.indexOf(".")
  return dialect === "postgresql" && dot > 0
    ? `${quoteName(dialect, table.slice(0, dot))}.${quoteName(dialect, table.slice(dot + 1))}`
    : quoteName(dialect, table)
}

const hexUtf8 = (text: string): string =>
  Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, "0")).join("")

/**
 * A string literal. Standard SQL doubles the quote; MySQL also reads backslash escapes unless NO_BACKSLASH_ESCAPES is
 * set, so a MySQL string holding a backslash or NUL is written as a utf8mb4 hex literal, which reads the same in
 * either mode.
 */
export const stringLiteral = (dialect: SqlDialect, text: string): string =>
  dialect === "mysql" && /[\\\u0000]/.test(text) ? `_utf8mb4 X'${hexUtf8(text)}'` : `'${text.replaceAll("'", "''")}'`

/** A cell value as a literal: numbers bare, booleans as the dialect spells them (SQLite has none: 1/0), NULL. */
export const sqlLiteral = (dialect: SqlDialect, value: CellValue): string => {
  if (value === null) return "NULL"
  if (typeof value === "boolean") return dialect === "sqlite" ? (value ? "1" : "0") : value ? "TRUE" : "FALSE"
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : stringLiteral(dialect, String(value))
  return stringLiteral(dialect, value)
}

/** `INSERT INTO t (a, b) VALUES (…), (…);` for rows of cells (the grid's "copy as SQL INSERT"). */
export const insertStatement = (
  dialect: SqlDialect,
  table: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<CellValue>>
): string =>
  `INSERT INTO ${quoteTable(dialect, table)} (${
    columns.map((column) => quoteName(dialect, column)).join(", ")
  }) VALUES\n${rows.map((row) => `  (${row.map((cell) => sqlLiteral(dialect, cell)).join(", ")})`).join(",\n")};`
