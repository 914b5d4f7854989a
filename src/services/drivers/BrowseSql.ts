import type { BrowseFilter, FilterLogic, GridFilter, GridQuery, ScalarValue } from "../../domain/SqlBrowse.ts"

/** SQL for `browse_table` and `count_rows`: identifiers checked against the real columns and quoted, values bound. */
export interface BoundSql {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

export type BuildResult = { readonly ok: true; readonly value: BoundSql } | {
  readonly ok: false
  readonly message: string
}

/** `?` for SQLite, `$n` for PostgreSQL. */
export type Placeholder = (position: number) => string

export const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, "\"\"")}"`

/**
 * What differs between SQL engines in the built text: identifier quoting, the LIKE escape clause (MySQL strings
 * take backslash escapes, so its clause is spelled differently), and whether LIMIT/OFFSET are written as integers
 * (MySQL 8.0.22+ refuses some bound types there).
 */
export interface SqlFlavor {
  readonly quote: (name: string) => string
  readonly likeEscape: string
  readonly inlinePaging: boolean
  /** String literals take backslash escapes (MySQL without NO_BACKSLASH_ESCAPES), so a literal doubles them. */
  readonly backslashEscapes?: boolean
  /** The type a value is cast to for the any-column search: TEXT, or CHAR on MySQL. */
  readonly textType?: string
  /** PostgreSQL has ILIKE; elsewhere it is emulated as LOWER(column) LIKE LOWER(pattern). */
  readonly nativeIlike?: boolean
}

export const STANDARD_FLAVOR: SqlFlavor = { quote: quoteIdentifier, likeEscape: " ESCAPE '\\'", inlinePaging: false }
export const POSTGRES_FLAVOR: SqlFlavor = { ...STANDARD_FLAVOR, nativeIlike: true }

/** The value matched literally: the escape character, % and _ escaped, then the wildcards the operator needs. */
const likePattern = (value: string, where: "anywhere" | "start" | "end"): string => {
  const escaped = value.replace(/[\\%_]/g, (c) => `\\${c}`)
  return where === "start" ? `${escaped}%` : where === "end" ? `%${escaped}` : `%${escaped}%`
}

/** `column ILIKE pattern`, emulated with LOWER where the dialect has no ILIKE. */
const ilike = (column: string, pattern: string, flavor: SqlFlavor): string =>
  flavor.nativeIlike === true
    ? `${column} ILIKE ${pattern}${flavor.likeEscape}`
    : `LOWER(${column}) LIKE LOWER(${pattern})${flavor.likeEscape}`

const bindable = (value: ScalarValue): unknown => (typeof value === "boolean" ? (value ? 1 : 0) : value)

class BuildError {
  constructor(readonly message: string) {}
}

const checkColumn = (known: ReadonlyArray<string>, column: string, flavor: SqlFlavor): string => {
  if (!known.includes(column)) {
    throw new BuildError(`unknown column "${column}"; the table has: ${known.join(", ")}`)
  }
  return flavor.quote(column)
}

/** How a value enters the text: a placeholder whose value is bound (the grid), or a literal (the console). */
type Bind = (value: unknown) => string

const whereClause = (
  known: ReadonlyArray<string>,
  filters: ReadonlyArray<GridFilter>,
  logic: FilterLogic,
  bind: Bind,
  flavor: SqlFlavor
): string => {
  const joined = conditionsOf(known, filters, logic, bind, flavor)
  return joined === "" ? "" : ` WHERE ${joined}`
}

/** The conditions, each in parentheses, joined by AND or OR; "" for none. */
const conditionsOf = (
  known: ReadonlyArray<string>,
  filters: ReadonlyArray<GridFilter>,
  logic: FilterLogic,
  bind: Bind,
  flavor: SqlFlavor
): string => {
  const scalar = (filter: BrowseFilter, value: BrowseFilter["value"] | undefined): ScalarValue => {
    if (value === undefined || Array.isArray(value)) {
      throw new BuildError(`operator ${filter.operator} on "${filter.column}" needs a single value`)
    }
    return value as ScalarValue
  }
  const conditions = filters.map((filter) => {
    if (filter.operator === "raw_where") return filter.value
    if (filter.operator === "any_of") return conditionsOf(known, filter.filters, "or", bind, flavor) || "1 = 1"
    if (filter.operator === "any_column") {
      // one pattern, bound once per column: every column read as text, case ignored
      const pattern = likePattern(filter.value, "anywhere")
      const each = filter.columns.map((name) =>
        ilike(`CAST(${checkColumn(known, name, flavor)} AS ${flavor.textType ?? "TEXT"})`, bind(pattern), flavor)
      )
      return each.length === 0 ? "1 = 0" : each.join(" OR ")
    }
    const column = checkColumn(known, filter.column, flavor)
    switch (filter.operator) {
      case "is_null":
        return `${column} IS NULL`
      case "is_not_null":
        return `${column} IS NOT NULL`
      case "between": {
        if (filter.second_value === undefined) {
          throw new BuildError(`operator between on "${filter.column}" needs value and second_value`)
        }
        const low = bind(bindable(scalar(filter, filter.value)))
        return `${column} BETWEEN ${low} AND ${bind(bindable(filter.second_value))}`
      }
      case "in":
      case "not_in": {
        const values = filter.value
        if (!Array.isArray(values) || values.length === 0) {
          throw new BuildError(`operator ${filter.operator} on "${filter.column}" needs a non-empty array value`)
        }
        const list = (values as ReadonlyArray<ScalarValue>).map((v) => bind(bindable(v))).join(", ")
        return `${column} ${filter.operator === "in" ? "IN" : "NOT IN"} (${list})`
      }
      case "contains":
      case "not_contains":
      case "starts_with": {
        const pattern = likePattern(
          String(scalar(filter, filter.value)),
          filter.operator === "starts_with" ? "start" : "anywhere"
        )
        const not = filter.operator === "not_contains" ? "NOT " : ""
        return `${column} ${not}LIKE ${bind(pattern)}${flavor.likeEscape}`
      }
      case "ends_with":
        return `${column} LIKE ${bind(likePattern(filter.value, "end"))}${flavor.likeEscape}`
      case "like":
        return `${column} LIKE ${bind(filter.value)}${flavor.likeEscape}`
      case "ilike":
        return ilike(column, bind(filter.value), flavor)
      default:
        return `${column} ${filter.operator} ${bind(bindable(scalar(filter, filter.value)))}`
    }
  })
  return conditions.map((c) => `(${c})`).join(logic === "or" ? " OR " : " AND ")
}

