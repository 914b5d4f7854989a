import type Database from "better-sqlite3"
import type { PreviewRow } from "../../../domain/ApprovalPreview.ts"
import { PREVIEW_ROWS, quotedTable } from "../../../domain/PreviewPlan.ts"
import type { CellValue } from "../../../domain/ResultSet.ts"
import { capCell, toCellValue } from "../../../domain/SqlCell.ts"
import type { DryRun, RunPlan, StatementAccess } from "../Driver.ts"
import { bindValue, type SqliteHandles } from "./SqliteOps.ts"

const ROWID = "dbdesk_preview_rowid"
const cellOf = (value: unknown): CellValue => capCell(toCellValue(value), 4096).cell

/** D-68: SQLite compiles the statement (prepare) on the handle it would run on, and runs nothing. */
export const checkStatement = (handles: SqliteHandles, sql: string, access: StatementAccess): null => {
  handles[access]().prepare(sql)
  return null
}

/**
 * D-69: the write runs on the read-write handle (the one the approved statement will use) inside
 * `SAVEPOINT … ROLLBACK TO`, returning its rows; the rows it changes are then read back as they are now by rowid.
 * A killed child (the 2 s time box) leaves a journal SQLite rolls back on the next open. `params`: the values of the
 * statement's `?` markers (a curated tool's arguments), bound as the run binds them.
 */
export const dryRunStatement = (handles: SqliteHandles, plan: RunPlan, params: ReadonlyArray<unknown> = []): DryRun => {
  const db = handles.readwrite()
  const bound = params.map(bindValue)
  let keyed = !plan.returning && plan.action === "change"
  let columns: Array<string> = []
  const kept: Array<Array<unknown>> = []
  let count = 0
  db.exec("SAVEPOINT dbdesk_preview")
  try {
    const prepare = (): Database.Statement => {
      if (plan.returning) return db.prepare(plan.body)
      if (keyed) {
        try {
          return db.prepare(`${plan.body}\nRETURNING rowid AS ${ROWID}, *`)
        } catch {
          keyed = false // a WITHOUT ROWID table: the rows are shown without their earlier values
        }
      }
      return db.prepare(`${plan.body}\nRETURNING *`)
    }
    const statement = prepare().safeIntegers(true)
    if (statement.reader) {
      statement.raw(true)
      columns = statement.columns().map((column) => column.name)
      for (const row of statement.iterate(...bound) as Iterable<Array<unknown>>) {
        count++
        if (kept.length < PREVIEW_ROWS) kept.push(row)
      }
    } else {
      count = Number(statement.run(...bound).changes)
    }
  } finally {
    db.exec("ROLLBACK TO dbdesk_preview")
    db.exec("RELEASE dbdesk_preview")
  }
  if (plan.returning) {
    return { count, columns: [], rows: [], note: "rows are not shown: the statement has its own RETURNING" }
  }
  const shown = keyed ? columns.slice(1) : columns
  const values = (row: ReadonlyArray<unknown>) => (keyed ? row.slice(1) : row).map(cellOf)
  const earlier = new Map<string, ReadonlyArray<CellValue>>()
  if (keyed && kept.length > 0) {
    const ids = kept.map((row) => row[0])
    const read = db.prepare(
      `SELECT rowid, * FROM ${quotedTable(plan.table, "sqlite")} WHERE rowid IN (${ids.map(() => "?").join(", ")})`
    )
      .safeIntegers(true).raw(true)
    for (const row of read.all(...ids) as Array<Array<unknown>>) earlier.set(String(row[0]), row.slice(1).map(cellOf))
  }
  const rows = kept.map((row): PreviewRow =>
    plan.action === "delete"
      ? { before: values(row), after: null }
      : plan.action === "insert"
      ? { before: null, after: values(row) }
      : { before: keyed ? earlier.get(String(row[0])) ?? null : null, after: values(row) }
  )
  return {
    count,
    columns: shown,
    rows,
    ...(plan.action === "change" && !keyed ? { note: "earlier values are not shown for this table" } : {})
  }
}
