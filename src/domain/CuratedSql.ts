import { Either } from "effect"
import { readingsFor, type SqlDialect, type SqlToken, tokenize } from "./SqlLexer.ts"

/** One `:name` in a curated tool's statement, where it stands in the text. */
export interface Placeholder {
  readonly name: string
  readonly start: number
  readonly end: number
}

const PLACEHOLDER = /^:([A-Za-z_][A-Za-z0-9_]*)$/

/** Parameter markers of the drivers themselves: in the text they would take the place of a bound value. */
const driverMarker = (text: string, dialect: SqlDialect): boolean =>
  text.startsWith("?") || (dialect === "postgresql" && /^\$[0-9]/.test(text)) ||
  (dialect === "sqlite" && /^[@$]./.test(text))

const placeholdersOf = (
  sql: string,
  tokens: ReadonlyArray<SqlToken>,
  offsets: ReadonlyArray<number>,
  dialect: SqlDialect
): Array<Placeholder> | string => {
  const found: Array<Placeholder> = []
  for (const [index, token] of tokens.entries()) {
    if (token.kind !== "other") continue
    if (driverMarker(token.text, dialect)) {
      return `${token.text} is a parameter marker of the driver; name each parameter :name instead`
    }
    const match = PLACEHOLDER.exec(token.text)
    if (match === null) continue
    const start = offsets[index]!
    // PostgreSQL's `value::type` lexes as ":" then ":type": a cast, not a parameter.
    if (start > 0 && sql[start - 1] === ":") continue
    found.push({ name: match[1]!, start, end: start + token.text.length })
  }
  return found
}

/**
 * The `:name` placeholders of a statement, found by the project's SQL lexer so that one inside a string, a quoted
 * identifier, a comment, a dollar-quoted body or a `::cast` is not a parameter. The text is read under every lexical
 * reading its dialect's servers may apply (server settings change what a comment or string is); a placeholder that
 * some reading does not see where the others do is refused, since the statement that runs would depend on the server.
 */
export const scanPlaceholders = (
  sql: string,
  dialect: SqlDialect
): Either.Either<ReadonlyArray<Placeholder>, string> => {
  const readings: Array<ReadonlyArray<Placeholder>> = []
  for (const reading of readingsFor(dialect)) {
    const offsets: Array<number> = []
    const found = placeholdersOf(sql, tokenize(sql, reading, offsets), offsets, dialect)
    if (typeof found === "string") return Either.left(found)
    readings.push(found)
  }
  const first = readings[0]!
  const key = (list: ReadonlyArray<Placeholder>) =>
    list.map((placeholder) => `${placeholder.name}@${placeholder.start}`).join(",")
  const disagreeing = readings.find((list) => key(list) !== key(first))
  if (disagreeing !== undefined) {
    const all = [...first, ...disagreeing]
    const unsure = all.find((placeholder) =>
      !first.some((other) => other.start === placeholder.start) ||
      !disagreeing.some((other) => other.start === placeholder.start)
    )
    return Either.left(
      `the placeholder :${
        unsure?.name ?? "?"
      } is inside a comment or string on some server settings and outside it on others; move it out of the comment or string`
    )
  }
  return Either.right(first)
}

/** The statement as the driver binds it, and the values in binding order. */
export interface BoundStatement {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

/**
 * Replaces each placeholder with the driver's own parameter marker — PostgreSQL `$n` (one per name), MySQL/MariaDB
 * and SQLite `?` (one value per occurrence) — and lists the values: they are bound by the driver, never written into
 * the text.
 */
export const bindPlaceholders = (
  sql: string,
  dialect: SqlDialect,
  placeholders: ReadonlyArray<Placeholder>,
  values: Readonly<Record<string, unknown>>
): BoundStatement => {
  const params: Array<unknown> = []
  const numbers = new Map<string, number>()
  let text = ""
  let at = 0
  for (const placeholder of placeholders) {
    text += sql.slice(at, placeholder.start)
    const value = values[placeholder.name] ?? null
    if (dialect === "postgresql") {
      let number = numbers.get(placeholder.name)
      if (number === undefined) {
        number = params.push(value)
        numbers.set(placeholder.name, number)
      }
      // `x:a` would become the identifier `x$1`: a space keeps the marker a token of its own.
      text += `${/[A-Za-z0-9_$]/.test(sql[placeholder.start - 1] ?? "") ? " " : ""}$${number}`
    } else {
      params.push(value)
      text += "?"
    }
    at = placeholder.end
  }
  return { sql: text + sql.slice(at), params }
}
