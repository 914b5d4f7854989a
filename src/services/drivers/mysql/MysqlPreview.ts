// D-69 on MySQL/MariaDB: a write dry-run inside START TRANSACTION … ROLLBACK, counted only (MySQL has no
// RETURNING for UPDATE), and refused first when information_schema shows what a rollback cannot undo: a table
// without transactions, triggers, an AUTO_INCREMENT counter or sequence an insert would advance, a stored function
// or a built-in one with effects beyond the transaction.
import type { DryRun, RunPlan } from "../Driver.ts"
import { PreviewRefused } from "../Driver.ts"
import { currentDatabase } from "./MysqlCatalog.ts"
import type { Session } from "./MysqlRunner.ts"

/** Built-in functions whose effects outlast a rollback (locks held by the session, sequences, the insert id). */
const OUTLASTING = new Set([
  "get_lock",
  "release_lock",
  "release_all_locks",
  "nextval",
  "setval",
  "lastval",
  "last_insert_id",
  "uuid_short",
  "master_pos_wait",
  "source_pos_wait",
  "sys_exec",
  "sys_eval"
])

const refuse = (reason: string): never => {
  throw new PreviewRefused({ reason })
}

const sideEffects = async (session: Session, plan: RunPlan): Promise<void> => {
  // The current database is read as text and bound: a prepared DATABASE() may keep the value of an earlier call's.
  const [database, name] = plan.table.length > 1
    ? [plan.table[0]!.text, plan.table[1]!.text]
    : [await currentDatabase(session), plan.table[0]!.text]
  const where = "TABLE_SCHEMA = ? AND TABLE_NAME = ?"
  const bind = [database, name]
  const table =
    (await session.query(`SELECT ENGINE, TABLE_TYPE FROM information_schema.TABLES WHERE ${where}`, bind)).rows[0]
  if (table === undefined) return refuse(`dbdesk could not find the table ${plan.display}`)
  if (!/BASE TABLE/.test(String(table[1]))) return refuse(`${plan.display} is not a base table`)
  if (String(table[0]).toLowerCase() !== "innodb") {
    return refuse(`${plan.display} uses the ${String(table[0])} engine, which cannot roll a change back`)
  }
  const triggers = await session.query(
    "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ?",
    bind
  )
  if (triggers.rows.length > 0) {
    return refuse(
      `${plan.display} has triggers (${
        triggers.rows.map((row) => String(row[0])).join(", ")
      }), which run code a rollback may not undo`
    )
  }
  if (plan.action === "insert") {
    const counters = await session.query(
      `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE ${where} AND (EXTRA LIKE '%auto_increment%' OR COLUMN_DEFAULT LIKE '%nextval%' OR COLUMN_DEFAULT LIKE '%next value for%')`,
      bind
    )
    if (counters.rows.length > 0) {
      return refuse(
        `inserting into ${plan.display} advances the counter behind ${
          String(counters.rows[0]![0])
        }, which a rollback does not give back`
      )
    }
  }
  const outlasting = plan.functions.filter((called) => OUTLASTING.has(called.toLowerCase()))
  if (outlasting.length > 0) {
    return refuse(`it calls ${outlasting.map((f) => `${f}()`).join(", ")}, whose effects outlast a rollback`)
  }
  if (plan.functions.length === 0) return
  const stored = await session.query(
    `SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'FUNCTION' AND ROUTINE_NAME IN (${
      plan.functions.map(() => "?").join(", ")
    })`,
    plan.functions
  )
  if (stored.rows.length > 0) {
    return refuse(`it calls the stored function ${String(stored.rows[0]![0])}, whose effects a rollback may not undo`)
  }
}

/**
 * START TRANSACTION; the statement; ROLLBACK: the rows it affects, counted (the session is closed afterwards).
 * `params`: the values of its `?` markers (a curated tool's arguments), bound server-side as the run binds them.
 */
export const dryRunStatement = async (
  session: Session,
  plan: RunPlan,
  params?: ReadonlyArray<unknown>
): Promise<DryRun> => {
  await sideEffects(session, plan)
  await session.query("START TRANSACTION")
  try {
    const outcome = await session.query(plan.body, params === undefined || params.length === 0 ? undefined : params)
    return {
      count: outcome.affectedRows,
      columns: [],
      rows: [],
      note: "MySQL and MariaDB dry runs count the rows; they do not show them"
    }
  } finally {
    await session.query("ROLLBACK").catch(() => undefined)
  }
}
