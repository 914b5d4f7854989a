// The structure view's CHECK constraints, triggers and incoming references on PostgreSQL, from the catalogs.
import type { IncomingReference, StructureDetails, TriggerDescription } from "../../../domain/TableStructure.ts"
import { displayName, qualifiedName, type ResolvedTable } from "./PostgresCatalog.ts"
import type { Db } from "./PostgresRunner.ts"

/** pg_trigger.tgtype bits (src/include/catalog/pg_trigger.h). */
const BEFORE = 2
const INSTEAD = 64
const EVENTS: ReadonlyArray<readonly [number, string]> = [[4, "INSERT"], [16, "UPDATE"], [8, "DELETE"], [
  32,
  "TRUNCATE"
]]

export const triggerTiming = (type: number): string =>
  (type & BEFORE) !== 0 ? "BEFORE" : (type & INSTEAD) !== 0 ? "INSTEAD OF" : "AFTER"
export const triggerEvent = (type: number): string =>
  EVENTS.filter(([bit]) => (type & bit) !== 0).map(([, name]) => name).join(" OR ")

/** `CHECK ((price >= 0)) NOT VALID` → `(price >= 0)`: the expression as written back by the server. */
const checkExpression = (definition: string): string =>
  definition.replace(/^CHECK \(([\s\S]*)\)( NO INHERIT)?( NOT VALID)?$/, "$1")

export const structureDetails = async (db: Db, table: ResolvedTable): Promise<StructureDetails> => {
  const checks = await db.rows<{ name: string; definition: string }>(
    "SELECT conname AS name, pg_get_constraintdef(oid, true) AS definition FROM pg_constraint WHERE conrelid = $1 AND contype = 'c' ORDER BY conname",
    [table.oid]
  )
  const triggers = await db.rows<{ name: string; type: number; definition: string }>(
    "SELECT tgname AS name, tgtype::int AS type, pg_get_triggerdef(oid, true) AS definition FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY tgname",
    [table.oid]
  )
  const incoming = await db.rows<
    { name: string; schema: string; table: string; columns: Array<string>; referenced: Array<string> }
  >(
    `SELECT k.conname AS name, n.nspname AS schema, c.relname AS table,
            to_json(ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(n, o)
                    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o)) AS columns,
            to_json(ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(n, o)
                    JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o)) AS referenced
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.confrelid = $1 AND k.contype = 'f' ORDER BY n.nspname, c.relname, k.conname`,
    [table.oid]
  )
  // the literals are quoted by the server (format's %I and %L), as pg_dump writes them
  const comments = await db.rows<{ statement: string }>(
    `SELECT format('COMMENT ON TABLE %s IS %L;', $2::text, d.description) AS statement
       FROM pg_description d WHERE d.objoid = $1 AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
     UNION ALL
     SELECT * FROM (SELECT format('COMMENT ON COLUMN %s.%I IS %L;', $2::text, a.attname, d.description)
       FROM pg_description d JOIN pg_attribute a ON a.attrelid = d.objoid AND a.attnum = d.objsubid
      WHERE d.objoid = $1 AND d.classoid = 'pg_class'::regclass AND d.objsubid > 0 ORDER BY a.attnum) c`,
    [table.oid, qualifiedName(table)]
  )
  return {
    ddl_additions: [...comments.map((row) => row.statement), ...triggers.map((row) => `${row.definition};`)],
    checks: checks.map((row) => ({ name: row.name, expression: checkExpression(row.definition) })),
    triggers: triggers.map((row): TriggerDescription => ({
      name: row.name,
      timing: triggerTiming(row.type),
      event: triggerEvent(row.type),
      definition: `${row.definition};`
    })),
    referenced_by: incoming.map((row): IncomingReference => ({
      name: row.name,
      table: displayName(row.schema, row.table),
      columns: row.columns,
      referenced_columns: row.referenced
    }))
  }
}
