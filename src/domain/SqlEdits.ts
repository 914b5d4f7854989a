import { Either } from "effect"
import type { CellValue } from "./ResultSet.ts"
import type { SqlDialect } from "./SqlLexer.ts"
import { quoteName, quoteTable, sqlLiteral } from "./SqlLiterals.ts"

export type CellMap = Readonly<Record<string, CellValue>>

/** The grid's pending changes to a SQL table (D-86): rows are found again by their primary key values. */
export interface SqlEdits {
  readonly inserts: ReadonlyArray<CellMap>
  readonly updates: ReadonlyArray<{ readonly key: CellMap; readonly changes: CellMap }>
  readonly deletes: ReadonlyArray<CellMap>
}

export interface SqlTableShape {
  readonly dialect: SqlDialect
  readonly table: string
  readonly columns: ReadonlyArray<{ readonly name: string; readonly isPrimaryKey: boolean }>
}

/** One statement of the Save, with the number of rows it must change (1 for an UPDATE or DELETE by key). */
export interface PlannedStatement {
  readonly sql: string
  readonly expectRows?: number
}

/** Why a table's grid is read-only, or undefined when its rows can be edited. */
export const readOnlyReason = (
  shape: Pick<SqlTableShape, "table" | "columns">,
  kind: "table" | "view" | "collection" = "table"
): string | undefined =>
  kind === "view"
    ? `'${shape.table}' is a view: change the rows of its tables instead.`
    : shape.columns.some((column) => column.isPrimaryKey)
    ? undefined
    : `'${shape.table}' has no primary key, so an edited row could not be found again: change it with a statement in the Console tab.`

/**
 * The statements a Save runs, in order: deletes, updates, inserts (a deleted key can be inserted again). Values are
 * written in as literals, so the dialog shows exactly what runs. Refuses unknown columns and keys that do not name
 * every primary key column.
 */
export const planSqlEdits = (
  shape: SqlTableShape,
  edits: SqlEdits
): Either.Either<ReadonlyArray<PlannedStatement>, string> => {
  const reason = readOnlyReason(shape)
  if (reason !== undefined) return Either.left(reason)
  const known = new Set(shape.columns.map((column) => column.name))
  const keyColumns = shape.columns.filter((column) => column.isPrimaryKey).map((column) => column.name)
  const table = quoteTable(shape.dialect, shape.table)
  const name = (column: string) => quoteName(shape.dialect, column)
  const literal = (value: CellValue) => sqlLiteral(shape.dialect, value)

  const unknown = [...edits.inserts, ...edits.updates.map((update) => update.changes)].flatMap(Object.keys).find((
    column
  ) => !known.has(column))
  if (unknown !== undefined) {
    return Either.left(`'${unknown}' is not a column of ${shape.table}; reload the page and edit again.`)
  }
  const badKey = [...edits.updates.map((update) => update.key), ...edits.deletes].find((key) =>
    keyColumns.some((column) => !(column in key)) || Object.keys(key).some((column) => !keyColumns.includes(column))
  )
  if (badKey !== undefined) {
    return Either.left(
      `A changed row must be named by its primary key (${keyColumns.join(", ")}); reload the page and edit again.`
    )
  }

  const where = (key: CellMap) =>
    keyColumns.map((
      column
    ) => (key[column] === null ? `${name(column)} IS NULL` : `${name(column)} = ${literal(key[column] ?? null)}`)).join(
      " AND "
    )
  const deletes = edits.deletes.map((key): PlannedStatement => ({
    sql: `DELETE FROM ${table} WHERE ${where(key)}`,
    expectRows: 1
  }))
  const updates = edits.updates
    .filter((update) => Object.keys(update.changes).length > 0)
    .map((update): PlannedStatement => ({
      sql: `UPDATE ${table} SET ${
        Object.entries(update.changes).map(([column, value]) => `${name(column)} = ${literal(value)}`).join(", ")
      } WHERE ${where(update.key)}`,
      expectRows: 1
    }))
  const inserts = edits.inserts.map((row): PlannedStatement => {
    const columns = Object.keys(row)
    if (columns.length === 0) {
      return {
        sql: shape.dialect === "mysql" ? `INSERT INTO ${table} () VALUES ()` : `INSERT INTO ${table} DEFAULT VALUES`
      }
    }
    return {
      sql: `INSERT INTO ${table} (${columns.map(name).join(", ")}) VALUES (${
        columns.map((column) => literal(row[column] ?? null)).join(", ")
      })`
    }
  })
  return Either.right([...deletes, ...updates, ...inserts])
}
