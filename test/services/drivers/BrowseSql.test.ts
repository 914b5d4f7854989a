import { assert, describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck, Schema } from "effect"
import { BrowseFilter, FilterOperator, type GridFilter } from "../../../src/domain/SqlBrowse.ts"
import {
  buildBrowse,
  buildCount,
  POSTGRES_FLAVOR,
  quoteIdentifier,
  type SqlFlavor
} from "../../../src/services/drivers/BrowseSql.ts"

const known = ["id", "name", "price", "weird \"col\""]
const column = FastCheck.constantFrom(...known)
const value = FastCheck.oneof(FastCheck.string({ minLength: 1 }), FastCheck.integer(), FastCheck.boolean())
const filter = FastCheck.record({
  column,
  operator: Arbitrary.make(FilterOperator),
  value,
  second_value: value
}).map((f) => ({ ...f, value: f.operator === "in" || f.operator === "not_in" ? [f.value] : f.value }))
const placeholders = { sqlite: () => "?", postgresql: (n: number) => `$${n}` }

describe("BrowseSql", () => {
  it.prop(
    "browse: filter values are always bound as parameters, never interpolated",
    [
      FastCheck.array(filter, { maxLength: 4 }),
      FastCheck.constantFrom<"sqlite" | "postgresql">("sqlite", "postgresql")
    ],
    ([filters, dialect]) => {
      const built = buildBrowse("t", known, { filters, limit: 10 }, placeholders[dialect])
      assert.isTrue(built.ok)
      if (!built.ok) return
      const literals = built.value.sql.match(/'[^']*'/g) ?? []
      expect(literals.every((l) => l === "'\\'")).toBe(true)
      for (const f of filters) {
        if (typeof f.value === "string" && f.value.length > 3) assert.notInclude(built.value.sql, f.value)
      }
      if (dialect === "postgresql") {
        const numbers = [...built.value.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))
        expect(numbers).toEqual(numbers.map((_, i) => i + 1))
        assert.strictEqual(numbers.length, built.value.params.length)
      } else {
        assert.strictEqual(built.value.sql.split("?").length - 1, built.value.params.length)
      }
    }
  )

  it.prop(
    "browse: any column outside the table's columns is refused, wherever it is named",
    [FastCheck.string({ minLength: 1 }).filter((c) => !known.includes(c)), FastCheck.integer({ min: 0, max: 2 })],
    ([unknown, where]) => {
      const query = where === 0
        ? { columns: [unknown] }
        : where === 1
        ? { sort: [{ column: unknown, direction: "asc" as const }] }
        : { filters: [{ column: unknown, operator: "is_null" as const }] }
      const built = buildBrowse("t", known, query, () => "?")
      assert.isFalse(built.ok)
    }
  )

  it.prop("browse: quoted identifiers round-trip any name", [FastCheck.string()], ([name]) => {
    const quoted = quoteIdentifier(name)
    assert.strictEqual(quoted.slice(1, -1).replace(/""/g, "\""), name)
  })

  it("browse: LIKE patterns escape their wildcards and operators need their values", () => {
    const built = buildCount(
      "t",
      known,
      [{ column: "name", operator: "contains", value: "50%_off\\" }],
      "and",
      () => "?"
    )
    expect(built).toEqual({
      ok: true,
      value: { sql: "SELECT count(*) FROM \"t\" WHERE (\"name\" LIKE ? ESCAPE '\\')", params: ["%50\\%\\_off\\\\%"] }
    })
    const decode = Schema.decodeUnknownSync(BrowseFilter)
    for (
      const bad of [
        decode({ column: "id", operator: "between", value: 1 }),
        decode({ column: "id", operator: "in", value: [] }),
        decode({ column: "id", operator: "=", value: [1, 2] }),
        decode({ column: "id", operator: ">" })
      ]
    ) {
      assert.isFalse(buildCount("t", known, [bad], "and", () => "?").ok)
    }
  })
  it("the filter bar's conditions: the search box casts every column to text, ILIKE is emulated, the WHERE condition stays in parentheses", () => {
    const mysql: SqlFlavor = {
      quote: (n) => `\`${n}\``,
      likeEscape: " ESCAPE '\\\\'",
      inlinePaging: true,
      backslashEscapes: true,
      textType: "CHAR"
    }
    const filters: ReadonlyArray<GridFilter> = [
      { column: "", operator: "any_column", columns: ["id", "name"], value: "50%_" },
      { column: "name", operator: "ilike", value: "a%" },
      { column: "", operator: "raw_where", value: "price > 1" }
    ]
    const pg = buildCount("t", known, filters, "and", placeholders.postgresql, POSTGRES_FLAVOR)
    assert.isTrue(pg.ok)
    if (pg.ok) {
      expect(pg.value.sql).toBe(
        `SELECT count(*) FROM "t" WHERE (CAST("id" AS TEXT) ILIKE $1 ESCAPE '\\' OR CAST("name" AS TEXT) ILIKE $2 ESCAPE '\\') AND ("name" ILIKE $3 ESCAPE '\\') AND (price > 1)`
      )
      expect(pg.value.params).toEqual(["%50\\%\\_%", "%50\\%\\_%", "a%"])
    }
    const my = buildCount("t", known, filters, "and", () => "?", mysql)
    assert.isTrue(my.ok)
    if (my.ok) {
      expect(my.value.sql).toContain(
        "LOWER(CAST(`id` AS CHAR)) LIKE LOWER(?) ESCAPE '\\\\' OR LOWER(CAST(`name` AS CHAR))"
      )
    }
    const lite = buildCount(
      "t",
      known,
      [{
        column: "",
        operator: "any_of",
        filters: [filters[1]!, { column: "name", operator: "ends_with", value: "_" }]
      }],
      "and",
      () => "?"
    )
    assert.isTrue(lite.ok)
    if (lite.ok) {
      expect(lite.value.sql).toBe(
        `SELECT count(*) FROM "t" WHERE ((LOWER("name") LIKE LOWER(?) ESCAPE '\\') OR ("name" LIKE ? ESCAPE '\\'))`
      )
      expect(lite.value.params).toEqual(["a%", "%\\_"])
    }
  })
})
