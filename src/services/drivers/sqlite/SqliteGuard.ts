// D-65 on SQLite (in the child process): SQLite reports each result column's origin (database, table, column)
// through subqueries, CTEs and views, and none for an expression; the catalog (tables, and the names each view's
// text uses) is read once per schema version and kept.
import type Database from "better-sqlite3"
import { type AnswerVerdict, decideAnswer, type OutputSource } from "../../../domain/AnswerGate.ts"
import { type CatalogObject, guardCatalog } from "../../../domain/GuardCatalog.ts"
import { readingsFor, tokenize } from "../../../domain/SqlLexer.ts"
import type { AnswerGuard } from "../Driver.ts"

interface Snapshot {
  readonly version: string
  readonly objects: ReadonlyArray<CatalogObject>
}

const SCHEMAS = ["main", "temp"] as const

/** The names a view's text uses (every word and quoted name, lower-cased). */
const namesIn = (sql: string): Set<string> => {
  const names = new Set<string>()
  for (const token of tokenize(sql, readingsFor("sqlite")[0]!)) {
    if (token.kind === "word" || token.kind === "quoted") names.add(token.text.toLowerCase())
  }
  return names
}

export class SqliteGuard {
  private snapshot: Snapshot | undefined

  private objectsOf(db: Database.Database): ReadonlyArray<CatalogObject> {
    const version = SCHEMAS.map((schema) => String(db.prepare(`PRAGMA ${schema}.schema_version`).pluck().get())).join(
      "/"
    )
    if (this.snapshot?.version === version) return this.snapshot.objects
    const rows = SCHEMAS.flatMap((schema) =>
      (db.prepare(`SELECT name, type, sql FROM ${schema}.sqlite_schema WHERE type IN ('table', 'view')`).all() as Array<
        { name: string; type: string; sql: string | null }
      >)
        .map((row) => ({ ...row, schema }))
    )
    const keyOf = new Map(rows.map((row) => [row.name.toLowerCase(), `${row.schema}.${row.name}`] as const))
    const objects = rows.map((row): CatalogObject => ({
      key: `${row.schema}.${row.name}`,
      relation: { schema: row.schema, name: row.name },
      kind: row.type === "view" ? "view" : "table",
      columns:
        (db.prepare(`SELECT name FROM ${row.schema}.pragma_table_xinfo(?)`).pluck().all(row.name) as Array<string>),
      reads: row.type === "view" && row.sql !== null
        ? [...namesIn(row.sql)].flatMap((name) => {
          const key = keyOf.get(name)
          return key === undefined ? [] : [{ key }]
        })
        : []
    }))
    this.snapshot = { version, objects }
    return objects
  }

  /** The verdict on a prepared statement's answer, and whether it reads guarded data at all. */
  decide(
    db: Database.Database,
    guard: AnswerGuard,
    columns: ReadonlyArray<Database.ColumnDefinition>
  ): { verdict: AnswerVerdict; readsGuarded: boolean } {
    const objects = this.objectsOf(db)
    // The statement reads what its names match (case-insensitively), and the tables its columns come from.
    const named = new Set(
      [...guard.facts.names, ...columns.flatMap((column) => (column.table === null ? [] : [column.table]))].map((
        name
      ) => name.toLowerCase())
    )
    const roots = objects.filter((object) => named.has(object.relation.name.toLowerCase())).map((object) => object.key)
    const catalog = guardCatalog(objects, roots, guard.policy, guard.facts.compound)
    const sources = columns.map(({ name, table, column, database }): { name: string; source: OutputSource } => ({
      name,
      source: table === null || column === null
        ? { kind: "untraced" }
        : { kind: "column", relation: { schema: database ?? "main", name: table }, column }
    }))
    const reads = catalog.reads
    return {
      verdict: decideAnswer(sources, reads, guard.policy),
      readsGuarded: reads.ruled.length > 0 || (guard.policy.secretCatalogs === "closed" && reads.secret.length > 0)
    }
  }
}
