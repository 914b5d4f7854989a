import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { bindPlaceholders, scanPlaceholders } from "../../src/domain/CuratedSql.ts"
import {
  auditedArguments,
  curatedInputSchema,
  type CuratedToolDefinition,
  decodeCuratedArguments
} from "../../src/domain/CuratedTool.ts"
import { parseCuratedToolsFile } from "../../src/domain/CuratedToolsFile.ts"
import type { SqlDialect } from "../../src/domain/SqlLexer.ts"

const names = (sql: string, dialect: SqlDialect) =>
  Either.getOrThrow(scanPlaceholders(sql, dialect)).map((placeholder) => placeholder.name)

describe("curated tools: the placeholder scanner reads the text with the SQL lexer", () => {
  it("finds :name in code and nowhere else", () => {
    const sql =
      "SELECT ':no', \"x:no\", $tag$ :no $tag$, a::int, E'\\':no' /* :no */ -- :no\nFROM t WHERE a = :yes AND b=:also"
    expect(names(sql, "postgresql")).toEqual(["yes", "also"])
    expect(names("SELECT ':no', `x:no` # :no\n, a FROM t WHERE a = :yes", "mysql")).toEqual(["yes"])
    expect(names("SELECT ':no', \"x:no\" FROM t WHERE a = :yes", "sqlite")).toEqual(["yes"])
  })

  it("refuses a placeholder that some server settings read inside a comment (an executable comment, backslash escapes)", () => {
    expect(Either.isLeft(scanPlaceholders("SELECT 1 /*! + :a */ FROM t", "mysql"))).toBe(true)
    expect(Either.isLeft(scanPlaceholders("SELECT 'a\\' , :a, '' FROM t", "mysql"))).toBe(true)
  })

  it("refuses the drivers' own markers, which would take the place of a bound value", () => {
    expect(Either.isLeft(scanPlaceholders("SELECT * FROM t WHERE a = ? AND b = :b", "mysql"))).toBe(true)
    expect(Either.isLeft(scanPlaceholders("SELECT * FROM t WHERE a = $1 AND b = :b", "postgresql"))).toBe(true)
    expect(Either.isLeft(scanPlaceholders("SELECT * FROM t WHERE a = @a AND b = :b", "sqlite"))).toBe(true)
    // Inside a string the marker is text.
    expect(names("SELECT '?' FROM t WHERE b = :b", "mysql")).toEqual(["b"])
  })

  it("binds with each driver's own marker: $n once per name on PostgreSQL, ? per occurrence elsewhere", () => {
    const sql = "SELECT * FROM t WHERE a = :x OR b = :y OR c = :x"
    const pg = bindPlaceholders(sql, "postgresql", Either.getOrThrow(scanPlaceholders(sql, "postgresql")), {
      x: 1,
      y: "two"
    })
    expect(pg).toEqual({ sql: "SELECT * FROM t WHERE a = $1 OR b = $2 OR c = $1", params: [1, "two"] })
    const my = bindPlaceholders(sql, "mysql", Either.getOrThrow(scanPlaceholders(sql, "mysql")), { x: 1, y: "two" })
    expect(my).toEqual({ sql: "SELECT * FROM t WHERE a = ? OR b = ? OR c = ?", params: [1, "two", 1] })
    const glued = "SELECT x:a"
    expect(
      bindPlaceholders(glued, "postgresql", Either.getOrThrow(scanPlaceholders(glued, "postgresql")), { a: 1 }).sql
    ).toBe("SELECT x $1")
  })
})

const orders: CuratedToolDefinition = {
  name: "orders_by_region",
  description: "Orders of a region since a time",
  connection: "Sample",
  sql: "SELECT * FROM orders WHERE region = :region AND placed_at >= :since",
  parameters: [
    { name: "region", type: "enum", values: ["north", "south"] },
    { name: "since", type: "timestamp" },
    { name: "limit", type: "integer", min: 1, max: 100, default: 10 },
    { name: "ratio", type: "number", required: false },
    { name: "paid", type: "boolean", required: false },
    { name: "day", type: "date", required: false },
    { name: "code", type: "text", pattern: "[A-Z]{3}", required: false, secret: true }
  ]
}

