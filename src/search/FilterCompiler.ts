import { Either } from "effect"
import type { ColumnFilter, FilterOperator, SearchFilterRequest } from "../domain/SearchFilter.ts"
import { refusedFilterOperators } from "../domain/SearchFilter.ts"
import { SearchFilterRefused } from "../domain/SearchErrors.ts"
import type { SearchColumn } from "../domain/SearchGrid.ts"

type ColumnKind = "text" | "number" | "boolean" | "id"

const numericTypes = new Set(["int32", "int64", "float", "int32[]", "int64[]", "float[]"])
const booleanTypes = new Set(["bool", "bool[]"])

const kindOf = (column: string, types: ReadonlyMap<string, string>): ColumnKind => {
  if (column === "id") return "id"
  const type = types.get(column)
  if (type !== undefined && numericTypes.has(type)) return "number"
  if (type !== undefined && booleanTypes.has(type)) return "boolean"
  return "text"
}

const operatorNames: Record<FilterOperator, string> = {
  "=": "=",
  "!=": "!=",
  ">": ">",
  ">=": ">=",
  "<": "<",
  "<=": "<=",
  between: "between",
  in: "in",
  not_in: "not in",
  contains: "contains",
  not_contains: "does not contain",
  starts_with: "starts with",
  is_null: "is NULL",
  is_not_null: "is not NULL",
  is_empty: "is empty",
  is_not_empty: "is not empty",
  matches_regex: "matches regex",
  ends_with: "ends with"
}

type Compiled = Either.Either<string, SearchFilterRefused>

const refuse = (message: string, column?: string): Either.Either<never, SearchFilterRefused> =>
  Either.left(new SearchFilterRefused(column === undefined ? { message } : { message, column }))

