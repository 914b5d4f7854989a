import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Either, FastCheck } from "effect"
import { planSqlEdits, readOnlyReason } from "../../src/domain/SqlEdits.ts"
import { insertStatement, quoteName, quoteTable, sqlLiteral, stringLiteral } from "../../src/domain/SqlLiterals.ts"

const columns = [{ name: "id", isPrimaryKey: true }, { name: "name", isPrimaryKey: false }, {
  name: "note",
  isPrimaryKey: false
}]
const people = { dialect: "postgresql" as const, table: "people", columns }

describe("SQL literals", () => {
  const db = new Database(":memory:")
  it.prop("a string literal reads back as the same text in SQLite, whatever it holds", [
    FastCheck.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000"))
  ], ([text]) => {
    expect(db.prepare(`SELECT ${sqlLiteral("sqlite", text)}`).pluck().get()).toBe(text)
  })
  it.prop("an identifier reads back as the same name in SQLite", [
    FastCheck.string({ minLength: 1, unit: "grapheme" }).filter((s) => !s.includes("\u0000"))
  ], ([name]) => {
    expect(db.prepare(`SELECT 1 AS ${quoteName("sqlite", name)}`).columns()[0]?.name).toBe(name)
  })
  it("numbers bare, booleans by dialect, NULL, and MySQL backslashes as a hex literal", () => {
    expect(sqlLiteral("postgresql", 13.5)).toBe("13.5")
    expect(sqlLiteral("postgresql", true)).toBe("TRUE")
    expect(sqlLiteral("sqlite", false)).toBe("0")
    expect(sqlLiteral("mysql", null)).toBe("NULL")
    expect(sqlLiteral("mysql", "it's")).toBe("'it''s'")
    expect(stringLiteral("mysql", "a\\b")).toBe("_utf8mb4 X'615c62'")
    expect(quoteName("mysql", "we`ird")).toBe("`we``ird`")
    expect(quoteTable("postgresql", "sales.regions")).toBe("\"sales\".\"regions\"")
    expect(quoteTable("sqlite", "a.b")).toBe("\"a.b\"")
    expect(insertStatement("sqlite", "t", ["a", "b"], [[1, null], ["x", true]])).toBe(
      "INSERT INTO \"t\" (\"a\", \"b\") VALUES\n  (1, NULL),\n  ('x', 1);"
    )
  })
})

describe("planSqlEdits (D-86)", () => {
  it("deletes, then updates, then inserts, each with its values written in; keys name the rows", () => {
    const plan = planSqlEdits(people, {
      inserts: [{ name: "Eve" }, {}],
      updates: [{ key: { id: 2 }, changes: { name: "O'Hara", note: null } }, { key: { id: 3 }, changes: {} }],
      deletes: [{ id: 4 }]
    })
    expect(plan).toEqual(Either.right([
      { sql: "DELETE FROM \"people\" WHERE \"id\" = 4", expectRows: 1 },
      { sql: "UPDATE \"people\" SET \"name\" = 'O''Hara', \"note\" = NULL WHERE \"id\" = 2", expectRows: 1 },
      { sql: "INSERT INTO \"people\" (\"name\") VALUES ('Eve')" },
      { sql: "INSERT INTO \"people\" DEFAULT VALUES" }
    ]))
    expect(planSqlEdits({ ...people, dialect: "mysql" }, { inserts: [{}], updates: [], deletes: [{ id: null }] }))
      .toEqual(Either.right([
        { sql: "DELETE FROM `people` WHERE `id` IS NULL", expectRows: 1 },
        { sql: "INSERT INTO `people` () VALUES ()" }
      ]))
  })

  it("refuses a table without a primary key, unknown columns and keys that are not the primary key", () => {
    const noKey = { ...people, columns: columns.map((c) => ({ ...c, isPrimaryKey: false })) }
    expect(readOnlyReason(noKey)).toContain("has no primary key")
    expect(Either.isLeft(planSqlEdits(noKey, { inserts: [], updates: [], deletes: [] }))).toBe(true)
    expect(planSqlEdits(people, { inserts: [{ nope: 1 }], updates: [], deletes: [] })).toEqual(
      Either.left("'nope' is not a column of people; reload the page and edit again.")
    )
    expect(
      Either.isLeft(
        planSqlEdits(people, { inserts: [], updates: [{ key: { name: "x" }, changes: { note: "y" } }], deletes: [] })
      )
    ).toBe(true)
    expect(Either.isLeft(planSqlEdits(people, { inserts: [], updates: [], deletes: [{ id: 1, name: "x" }] }))).toBe(
      true
    )
  })
})