describe("curated tools: typed parameters", () => {
  it("generate the input schema from their types", () => {
    expect(curatedInputSchema(orders)).toEqual({
      type: "object",
      properties: {
        region: { type: "string", enum: ["north", "south"] },
        since: { type: "string", format: "date-time" },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
        ratio: { type: "number" },
        paid: { type: "boolean" },
        day: { type: "string", format: "date" },
        code: { type: "string", pattern: "^(?:[A-Z]{3})$" }
      },
      required: ["region", "since"]
    })
  })

  it("check each argument, fill defaults, and name every problem", () => {
    expect(decodeCuratedArguments(orders, { region: "north", since: "2026-01-01T00:00:00Z" })).toEqual(
      Either.right({
        region: "north",
        since: "2026-01-01T00:00:00Z",
        limit: 10,
        ratio: null,
        paid: null,
        day: null,
        code: null
      })
    )
    const wrong = decodeCuratedArguments(orders, {
      region: "east",
      since: "yesterday",
      limit: 1.5,
      paid: "yes",
      day: "2026-02-30",
      code: "abcd",
      extra: 1
    })
    expect(Either.isLeft(wrong)).toBe(true)
    const message = Either.isLeft(wrong) ? wrong.left : ""
    for (
      const part of [
        "extra is not an argument",
        "region: expected one of north, south",
        "since: expected a timestamp",
        "limit: expected a whole number",
        "paid: expected true or false",
        "day: expected a date",
        "code: expected text matching"
      ]
    ) {
      expect(message).toContain(part)
    }
    expect(Either.isLeft(decodeCuratedArguments(orders, { region: "north", since: "2026-01-01", limit: 101 }))).toBe(
      true
    )
  })

  it("redact a secret parameter in what the activity log keeps", () => {
    expect(auditedArguments(orders, { region: "north", code: "ABC" })).toEqual({ region: "north", code: "[redacted]" })
  })
})

describe("curated tools: tools.json is checked as a whole, an error names the line", () => {
  const file = (tools: ReadonlyArray<unknown>) => JSON.stringify({ version: 1, tools }, null, 2)

  it("accepts a valid file", () => {
    expect(Either.isRight(parseCuratedToolsFile(file([orders]), []))).toBe(true)
  })

  it("names the line of a JSON syntax error", () => {
    const text = "{\n  \"version\": 1,\n  \"tools\": [\n    {,\n  ]\n}"
    const result = parseCuratedToolsFile(text, [])
    expect(Either.isLeft(result) && result.left).toMatch(/^line 4: /)
  })

  it("names the line of the tool whose fields are wrong, and refuses built-in names and duplicates", () => {
    const text = file([orders, { ...orders, name: "second", parameters: [{ name: "x", type: "decimal" }] }])
    const line = text.split("\n").findIndex((row) => row.includes("\"second\"")) + 1
    const result = parseCuratedToolsFile(text, [])
    expect(Either.isLeft(result) && result.left).toContain(`line ${line}: `)
    const builtIn = parseCuratedToolsFile(file([{ ...orders, name: "execute_query" }]), ["execute_query"])
    expect(Either.isLeft(builtIn) && builtIn.left).toContain("built-in")
    expect(Either.isLeft(parseCuratedToolsFile(file([orders, orders]), []))).toBe(true)
    expect(Either.isLeft(parseCuratedToolsFile(file([{ ...orders, name: "has space" }]), []))).toBe(true)
    expect(
      Either.isLeft(
        parseCuratedToolsFile(
          file([{ ...orders, parameters: [{ name: "limit", type: "integer", default: "ten" }] }]),
          []
        )
      )
    ).toBe(true)
    // A tool has either a statement or a search, and a search's filter values name declared parameters only.
    const search = { collection: "books", filters: [{ column: "title", operator: "=", value: ":title" }] }
    expect(Either.isLeft(parseCuratedToolsFile(file([{ ...orders, search }]), []))).toBe(true)
    const { sql: _sql, ...noSql } = orders
    expect(Either.isLeft(parseCuratedToolsFile(file([noSql]), []))).toBe(true)
    expect(
      Either.isRight(
        parseCuratedToolsFile(file([{ ...noSql, search, parameters: [{ name: "title", type: "text" }] }]), [])
      )
    ).toBe(true)
    const unused = parseCuratedToolsFile(
      file([{ ...noSql, search, parameters: [{ name: "title", type: "text" }, { name: "other", type: "text" }] }]),
      []
    )
    expect(Either.isLeft(unused) && unused.left).toContain("other is not used")
  })
})