/** Field names that would break out of a clause cannot be filtered on. */
const unsafeColumnName = /[`:()&|]/

/** Decimal numbers only, so the engine never sees `1e3`, `0x10` or `Infinity`. */
const decimal = /^-?\d+(\.\d+)?$/

const quote = (value: string) => `\`${value}\``

const listItems = (value: string | ReadonlyArray<string>) =>
  (typeof value === "string" ? value.split(",") : value)
    .map((item) => item.trim())
    .filter((item) => item !== "")

/** The checks that need no schema, so a refusal never waits on a request (S7-e). */
const precheckClause = (filter: ColumnFilter): Either.Either<void, SearchFilterRefused> => {
  const { column, operator } = filter
  const name = operatorNames[operator]
  // doc 2 §4.2 point 4 and D-56: no equivalent, and `ends with` is refused whatever `infix` says
  if (refusedFilterOperators.includes(operator)) {
    return refuse(
      `Typesense cannot filter with "${name}" (column ${column}). Use contains, or write a raw filter expression instead.`,
      column
    )
  }
  // doc 2 §4.2 point 5: backticks are the engine's only quoting and cannot be escaped inside a value
  for (const value of [filter.value, filter.second_value].flat()) {
    if (value !== undefined && value.includes("`")) {
      return refuse(
        `Typesense has no way to escape a backtick in a filter value, so ${column} cannot be filtered on this text. Remove the backtick or filter with contains on a part of the text without it.`,
        column
      )
    }
  }
  if (column.trim() === "" || unsafeColumnName.test(column)) {
    return refuse(`The column name "${column}" cannot be used in a Typesense filter.`, column)
  }
  return Either.void
}

/** One clause; {@link precheckFilter} has already run. */
const compileClause = (
  filter: ColumnFilter,
  types: ReadonlyMap<string, string>
): Compiled => {
  const { column, operator } = filter
  const name = operatorNames[operator]
  const isList = operator === "in" || operator === "not_in"
  if (Array.isArray(filter.value) && !isList) {
    return refuse(`The filter on ${column} (${name}) takes one value, not a list.`, column)
  }
  const value = typeof filter.value === "string" ? filter.value.trim() : ""
  if (value === "" && !isList) return refuse(`The filter on ${column} (${name}) needs a value.`, column)
  const kind = kindOf(column, types)

  const number = (text: string): Compiled =>
    decimal.test(text)
      ? Either.right(text)
      : refuse(`${column} is a numeric field, and ${text} is not a number.`, column)
  const boolean = (text: string): Compiled => {
    const lower = text.toLowerCase()
    return lower === "true" || lower === "false"
      ? Either.right(lower)
      : refuse(`${column} is a boolean field, so it matches only true or false, not ${text}.`, column)
  }
  const scalar = (text: string): Compiled =>
    kind === "number" ? number(text) : kind === "boolean" ? boolean(text) : Either.right(quote(text))
  const list = (given: string | ReadonlyArray<string>): Compiled => {
    const items = listItems(given)
    if (items.length === 0) return refuse(`The filter on ${column} (${name}) needs at least one value.`, column)
    return Either.all(items.map(scalar)).pipe(Either.map((values) => `[${values.join(",")}]`))
  }

  switch (operator) {
    case "=":
      return scalar(value).pipe(Either.map((v) => `${column}:=${v}`))
    case "!=":
      return scalar(value).pipe(Either.map((v) => `${column}:!=${v}`))
    case "in":
      return list(filter.value ?? "").pipe(Either.map((v) => `${column}:=${v}`))
    case "not_in":
      return list(filter.value ?? "").pipe(Either.map((v) => `${column}:!=${v}`))
    case ">":
    case ">=":
    case "<":
    case "<=":
    case "between": {
      if (kind !== "number") {
        return refuse(`Typesense only compares numbers with ${name}, and ${column} is not a numeric field.`, column)
      }
      if (operator !== "between") return number(value).pipe(Either.map((v) => `${column}:${operator}${v}`))
      const upper = (filter.second_value ?? "").trim()
      if (upper === "") return refuse(`BETWEEN on ${column} needs an upper bound.`, column)
      return Either.all([number(value), number(upper)]).pipe(Either.map(([low, high]) => `${column}:[${low}..${high}]`))
    }
    default: {
      // contains, not_contains, starts_with: word matching, text fields only (typesense-reference §2.2)
      if (kind !== "text") {
        return refuse(
          `Typesense matches words only in text fields, and ${column} is not one. Use =, != or in instead of "${name}".`,
          column
        )
      }
      if (operator === "contains") return Either.right(`${column}:${quote(value)}`)
      if (operator === "not_contains") return Either.right(`${column}:!${quote(value)}`)
      return Either.right(`${column}:${quote(value)}*`)
    }
  }
}

/**
 * Refuses what the engine cannot express (case-sensitive matching, operators without an equivalent, backticks in
 * values, column names that break a clause) without knowing the schema, so callers can run it before any request.
 */
export const precheckFilter = (request: SearchFilterRequest): Either.Either<void, SearchFilterRefused> => {
  if (request.caseSensitive === true) {
    return refuse("Typesense always ignores case, so a case-sensitive filter is not supported.")
  }
  return Either.all(request.filters.map(precheckClause)).pipe(Either.map(() => undefined))
}

/**
 * Compiles the filter bar (or `browse_table` / `count_rows` filters) to a `filter_by` expression (doc 2 §4.2,
 * typesense-reference §7.5). Clauses are joined with `&&` (and) or `||` (or), each parenthesised when there are
 * several; the Raw filter is sent verbatim and joins as one more clause. Any refusal happens here, before a request
 * (S7-e). `undefined` means no filter.
 */
export const compileFilter = (
  request: SearchFilterRequest,
  columns: ReadonlyArray<Pick<SearchColumn, "name" | "type">>
): Either.Either<string | undefined, SearchFilterRefused> => {
  const checked = precheckFilter(request)
  if (Either.isLeft(checked)) return Either.left(checked.left)
  const types = new Map(columns.map((column) => [column.name, column.type]))
  return Either.all(request.filters.map((filter) => compileClause(filter, types))).pipe(
    Either.map((clauses) => {
      const raw = request.raw !== undefined && request.raw.trim() !== "" ? request.raw : undefined
      if (clauses.length === 0) return raw
      const all = raw === undefined ? clauses : [raw, ...clauses]
      if (all.length === 1) return all[0]
      return all.map((clause) => `(${clause})`).join(request.logic === "or" ? " || " : " && ")
    })
  )
}
