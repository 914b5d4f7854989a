import { assert, describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import type { ColumnFilter, FilterOperator } from "../../src/domain/SearchFilter.ts"
import { compileFilter, precheckFilter } from "../../src/search/FilterCompiler.ts"

/** Doc 2 §4.2 point 4 (S4.2-d): is NULL, is not NULL, is empty, is not empty, matches regex, ends with; pinned here, not read from the source. */
const REFUSED_OPERATORS: ReadonlyArray<FilterOperator> = [
  "is_null",
  "is_not_null",
  "is_empty",
  "is_not_empty",
  "matches_regex",
  "ends_with"
]

const columns = [
  { name: "id", type: "string" },
  { name: "title", type: "string" },
  { name: "tags", type: "string[]" },
  { name: "year", type: "int32" },
  { name: "price", type: "float" },
  { name: "in_stock", type: "bool" },
  { name: "meta.pages", type: "int64" }
]

const compile = (filters: ReadonlyArray<ColumnFilter>, logic: "and" | "or" = "and", raw?: string) =>
  compileFilter(raw === undefined ? { filters, logic } : { filters, logic, raw }, columns)

const compiled = (filters: ReadonlyArray<ColumnFilter>, logic: "and" | "or" = "and", raw?: string) => {
  const result = compile(filters, logic, raw)
  assert.isTrue(Either.isRight(result), Either.isLeft(result) ? result.left.message : "")
  return Either.getOrThrow(result)
}

const refusal = (filters: ReadonlyArray<ColumnFilter>) => {
  const result = compile(filters)
  assert.isTrue(Either.isLeft(result))
  return Either.isLeft(result) ? result.left.message : ""
}

describe("filter compiler", () => {
  it("S4.2-a each operator compiles to the engine's clause", () => {
    expect(compiled([{ column: "title", operator: "=", value: "The Hobbit" }])).toBe("title:=`The Hobbit`")
    expect(compiled([{ column: "title", operator: "!=", value: "Dune" }])).toBe("title:!=`Dune`")
    expect(compiled([{ column: "year", operator: "=", value: "1965" }])).toBe("year:=1965")
    expect(compiled([{ column: "year", operator: "!=", value: "-3" }])).toBe("year:!=-3")
    expect(compiled([{ column: "price", operator: ">=", value: "9.5" }])).toBe("price:>=9.5")
    expect(compiled([{ column: "year", operator: "<", value: "1900" }])).toBe("year:<1900")
    expect(compiled([{ column: "year", operator: "between", value: "1937", second_value: "1965" }])).toBe(
      "year:[1937..1965]"
    )
    expect(compiled([{ column: "tags", operator: "in", value: "a, b ,c" }])).toBe("tags:=[`a`,`b`,`c`]")
    expect(compiled([{ column: "year", operator: "not_in", value: "1,2" }])).toBe("year:!=[1,2]")
    expect(compiled([{ column: "title", operator: "contains", value: "hobbit" }])).toBe("title:`hobbit`")
    expect(compiled([{ column: "title", operator: "not_contains", value: "hobbit" }])).toBe("title:!`hobbit`")
    expect(compiled([{ column: "title", operator: "starts_with", value: "Neu" }])).toBe("title:`Neu`*")
    expect(compiled([{ column: "in_stock", operator: "=", value: "TRUE" }])).toBe("in_stock:=true")
    expect(compiled([{ column: "id", operator: "in", value: "1,2" }])).toBe("id:=[`1`,`2`]")
    expect(compiled([{ column: "tags", operator: "not_in", value: ["a, b", "c"] }])).toBe("tags:!=[`a, b`,`c`]")
    expect(compiled([{ column: "meta.pages", operator: ">", value: "100" }])).toBe("meta.pages:>100")
  })

  it("S4.2-a All joins with && and Any with ||, each clause parenthesised", () => {
    const filters: ReadonlyArray<ColumnFilter> = [
      { column: "year", operator: ">", value: "1900" },
      { column: "tags", operator: "=", value: "cyber" }
    ]
    expect(compiled(filters, "and")).toBe("(year:>1900) && (tags:=`cyber`)")
    expect(compiled(filters, "or")).toBe("(year:>1900) || (tags:=`cyber`)")
    expect(compiled([])).toBeUndefined()
  })

  it("S4.2-b the Raw filter is sent verbatim, and joins column filters as one clause", () => {
    expect(compiled([], "and", "year:>1900 && tags:=[a,b]")).toBe("year:>1900 && tags:=[a,b]")
    expect(compiled([], "and", "   ")).toBeUndefined()
    expect(compiled([{ column: "year", operator: "<", value: "2000" }], "or", "title:`x`")).toBe(
      "(title:`x`) || (year:<2000)"
    )
  })

  it("S4.2-c a case-sensitive filter is refused: the engine always ignores case", () => {
    const result = compileFilter({ filters: [], logic: "and", caseSensitive: true }, columns)
    assert.isTrue(Either.isLeft(result))
    expect(Either.isLeft(result) && result.left.message).toMatch(/ignores case/)
    assert.isTrue(Either.isRight(compileFilter({ filters: [], logic: "and", caseSensitive: false }, columns)))
  })

  it("S4.2-d S2.2-g each operator without an equivalent is refused with a message, ends with always", () => {
    for (const operator of REFUSED_OPERATORS) {
      const message = refusal([{ column: "title", operator, value: "x" }])
      expect(message).toMatch(
        /^Typesense cannot filter with ".+" \(column title\)\. Use contains, or write a raw filter/
      )
    }
    // ends with is refused whatever the field's infix flag says (D-56)
    const withInfix = compileFilter(
      { filters: [{ column: "sku", operator: "ends_with", value: "42" }], logic: "and" },
      [{ name: "sku", type: "string" }]
    )
    assert.isTrue(Either.isLeft(withInfix))
  })

  it("S4.2-e a value containing a backtick is refused, in either value", () => {
    expect(refusal([{ column: "title", operator: "=", value: "odd` || year:>0" }])).toMatch(/escape a backtick/)
    expect(refusal([{ column: "year", operator: "between", value: "1", second_value: "2`" }])).toMatch(/backtick/)
  })

  it("numeric and boolean values are checked against the column type", () => {
    expect(refusal([{ column: "year", operator: "=", value: "abc" }])).toBe(
      "year is a numeric field, and abc is not a number."
    )
    expect(refusal([{ column: "in_stock", operator: "=", value: "yes" }])).toBe(
      "in_stock is a boolean field, so it matches only true or false, not yes."
    )
    expect(refusal([{ column: "title", operator: ">", value: "D" }])).toBe(
      "Typesense only compares numbers with >, and title is not a numeric field."
    )
    expect(refusal([{ column: "year", operator: "between", value: "1" }])).toBe("BETWEEN on year needs an upper bound.")
    expect(refusal([{ column: "year", operator: "contains", value: "1" }])).toMatch(/only in text fields/)
    expect(refusal([{ column: "title", operator: "=", value: " " }])).toMatch(/needs a value/)
    expect(refusal([{ column: "a:b", operator: "=", value: "x" }])).toMatch(/cannot be used/)
    expect(refusal([{ column: "title", operator: "=", value: ["a", "b"] }])).toMatch(/takes one value, not a list/)
    expect(refusal([{ column: "title", operator: "in", value: [] }])).toMatch(/needs at least one value/)
    expect(refusal([{ column: "title", operator: "in", value: ["ok", "no`"] }])).toMatch(/backtick/)
  })

  const operator = FastCheck.constantFrom<FilterOperator>(
    "=",
    "!=",
    ">",
    ">=",
    "<",
    "<=",
    "between",
    "in",
    "not_in",
    "contains",
    "not_contains",
    "starts_with",
    "is_null",
    "is_not_null",
    "is_empty",
    "is_not_empty",
    "matches_regex",
    "ends_with"
  )
  const filter = FastCheck.record({
    column: FastCheck.constantFrom("id", "title", "tags", "year", "price", "in_stock", "unknown"),
    operator,
    value: FastCheck.string(),
    second_value: FastCheck.string()
  })

  it.prop("S7-e S4.2-d S4.2-e every refused operator or backtick is caught by the schema-free precheck", [
    FastCheck.array(filter, { maxLength: 4 })
  ], ([filters]) => {
    const refused = filters.some((f) =>
      REFUSED_OPERATORS.includes(f.operator) || f.value.includes("`") || f.second_value.includes("`")
    )
    const pre = precheckFilter({ filters, logic: "and" })
    assert.strictEqual(Either.isLeft(pre), refused)
    if (refused) assert.isTrue(Either.isLeft(compileFilter({ filters, logic: "and" }, columns)))
  })

  it.prop("S4.2-a a compiled filter has one parenthesised clause per filter, all joined by one operator", [
    FastCheck.array(
      FastCheck.record({
        column: FastCheck.constantFrom("title", "tags"),
        value: FastCheck.stringMatching(/^[a-z]{1,6}$/)
      }),
      { minLength: 2, maxLength: 6 }
    ),
    FastCheck.constantFrom<"and" | "or">("and", "or")
  ], ([rows, logic]) => {
    const filters = rows.map((row): ColumnFilter => ({ column: row.column, operator: "contains", value: row.value }))
    const expression = Either.getOrThrow(compileFilter({ filters, logic }, columns)) ?? ""
    const joiner = logic === "and" ? " && " : " || "
    expect(expression.split(joiner)).toEqual(filters.map((f) => `(${f.column}:\`${f.value ?? ""}\`)`))
  })
})
