import { ACTIVITY_FIELDS, type ActivityEntry } from "../../domain/Activity.ts"

/**
 * The activity log's export formats, shared by the UI's download and `dbdesk activity export`:
 * the same columns, in the order they are hashed (D-51).
 */
export const ACTIVITY_EXPORT_FORMATS = ["csv", "jsonl"] as const
export type ActivityExportFormat = (typeof ACTIVITY_EXPORT_FORMATS)[number]

/** A cell a spreadsheet would run as a formula is prefixed with ' (client names come from clients). */
const csvCell = (value: string | number | null): string => {
  if (value === null) return ""
  const text = typeof value === "number" ? String(value) : /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

export const toCsv = (entries: ReadonlyArray<ActivityEntry>): string =>
  [
    ACTIVITY_FIELDS.join(","),
    ...entries.map((entry) => ACTIVITY_FIELDS.map((field) => csvCell(entry[field])).join(","))
  ].join("\r\n") + "\r\n"

/** One JSON object per line, keys in the export order; an empty log is an empty file. */
export const toJsonl = (entries: ReadonlyArray<ActivityEntry>): string =>
  entries.map((entry) => JSON.stringify(Object.fromEntries(ACTIVITY_FIELDS.map((field) => [field, entry[field]])))).map(
    (line) => `${line}\n`
  ).join("")

export const formatActivity = (entries: ReadonlyArray<ActivityEntry>, format: ActivityExportFormat): string =>
  format === "csv" ? toCsv(entries) : toJsonl(entries)
