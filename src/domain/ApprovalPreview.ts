import { Schema } from "effect"
import { CellValue } from "./ResultSet.ts"

/**
 * The dry run shown with an approval (D-69): the statement run inside a transaction that is always rolled
 * back (a search-engine edit: counted through the same filter), what it would change, or why there is no preview.
 */
export const PREVIEW_SECONDS = 2
/** Characters of one cell shown in a preview line at most. */
export const PREVIEW_CELL_CHARS = 120

export const PreviewAction = Schema.Literal("change", "delete", "insert")
export type PreviewAction = typeof PreviewAction.Type

export const PreviewRow = Schema.Struct({
  /** The row as it is now; null for an inserted row (or when it could not be read back). */
  before: Schema.NullOr(Schema.Array(CellValue)),
  /** The row as the statement would leave it; null for a deleted row. */
  after: Schema.NullOr(Schema.Array(CellValue))
})
export type PreviewRow = typeof PreviewRow.Type

export const ApprovalPreview = Schema.Union(
  Schema.TaggedStruct("Changes", {
    action: PreviewAction,
    /** The table or collection, as the statement names it. */
    target: Schema.String,
    unit: Schema.Literal("row", "document"),
    count: Schema.Int,
    columns: Schema.Array(Schema.String),
    rows: Schema.Array(PreviewRow),
    note: Schema.optionalWith(Schema.String, { exact: true })
  }),
  /** The dry run was tried and did not finish (too slow, or the database refused it); approval still works. */
  Schema.TaggedStruct("Unavailable", { reason: Schema.String }),
  /** Never tried: DDL, a statement whose side effects a rollback cannot undo, a read… */
  Schema.TaggedStruct("NoPreview", { reason: Schema.String }),
  /** D-95: a read over the connection's cost budget: the planner's estimate (nothing ran) and what it exceeds. */
  Schema.TaggedStruct("Estimate", {
    rows: Schema.Number,
    cost: Schema.optionalWith(Schema.Number, { exact: true }),
    /** The plan's top node, e.g. "Seq Scan on orders"; empty when the planner gave no estimate. */
    node: Schema.String,
    /** Each budget exceeded in words, or why there is no estimate. */
    over: Schema.Array(Schema.String)
  })
)
export type ApprovalPreview = typeof ApprovalPreview.Type

export const TOOK_TOO_LONG = `took too long (over ${PREVIEW_SECONDS} s)`

const plural = (count: number, unit: string) => `${count.toLocaleString("en-US")} ${unit}${count === 1 ? "" : "s"}`

/** "will change 3 rows in orders" (D-69). */
export const previewHeadline = (preview: Extract<ApprovalPreview, { _tag: "Changes" }>): string => {
  const what = plural(preview.count, preview.unit)
  switch (preview.action) {
    case "change":
      return `will change ${what} in ${preview.target}`
    case "delete":
      return `will delete ${what} from ${preview.target}`
    case "insert":
      return `will insert ${what} into ${preview.target}`
  }
}

const shown = (cell: CellValue | undefined): string => {
  if (cell === null || cell === undefined) return "NULL"
  const text = typeof cell === "string" ? `'${cell}'` : String(cell)
  return text.length <= PREVIEW_CELL_CHARS ? text : `${text.slice(0, PREVIEW_CELL_CHARS)}…`
}

const whole = (columns: ReadonlyArray<string>, row: ReadonlyArray<CellValue>) =>
  columns.map((column, index) => `${column}=${shown(row[index])}`).join(", ")

/** One row as a line: the first column names it, then what changes (before → after). */
export const previewRowText = (columns: ReadonlyArray<string>, row: PreviewRow, action: PreviewAction): string => {
  if (row.before !== null && row.after !== null) {
    const changed = columns.flatMap((column, index) =>
      shown(row.before![index]) === shown(row.after![index])
        ? []
        : [`${column}: ${shown(row.before![index])} → ${shown(row.after![index])}`]
    )
    const name = `${columns[0] ?? "row"}=${shown(row.before[0])}`
    return `${name}: ${changed.length === 0 ? "no value changes" : changed.join(", ")}`
  }
  if (row.after !== null) return `${action === "insert" ? "new" : "becomes"}: ${whole(columns, row.after)}`
  if (row.before !== null) return `deleted: ${whole(columns, row.before)}`
  return "(row not readable)"
}

/** D-95: the planner's estimate as lines (nothing ran): what it exceeds, then the plan's top node. */
export const estimateLines = (preview: Extract<ApprovalPreview, { _tag: "Estimate" }>): ReadonlyArray<string> => [
  `The planner's estimate (the statement has not run): ${preview.over.join(" and ")}.`,
  ...(preview.node === "" ? [] : [`The plan starts with ${preview.node}.`])
]

/** The preview as plain lines, for the elicitation form message, the terminal prompt and the embedding host. */
export const previewText = (preview: ApprovalPreview): string => {
  switch (preview._tag) {
    case "Unavailable":
      return `Preview unavailable: ${preview.reason}.`
    case "NoPreview":
      return `No preview: ${preview.reason}.`
    case "Estimate":
      return estimateLines(preview).join("\n")
    case "Changes": {
      const lines = [`Preview (run and rolled back): ${previewHeadline(preview)}.`]
      for (const row of preview.rows) lines.push(`  • ${previewRowText(preview.columns, row, preview.action)}`)
      const more = preview.count - preview.rows.length
      if (more > 0 && preview.rows.length > 0) {
        lines.push(`  … and ${more.toLocaleString("en-US")} more ${preview.unit}${more === 1 ? "" : "s"}`)
      }
      if (preview.note !== undefined) lines.push(`  (${preview.note})`)
      return lines.join("\n")
    }
  }
}
