import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import type { ColumnFilter, FilterLogic, FilterOperator } from "../../src/domain/SearchFilter.ts"
import { countRows, describeCollection, readPage } from "../../src/search/SearchBrowse.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { clientFor } from "./EngineHelpers.ts"

/**
 * The documents a filter set selects, evaluated directly from the engine's documented semantics
 * (typesense-reference §2.2): case-insensitive word tokens, `=` is the whole value (or one array element), `:` all
 * words anywhere, `*` a word prefix, every negation the complement over all documents.
 */
interface Item {
  readonly id: string
  readonly name: string
  readonly tags: ReadonlyArray<string>
  readonly qty: number
  readonly price: number
  readonly active: boolean
  readonly note?: string
}

const words = ["red", "blue", "Apple", "apricot", "banana", "ban"] as const
const tokens = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t !== "")
const sameTokens = (a: string, b: string) => tokens(a).join(" ") === tokens(b).join(" ")

const textValues = (item: Item, column: string): ReadonlyArray<string> =>
  column === "name" ? [item.name] : column === "tags" ? item.tags : item.note === undefined ? [] : [item.note]

const matches = (item: Item, filter: ColumnFilter): boolean => {
  const value = typeof filter.value === "string" ? filter.value : ""
  const list = (typeof filter.value === "string" ? filter.value.split(",") : filter.value ?? [])
    .map((v) => v.trim())
    .filter((v) => v !== "")
  if (filter.column === "qty" || filter.column === "price") {
    const n = filter.column === "qty" ? item.qty : item.price
    switch (filter.operator) {
      case "=":
        return n === Number(value)
      case "!=":
        return n !== Number(value)
      case ">":
        return n > Number(value)
      case ">=":
        return n >= Number(value)
      case "<":
        return n < Number(value)
      case "<=":
        return n <= Number(value)
      case "between":
        return n >= Number(value) && n <= Number(filter.second_value)
      case "in":
        return list.some((v) => Number(v) === n)
      default:
        return !list.some((v) => Number(v) === n)
    }
  }
  if (filter.column === "active") {
    const equal = (v: string) => (v.toLowerCase() === "true") === item.active
    switch (filter.operator) {
      case "=":
        return equal(value)
      case "!=":
        return !equal(value)
      case "in":
        return list.some(equal)
      default:
        return !list.some(equal)
    }
  }
  const values = textValues(item, filter.column)
  const exact = (v: string) => values.some((field) => sameTokens(field, v))
  const contains = (v: string) => tokens(v).every((t) => values.some((field) => tokens(field).includes(t)))
  switch (filter.operator) {
    case "=":
      return exact(value)
    case "!=":
      return !exact(value)
    case "in":
      return list.some(exact)
    case "not_in":
      return !list.some(exact)
    case "contains":
      return contains(value)
    case "not_contains":
      return !contains(value)
    default:
      return values.some((field) => tokens(field).some((t) => t.startsWith(value.toLowerCase())))
  }
}

const word = FastCheck.constantFrom(...words)
const phrase = FastCheck.array(word, { minLength: 1, maxLength: 2 }).map((ws) => ws.join(" "))
/** A list as the grid types it (comma text) or as `browse_table` sends it (an array). */
const wordList = FastCheck.tuple(FastCheck.array(word, { minLength: 1, maxLength: 3 }), FastCheck.boolean())
  .map(([ws, asText]): string | ReadonlyArray<string> => (asText ? ws.join(",") : ws))
const item = (id: string) =>
  FastCheck.record({
    name: phrase,
    tags: FastCheck.array(word, { maxLength: 3 }),
    qty: FastCheck.integer({ min: -3, max: 3 }),
    price: FastCheck.integer({ min: -4, max: 4 }).map((n) => n / 2),
    active: FastCheck.boolean(),
    note: FastCheck.option(phrase, { nil: undefined })
  }).map(({ note, ...rest }): Item => (note === undefined ? { id, ...rest } : { id, ...rest, note }))

