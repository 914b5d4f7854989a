// D-69, D-68 on PostgreSQL: a statement checked by the server without running it (Parse inside the
// read-only transaction), and a write dry-run inside BEGIN … ROLLBACK with a short statement_timeout, refused first
// when the catalog shows a side effect a rollback cannot undo (sequences, triggers, rules, volatile functions).
import type { PreviewRow } from "../../../domain/ApprovalPreview.ts"
import { PREVIEW_ROWS, quotedTable } from "../../../domain/PreviewPlan.ts"
import type { CellValue } from "../../../domain/ResultSet.ts"
import { capCell } from "../../../domain/SqlCell.ts"
import { quoteIdentifier } from "../BrowseSql.ts"
import { type DryRun, PreviewRefused, type RunPlan } from "../Driver.ts"
import { cellOf } from "./PgCells.ts"
import type { FieldInfo, RowSink } from "./PgPipeline.ts"
import type { Db } from "./PostgresRunner.ts"

interface Target {
  readonly oid: number
  readonly kind: string
  readonly rules: boolean
  readonly qualified: string
}

interface ColumnDefault {
  readonly name: string
  readonly identity: string
  readonly expression: string | null
}

const NAMES_CALLED = /([A-Za-z_][A-Za-z0-9_$]*)\s*\(/g

/** D-68: Parse (and its analysis: names resolved, types checked) without Bind or Execute. */
export const checkStatement = async (db: Db, sql: string): Promise<void> => {
  await db.read([{ text: sql, parseOnly: true }])
}

const findTarget = async (db: Db, plan: RunPlan): Promise<Target> => {
  const [row] = await db.rows<{ oid: number; kind: string; rules: boolean; schema: string; name: string }>(
    `SELECT c.oid::int AS oid, c.relkind AS kind, c.relhasrules AS rules, n.nspname AS schema, c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`,
    [quotedTable(plan.table, "postgresql")]
  )
  if (row === undefined) throw new PreviewRefused({ reason: `dbdesk could not find the table ${plan.display}` })
  return {
    oid: row.oid,
    kind: row.kind,
    rules: row.rules,
    qualified: `${quoteIdentifier(row.schema)}.${quoteIdentifier(row.name)}`
  }
}

/** The reason a rollback could not undo this statement's effects, if the catalog shows one. */
const sideEffect = async (db: Db, plan: RunPlan, target: Target): Promise<string | undefined> => {
  if (target.kind !== "r" && target.kind !== "p") {
    return `${plan.display} is not a plain table (a view or foreign table may act beyond this database)`
  }
  if (target.rules) return `${plan.display} has rules, which may run other statements`
  const triggers = await db.rows<{ name: string }>(
    "SELECT tgname AS name FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal AND tgenabled <> 'D' ORDER BY tgname",
    [target.oid]
  )
  if (triggers.length > 0) {
    return `${plan.display} has triggers (${
      triggers.map((t) => t.name).join(", ")
    }), which run code a rollback may not undo`
  }
  const called = new Set(plan.functions)
  if (plan.action === "insert" || plan.setsDefault) {
    const defaults = await db.rows<ColumnDefault>(
      `SELECT a.attname AS name, a.attidentity AS identity, pg_get_expr(d.adbin, d.adrelid) AS expression
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`,
      [target.oid]
    )
    for (const column of defaults) {
      if (plan.insertColumns?.includes(column.name) === true) continue
      if (column.identity !== "") {
        return `inserting into ${plan.display} takes a value from the identity sequence of ${column.name}, which a rollback does not give back`
      }
      for (const match of (column.expression ?? "").matchAll(NAMES_CALLED)) called.add(match[1]!.toLowerCase())
      if (/\bnextval\s*\(/i.test(column.expression ?? "")) {
        return `inserting into ${plan.display} takes a value from the sequence behind ${column.name}, which a rollback does not give back`
      }
    }
  }
  if (called.size === 0) return undefined
  const volatile = await db.rows<{ name: string }>(
    "SELECT DISTINCT proname AS name FROM pg_proc WHERE provolatile = 'v' AND proname = ANY($1::text[]) ORDER BY 1",
    [`{${[...called].map((name) => `"${name.replace(/["\\]/g, "\\$&")}"`).join(",")}}`]
  )
  if (volatile.length > 0) {
    return `it calls ${
      volatile.map((f) => `${f.name}()`).join(", ")
    }, which is not marked immutable or stable: its effects (a sequence, a notification, a file) may outlast a rollback`
  }
  return undefined
}