const attempt = (build: () => BoundSql): BuildResult => {
  try {
    return { ok: true, value: build() }
  } catch (error) {
    if (error instanceof BuildError) return { ok: false, message: error.message }
    throw error
  }
}

/**
 * A value as SQL literal text: strings quoted with `''` (and, on MySQL, backslashes doubled, since its strings take
 * backslash escapes), numbers as digits, booleans as 1/0 as they are bound, null as NULL.
 */
export const sqlLiteral = (value: unknown, flavor: SqlFlavor): string => {
  if (value === null || value === undefined) return "NULL"
  if (typeof value === "boolean") return value ? "1" : "0"
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  const text = String(value)
  return `'${(flavor.backslashEscapes === true ? text.replace(/\\/g, "\\\\") : text).replace(/'/g, "''")}'`
}

const select = (
  table: string,
  known: ReadonlyArray<string>,
  query: GridQuery,
  bind: Bind,
  limit: number,
  flavor: SqlFlavor,
  paging: Bind
): string => {
  const columns = query.columns === undefined || query.columns.length === 0
    ? "*"
    : query.columns.map((c) => checkColumn(known, c, flavor)).join(", ")
  const where = whereClause(known, query.filters ?? [], query.logic ?? "and", bind, flavor)
  const order = (query.sort ?? []).map((s) =>
    `${checkColumn(known, s.column, flavor)} ${s.direction === "desc" ? "DESC" : "ASC"}`
  )
  const orderBy = order.length === 0 ? "" : ` ORDER BY ${order.join(", ")}`
  return `SELECT ${columns} FROM ${flavor.quote(table)}${where}${orderBy} LIMIT ${paging(limit)} OFFSET ${
    paging(query.offset ?? 0)
  }`
}

/** Fetches `limit + 1` rows so the caller can tell whether the page is truncated. */
export const buildBrowse = (
  table: string,
  known: ReadonlyArray<string>,
  query: GridQuery,
  placeholder: Placeholder,
  flavor: SqlFlavor = STANDARD_FLAVOR
): BuildResult =>
  attempt(() => {
    const params: Array<unknown> = []
    const bind: Bind = (value) => placeholder(params.push(value))
    const paging: Bind = (value) => (flavor.inlinePaging ? String(Math.trunc(value as number)) : bind(value))
    return { sql: select(table, known, query, bind, (query.limit ?? 500) + 1, flavor, paging), params }
  })

/**
 * D-87: the grid's page as the statement a person runs in the console — the same builder with every value
 * written as a literal and exactly `limit` rows, so running it gives the rows the grid shows.
 */
export const buildBrowseText = (
  table: string,
  known: ReadonlyArray<string>,
  query: GridQuery,
  flavor: SqlFlavor = STANDARD_FLAVOR
): BuildResult =>
  attempt(() => {
    const literal: Bind = (value) => sqlLiteral(value, flavor)
    return {
      sql: select(
        table,
        known,
        query,
        literal,
        query.limit ?? 500,
        flavor,
        (value) => String(Math.trunc(value as number))
      ),
      params: []
    }
  })

export const buildCount = (
  table: string,
  known: ReadonlyArray<string>,
  filters: ReadonlyArray<GridFilter>,
  logic: FilterLogic,
  placeholder: Placeholder,
  flavor: SqlFlavor = STANDARD_FLAVOR
): BuildResult =>
  attempt(() => {
    const params: Array<unknown> = []
    const where = whereClause(known, filters, logic, (value) => placeholder(params.push(value)), flavor)
    return { sql: `SELECT count(*) FROM ${flavor.quote(table)}${where}`, params }
  })
