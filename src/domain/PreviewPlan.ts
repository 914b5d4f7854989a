import type { PreviewAction } from "./ApprovalPreview.ts"
import { readingsFor, type SqlDialect, type SqlToken, tokenize } from "./SqlLexer.ts"
import { isPunct, isWord, nameOf } from "./SqlVerdict.ts"

/** Rows shown before → after at most (D-69). */
export const PREVIEW_ROWS = 5

/** One part of a table name as written: a quoted part keeps its case, a bare one folds as the engine folds it. */
export interface NamePart {
  readonly text: string
  readonly quoted: boolean
}

/**
 * How a write is dry-run for its approval (D-69): which table it changes and how, the statement without
 * its closing `;` (so a `RETURNING` can follow), whether it already returns rows, and the functions it calls (a
 * PostgreSQL function that is not immutable or stable means no preview). Decided from the text alone; the driver
 * still asks the database about triggers, sequences and the functions.
 */
export type PreviewPlan =
  | {
    readonly _tag: "Run"
    readonly action: PreviewAction
    readonly table: ReadonlyArray<NamePart>
    /** The table as written, for "will change 3 rows in orders". */
    readonly display: string
    readonly body: string
    readonly returning: boolean
    readonly functions: ReadonlyArray<string>
    /** An UPDATE that sets a column to its DEFAULT (whose expression may call a function). */
    readonly setsDefault: boolean
    /** INSERT's explicit column list (lower-cased where bare), when it has one. */
    readonly insertColumns: ReadonlyArray<string> | undefined
  }
  | { readonly _tag: "NoPreview"; readonly reason: string }

const SCHEMA_VERBS = new Set([
  "CREATE",
  "ALTER",
  "DROP",
  "TRUNCATE",
  "RENAME",
  "COMMENT",
  "GRANT",
  "REVOKE",
  "REINDEX",
  "CLUSTER",
  "VACUUM",
  "ANALYZE",
  "REFRESH",
  "SECURITY"
])

const noPreview = (reason: string): PreviewPlan => ({ _tag: "NoPreview", reason })

/** The statement without a closing `;` and what follows it (comments, blanks), found with the engine's own reading. */
export const withoutClosingSemicolon = (sql: string, dialect: SqlDialect): string => {
  const reading = readingsFor(dialect)[0]!
  const tokens = tokenize(sql, reading)
  const last = tokens[tokens.length - 1]
  if (last === undefined || !isPunct(last, ";")) return sql.trimEnd()
  for (let at = sql.lastIndexOf(";"); at >= 0; at = sql.lastIndexOf(";", at - 1)) {
    if (
      tokenize(sql.slice(at + 1), reading).length === 0 &&
      tokenize(sql.slice(0, at), reading).length === tokens.length - 1
    ) {
      return withoutClosingSemicolon(sql.slice(0, at), dialect)
    }
  }
  return sql.trimEnd()
}

/** A dotted name starting at `start`: its parts and the index after it. */
const readName = (tokens: ReadonlyArray<SqlToken>, start: number): { parts: Array<NamePart>; next: number } => {
  const parts: Array<NamePart> = []
  let i = start
  for (let name = nameOf(tokens[i]); name !== undefined; name = nameOf(tokens[i])) {
    parts.push({ text: name, quoted: tokens[i]!.kind === "quoted" })
    i++
    if (!isPunct(tokens[i], ".")) break
    i++
  }
  return { parts, next: i }
}

const depthZero = (tokens: ReadonlyArray<SqlToken>, test: (token: SqlToken, index: number) => boolean): boolean => {
  let depth = 0
  return tokens.some((token, index) => {
    if (isPunct(token, "(")) depth++
    else if (isPunct(token, ")")) depth--
    return depth === 0 && test(token, index)
  })
}

/** Names called like functions (`name(`), except the INSERT target and its column list. */
const calledNames = (tokens: ReadonlyArray<SqlToken>, skip: ReadonlySet<number>): Array<string> => {
  const names = new Set<string>()
  tokens.forEach((token, index) => {
    if (skip.has(index) || !isPunct(tokens[index + 1], "(")) return
    if (token.kind === "word") names.add(token.text.toLowerCase())
    else if (token.kind === "quoted") names.add(token.text)
  })
  return [...names]
}