/** Keeps the first rows of a step (as cells), counts them all, and remembers the columns. */
class Keeper implements RowSink {
  columns: ReadonlyArray<FieldInfo> = []
  readonly kept: Array<ReadonlyArray<string | null>> = []
  count = 0
  fields(fields: ReadonlyArray<FieldInfo>): void {
    this.columns = fields
  }
  row(values: ReadonlyArray<string | null>): "more" {
    this.count++
    if (this.kept.length < PREVIEW_ROWS) this.kept.push(values)
    return "more"
  }
  cells(values: ReadonlyArray<string | null>): ReadonlyArray<CellValue> {
    return values.map((value, index) => capCell(cellOf(value, this.columns[index]?.typeOid ?? 0), 4096).cell)
  }
}

const primaryKey = async (db: Db, oid: number): Promise<ReadonlyArray<string>> => {
  const rows = await db.rows<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = $1 AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [oid]
  )
  return rows.map((row) => row.name)
}

/**
 * D-69: BEGIN; SAVEPOINT; the statement with RETURNING * (all rows counted, five kept); ROLLBACK TO
 * SAVEPOINT; the same rows read back by primary key as they are now; ROLLBACK. The catalog is read first, in its own
 * read-only transaction, and a side effect a rollback cannot undo refuses the dry run. `values`: the statement's `$n`
 * parameters (a curated tool's arguments), bound in Bind as the run binds them.
 */
export const dryRunStatement = async (
  db: Db,
  plan: RunPlan,
  seconds: number,
  values: ReadonlyArray<string | null> = []
): Promise<DryRun> => {
  const target = await findTarget(db, plan)
  const reason = await sideEffect(db, plan, target)
  if (reason !== undefined) throw new PreviewRefused({ reason })
  const key = plan.action === "change" && !plan.returning ? await primaryKey(db, target.oid) : []
  const changed = new Keeper()
  const earlier = new Keeper()
  try {
    await db.plain([{ text: "BEGIN" }, { text: `SET LOCAL statement_timeout = ${seconds * 1000}` }, {
      text: "SAVEPOINT dbdesk_preview"
    }])
    const run = await db.plain([{
      text: plan.returning ? plan.body : `${plan.body}\nRETURNING *`,
      values,
      rows: { limit: 0, sink: changed }
    }])
    await db.plain([{ text: "ROLLBACK TO SAVEPOINT dbdesk_preview" }])
    if (plan.returning) {
      return {
        count: run.outcomes[0]?.count ?? changed.count,
        columns: [],
        rows: [],
        note: "rows are not shown: the statement has its own RETURNING"
      }
    }
    const names = changed.columns.map((field) => field.name)
    const positions = key.map((column) => names.indexOf(column))
    const keyed = key.length > 0 && positions.every((position) => position >= 0) && changed.kept.length > 0
    if (keyed) {
      const values: Array<string | null> = []
      const tuples = changed.kept.map((row) =>
        `(${positions.map((position) => `$${values.push(row[position] ?? null)}`).join(", ")})`
      )
      await db.plain([{
        text: `SELECT * FROM ${target.qualified} WHERE (${key.map(quoteIdentifier).join(", ")}) IN (${
          tuples.join(", ")
        })`,
        values,
        rows: { limit: 0, sink: earlier }
      }])
    }
    const identity = (row: ReadonlyArray<string | null>) => JSON.stringify(positions.map((position) => row[position]))
    const before = new Map(earlier.kept.map((row) => [identity(row), earlier.cells(row)]))
    const rows = changed.kept.map((row): PreviewRow =>
      plan.action === "delete"
        ? { before: changed.cells(row), after: null }
        : plan.action === "insert"
        ? { before: null, after: changed.cells(row) }
        : { before: keyed ? before.get(identity(row)) ?? null : null, after: changed.cells(row) }
    )
    return {
      count: run.outcomes[0]?.count ?? changed.count,
      columns: names,
      rows,
      ...(plan.action === "change" && !keyed
        ? { note: "earlier values are not shown: the table has no primary key" }
        : {})
    }
  } finally {
    // A call already stopped cannot send it; the session is then rolled back or destroyed on its way back (PgLease).
    await db.plain([{ text: "ROLLBACK" }]).catch(() => undefined)
  }
}
