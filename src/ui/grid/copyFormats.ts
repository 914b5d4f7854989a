import type { SqlDialect } from "../../domain/SqlLexer.ts"
import { insertStatement } from "../../domain/SqlLiterals.ts"
import type { Cell } from "../../domain/UiSchemas.ts"

export type CopyFormat = "tsv" | "csv" | "json" | "sql"

const tsvCell = (cell: Cell) => (cell === null ? "NULL" : String(cell).replace(/[\t\r\n]/g, " "))
const csvCell = (cell: Cell) => {
  if (cell === null) return ""
  const text = String(cell)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

/**
 * A selected range as text (D-85): TSV pastes into spreadsheets (NULL spelled out), CSV with a header row (NULL
 * empty), JSON as an array of objects (null kept), SQL as one INSERT with literals of the connection's dialect.
 */
export const formatRange = (
  format: CopyFormat,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<Cell>>,
  sql: { readonly dialect: SqlDialect; readonly table: string } = { dialect: "sqlite", table: "result" }
): string => {
  switch (format) {
    case "tsv":
      return rows.map((row) => row.map(tsvCell).join("\t")).join("\n")
    case "csv":
      return [columns.map(csvCell), ...rows.map((row) => row.map(csvCell))].map((line) => line.join(",")).join("\r\n")
    case "json":
      return JSON.stringify(
        rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i] ?? null]))),
        null,
        2
      )
    case "sql":
      return insertStatement(sql.dialect, sql.table, columns, rows)
  }
}

/** Puts text on the clipboard; falls back to a hidden textarea where the Clipboard API is refused. */
export const copyText = async (text: string) => {
  try {
    await navigator.clipboard.writeText(text)
  } catch {
    const area = document.createElement("textarea")
    area.value = text
    document.body.append(area)
    area.select()
    document.execCommand("copy")
    area.remove()
  }
}
