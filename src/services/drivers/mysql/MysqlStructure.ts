// The structure view's CHECK constraints, triggers and incoming references on MySQL and MariaDB, from
// information_schema (inside the driver's read-only transaction, like MysqlCatalog).
import type { CheckDescription, IncomingReference, StructureDetails } from "../../../domain/TableStructure.ts"
import { quoteName, type ResolvedTable } from "./MysqlCatalog.ts"
import type { Session } from "./MysqlRunner.ts"

/**
 * MariaDB's CHECK_CONSTRAINTS names the table (check names are unique per table there); MySQL's does not, and its
 * TABLE_CONSTRAINTS gives the table of a CHECK (names are unique per database).
 */
const checks = async (session: Session, table: ResolvedTable): Promise<Array<CheckDescription>> => {
  const outcome = session.flavor === "mariadb"
    ? await session.query(
      "SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? ORDER BY CONSTRAINT_NAME",
      [table.database, table.name]
    )
    : await session.query(
      `SELECT c.CONSTRAINT_NAME, c.CHECK_CLAUSE FROM information_schema.TABLE_CONSTRAINTS t
         JOIN information_schema.CHECK_CONSTRAINTS c ON c.CONSTRAINT_SCHEMA = t.CONSTRAINT_SCHEMA AND c.CONSTRAINT_NAME = t.CONSTRAINT_NAME
        WHERE t.TABLE_SCHEMA = ? AND t.TABLE_NAME = ? AND t.CONSTRAINT_TYPE = 'CHECK' ORDER BY c.CONSTRAINT_NAME`,
      [table.database, table.name]
    )
  return outcome.rows.map((row) => ({ name: String(row[0]), expression: String(row[1]) }))
}

const triggers = async (session: Session, table: ResolvedTable) => {
  const outcome = await session.query(
    `SELECT TRIGGER_NAME, ACTION_TIMING, EVENT_MANIPULATION, ACTION_ORIENTATION, ACTION_STATEMENT
       FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY ACTION_TIMING, EVENT_MANIPULATION, ACTION_ORDER`,
    [table.database, table.name]
  )
  return outcome.rows.map((row) => {
    const [name, timing, event, orientation, statement] = row.map((value) => String(value ?? ""))
    return {
      name: name!,
      timing: timing!,
      event: event!,
      definition: `CREATE TRIGGER ${quoteName(name!)} ${timing} ${event} ON ${quoteName(table.name)} FOR EACH ${
        orientation || "ROW"
      }\n${statement}`
    }
  })
}

const incoming = async (session: Session, table: ResolvedTable): Promise<Array<IncomingReference>> => {
  const outcome = await session.query(
    `SELECT CONSTRAINT_NAME, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
      WHERE REFERENCED_TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME = ?
      ORDER BY TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`,
    [table.database, table.name]
  )
  const byKey = new Map<
    string,
    { name: string; table: string; columns: Array<string>; referenced_columns: Array<string> }
  >()
  for (const row of outcome.rows) {
    const [name, database, from, column, referenced] = row.map((value) => String(value ?? ""))
    const key = JSON.stringify([database, from, name])
    const entry = byKey.get(key) ??
      {
        name: name!,
        table: database === table.database ? from! : `${database}.${from}`,
        columns: [],
        referenced_columns: []
      }
    entry.columns.push(column!)
    entry.referenced_columns.push(referenced!)
    byKey.set(key, entry)
  }
  return [...byKey.values()]
}

/** SHOW CREATE TABLE has the comments and leaves the triggers out: they complete the DDL text. */
export const structureDetails = async (session: Session, table: ResolvedTable): Promise<StructureDetails> => {
  const found = await triggers(session, table)
  return {
    checks: await checks(session, table),
    triggers: found,
    referenced_by: await incoming(session, table),
    ddl_additions: found.map((trigger) => `${trigger.definition};`)
  }
}