const MODIFIERS = [
  "OR",
  "ROLLBACK",
  "ABORT",
  "REPLACE",
  "FAIL",
  "IGNORE",
  "LOW_PRIORITY",
  "QUICK",
  "DELAYED",
  "HIGH_PRIORITY",
  "ONLY"
]

/** Decides whether and how a statement is previewed (D-69); the classifier has already tiered it. */
export const planPreview = (sql: string, dialect: SqlDialect): PreviewPlan => {
  const body = withoutClosingSemicolon(sql, dialect)
  const tokens = tokenize(body, readingsFor(dialect)[0]!)
  const lead = tokens[0]
  if (lead === undefined || lead.kind !== "word") {
    return noPreview("the statement does not start with a keyword dbdesk can preview")
  }
  const verb = lead.upper
  if (SCHEMA_VERBS.has(verb)) {
    return noPreview(`${verb} changes the schema or its settings, which dbdesk does not dry-run`)
  }
  if (verb !== "UPDATE" && verb !== "DELETE" && verb !== "INSERT" && verb !== "REPLACE") {
    return noPreview(`only UPDATE, DELETE and INSERT are dry-run; ${verb} may have effects a rollback cannot undo`)
  }
  let i = 1
  while (isWord(tokens[i], ...MODIFIERS)) i++
  if (verb === "DELETE" || verb === "INSERT" || verb === "REPLACE") {
    if (!isWord(tokens[i], verb === "DELETE" ? "FROM" : "INTO")) {
      return noPreview(
        verb === "DELETE" ? "a DELETE naming several tables is not dry-run" : `this form of ${verb} is not dry-run`
      )
    }
    i++
    while (isWord(tokens[i], "ONLY")) i++
  }
  const { parts, next } = readName(tokens, i)
  if (parts.length === 0) return noPreview("dbdesk could not tell which table the statement changes")
  const rest = tokens.slice(next)
  if (
    verb === "UPDATE" && dialect === "mysql" &&
    depthZero(rest, (token, index) => isPunct(token, ",") && index < rest.findIndex((t) => isWord(t, "SET")))
  ) {
    return noPreview("an UPDATE of several tables is not dry-run")
  }
  if (
    verb === "UPDATE" && dialect === "mysql" &&
    rest.some((token, index) => isWord(token, "JOIN") && index < rest.findIndex((t) => isWord(t, "SET")))
  ) {
    return noPreview("an UPDATE of several tables is not dry-run")
  }
  const skip = new Set<number>([next - 1])
  let insertColumns: Array<string> | undefined
  if (
    verb !== "UPDATE" && verb !== "DELETE" && isPunct(tokens[next], "(") &&
    !isWord(tokens[next + 1], "SELECT", "WITH", "VALUES")
  ) {
    insertColumns = []
    for (let j = next + 1; j < tokens.length && !isPunct(tokens[j], ")"); j++) {
      const token = tokens[j]!
      if (token.kind === "word") insertColumns.push(dialect === "postgresql" ? token.text.toLowerCase() : token.text)
      else if (token.kind === "quoted") insertColumns.push(token.text)
    }
  }
  return {
    _tag: "Run",
    action: verb === "UPDATE" ? "change" : verb === "DELETE" ? "delete" : "insert",
    table: parts,
    display: parts.map((part) => part.text).join("."),
    body,
    returning: depthZero(tokens, (token) => isWord(token, "RETURNING")),
    functions: calledNames(tokens, skip),
    setsDefault: verb === "UPDATE" && tokens.some((token) => isWord(token, "DEFAULT")),
    insertColumns
  }
}

/** The table name quoted for the engine: bare parts fold to lower case on PostgreSQL, as the engine folds them. */
export const quotedTable = (parts: ReadonlyArray<NamePart>, dialect: SqlDialect): string =>
  parts.map((part) => {
    const text = !part.quoted && dialect === "postgresql" ? part.text.toLowerCase() : part.text
    return dialect === "mysql" ? `\`${text.replace(/`/g, "``")}\`` : `"${text.replace(/"/g, "\"\"")}"`
  }).join(".")