const numberText = (column: "qty" | "price") =>
  column === "qty"
    ? FastCheck.integer({ min: -3, max: 3 }).map(String)
    : FastCheck.integer({ min: -4, max: 4 }).map((n) => String(n / 2))

const filter: FastCheck.Arbitrary<ColumnFilter> = FastCheck.oneof(
  FastCheck.tuple(
    FastCheck.constantFrom("name", "tags", "note"),
    FastCheck.constantFrom<FilterOperator>("=", "!=", "contains", "not_contains", "in", "not_in", "starts_with")
  ).chain(([column, operator]) =>
    (operator === "in" || operator === "not_in"
      ? wordList
      : operator === "starts_with"
      ? word.chain((w) => FastCheck.integer({ min: 1, max: w.length }).map((n) => w.slice(0, n)))
      : operator === "contains" || operator === "not_contains"
      ? word
      : phrase).map((value): ColumnFilter => ({ column, operator, value }))
  ),
  FastCheck.tuple(
    FastCheck.constantFrom("qty" as const, "price" as const),
    FastCheck.constantFrom<FilterOperator>("=", "!=", ">", ">=", "<", "<=", "between", "in", "not_in")
  ).chain(([column, operator]) =>
    FastCheck.tuple(
      numberText(column),
      numberText(column),
      FastCheck.array(numberText(column), { minLength: 1, maxLength: 3 })
    )
      .map(([a, b, list]): ColumnFilter =>
        operator === "between"
          ? { column, operator, value: a, second_value: b }
          : operator === "in" || operator === "not_in"
          ? { column, operator, value: list.join(",") }
          : { column, operator, value: a }
      )
  ),
  FastCheck.tuple(
    FastCheck.constantFrom<FilterOperator>("=", "!=", "in", "not_in"),
    FastCheck.constantFrom("true", "FALSE", "true,false")
  )
    .map(([operator, value]): ColumnFilter => ({
      column: "active",
      operator,
      value: operator === "in" || operator === "not_in" ? value : value.split(",")[0] ?? value
    }))
)

describe.each([26, 29] as const)("compiled filters run by engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version })
  })
  afterAll(() => engine.stop())

  let collections = 0
  const schema = (name: string) => ({
    name,
    fields: [
      { name: "name", type: "string" },
      { name: "tags", type: "string[]" },
      { name: "qty", type: "int32" },
      { name: "price", type: "float" },
      { name: "active", type: "bool" },
      { name: "note", type: "string", optional: true }
    ]
  })

  it.live("S4.2-a S4.2-c the engine selects exactly the documents a direct evaluation of the filters selects", () =>
    Effect.promise(() =>
      FastCheck.assert(
        FastCheck.asyncProperty(
          FastCheck.integer({ min: 0, max: 12 }).chain((n) =>
            FastCheck.tuple(...Array.from({ length: n }, (_, i) => item(String(i))))
          ),
          FastCheck.array(filter, { minLength: 1, maxLength: 4 }),
          FastCheck.constantFrom<FilterLogic>("and", "or"),
          async (items, filters, logic) => {
            const name = `items_${collections++}`
            await engine.createCollection(schema(name))
            await engine.importDocuments(name, items)
            const expected = items
              .filter((it) => (logic === "and"
                ? filters.every((f) => matches(it, f))
                : filters.some((f) => matches(it, f)))
              )
              .map((it) => it.id)
              .sort()
            const [selected, counted] = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
              const client = yield* clientFor(engine)
              const { columns } = yield* describeCollection(client, name)
              const page = yield* readPage(client, { collection: name, columns, limit: 50, filter: { filters, logic } })
              const count = yield* countRows(client, name, { filters, logic }, columns)
              return [page.rows.map((row) => String(row[0])).sort(), count] as const
            })))
            expect(selected).toEqual(expected)
            expect(counted).toBe(expected.length)
          }
        ),
        { numRuns: 120 }
      )
    ))
})
