import { Schema } from "effect"
import * as K from "./SqlKeywords.ts"
import { type SqlDialect, splitStatements, type SqlToken, tokenizeEveryReading } from "./SqlLexer.ts"
import { classifyMysqlLeading, type Nested, scanMysql } from "./SqlMysql.ts"
import {
  closeOf,
  destructive,
  filesOrCode,
  isPunct,
  isWord,
  nameOf,
  SAFE,
  scanFilesOrCode,
  scanRead,
  type StatementTier as Tier,
  type Verdict,
  worse,
  write
} from "./SqlVerdict.ts"

export type { SqlDialect } from "./SqlLexer.ts"
export const StatementTier: Schema.Schema<Tier> = Schema.Literal("safe", "write", "destructive")
export type StatementTier = Tier

/**
 * The verdict on a SQL text (D-22, fail closed): the worst tier over every statement and
 * every plausible lexical reading; `reachesFilesOrCode` refuses it for every external caller whatever the
 * tier; `approvalHint` says in plain words what a `DELETE`/`UPDATE` without `WHERE` does.
 */
export const Classification = Schema.Struct({
  tier: StatementTier,
  reachesFilesOrCode: Schema.Boolean,
  statementCount: Schema.Int,
  reason: Schema.optionalWith(Schema.String, { exact: true }),
  approvalHint: Schema.optionalWith(Schema.String, { exact: true })
})
export type Classification = typeof Classification.Type

const hasTopLevelWhere = (tokens: ReadonlyArray<SqlToken>): boolean => {
  let depth = 0
  return tokens.some((token) => {
    if (isPunct(token, "(")) depth++
    else if (isPunct(token, ")")) depth--
    return depth === 0 && isWord(token, "WHERE")
  })
}

/** The (possibly dotted) table name a DELETE/UPDATE targets, as written. */
const targetTable = (tokens: ReadonlyArray<SqlToken>): string => {
  let i = 1
  while (isWord(tokens[i], "FROM", "ONLY", "OR", "ROLLBACK", "ABORT", "REPLACE", "FAIL", "IGNORE")) i++
  const parts: Array<string> = []
  for (let name = nameOf(tokens[i]); name !== undefined; name = nameOf(tokens[i])) {
    parts.push(name)
    if (!isPunct(tokens[i + 1], ".")) break
    i += 2
  }
  return parts.length > 0 ? parts.join(".") : "the table"
}

const classifyDeleteOrUpdate = (tokens: ReadonlyArray<SqlToken>, verb: "DELETE" | "UPDATE"): Verdict => {
  const base = write(`${verb} changes data`)
  if (hasTopLevelWhere(tokens)) return base
  const table = targetTable(tokens)
  return { ...base, hint: verb === "DELETE" ? `deletes every row of ${table}` : `updates every row of ${table}` }
}

const classifyPragma = (tokens: ReadonlyArray<SqlToken>, dialect: SqlDialect): Verdict => {
  if (dialect !== "sqlite") return write("PRAGMA is not a PostgreSQL statement")
  const dotted = isPunct(tokens[2], ".")
  const name = nameOf(tokens[dotted ? 3 : 1])?.toLowerCase()
  const rest = tokens.slice(dotted ? 4 : 2)
  if (name === undefined) return write("unreadable PRAGMA")
  if (rest.length === 0 && K.SQLITE_READ_PRAGMAS.has(name)) return SAFE
  const argumentOnly = isPunct(rest[0], "(") && closeOf(rest, 0) === rest.length
  if (argumentOnly && K.SQLITE_READ_PRAGMAS_WITH_ARGUMENT.has(name)) return SAFE
  return write(rest.length > 0 ? `PRAGMA ${name} sets a value` : `PRAGMA ${name} is not a known read`)
}

const EXPLAIN_WORDS = ["ANALYZE", "ANALYSE", "VERBOSE", "QUERY", "PLAN"]
const STATEMENT_START = ["SELECT", "WITH", "VALUES", "TABLE"]

/** EXPLAIN is classified by its inner statement, whether or not ANALYZE runs it. */
const classifyExplain = (tokens: ReadonlyArray<SqlToken>, dialect: SqlDialect): Verdict => {
  let i = 1
  for (;;) {
    if (isWord(tokens[i], ...EXPLAIN_WORDS)) i++
    else if (isPunct(tokens[i], "(") && tokens[i + 1]?.kind === "word" && !isWord(tokens[i + 1], ...STATEMENT_START)) {
      i = closeOf(tokens, i)
    } else break
  }
  const inner = tokens.slice(i)
  return inner.length === 0 ? write("EXPLAIN without a statement") : classifyTokens(inner, dialect)
}

const MAIN_STATEMENT = ["SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "VALUES", "TABLE", "REPLACE", "WITH"]

/** WITH: every CTE body and the main statement are classified as statements of their own. */
const classifyWith = (tokens: ReadonlyArray<SqlToken>, dialect: SqlDialect): Verdict => {
  const unreadable = worse(scanRead(tokens), write("unreadable WITH clause"))
  let verdict = SAFE
  let i = isWord(tokens[1], "RECURSIVE") ? 2 : 1
  for (;;) {
    if (nameOf(tokens[i]) === undefined) return unreadable
    i++
    if (isPunct(tokens[i], "(")) i = closeOf(tokens, i)
    if (!isWord(tokens[i], "AS")) return unreadable
    i++
    while (isWord(tokens[i], "NOT", "MATERIALIZED")) i++
    if (!isPunct(tokens[i], "(")) return unreadable
    const end = closeOf(tokens, i)
    const body = tokens.slice(i + 1, end - 1)
    verdict = worse(verdict, body.length === 0 ? write("empty WITH body") : classifyTokens(body, dialect))
    i = end
    if (isWord(tokens[i], "SEARCH", "CYCLE")) {
      while (i < tokens.length && !isPunct(tokens[i], ",") && !isWord(tokens[i], ...MAIN_STATEMENT)) i++
    }
    if (isPunct(tokens[i], ",")) {
      i++
      continue
    }
    const main = tokens.slice(i)
    return worse(verdict, main.length === 0 ? write("WITH without a statement") : classifyTokens(main, dialect))
  }
}

const classifyLeading = (tokens: ReadonlyArray<SqlToken>, dialect: SqlDialect): Verdict => {
  let start = 0
  while (isPunct(tokens[start], "(")) start++
  const lead = tokens[start]
  if (lead === undefined || lead.kind !== "word") return write("does not start with a known keyword")
  const keyword = lead.upper
  if (start > 0) return K.READ_LEADING.has(keyword) ? scanRead(tokens) : write(`${keyword} is not a read`)
  if (keyword === "WITH") return classifyWith(tokens, dialect)
  if (keyword === "EXPLAIN") return classifyExplain(tokens, dialect)
  if (keyword === "PRAGMA") return classifyPragma(tokens, dialect)
  if (K.READ_LEADING.has(keyword)) return scanRead(tokens)
  if (K.DESTRUCTIVE_LEADING.has(keyword)) return destructive(`${keyword} removes data`)
  if (keyword === "ALTER") {
    return tokens.some((t) => isWord(t, "DROP"))
      ? destructive("ALTER … DROP removes data")
      : write("ALTER changes the schema")
  }
  if (keyword === "DELETE" || keyword === "UPDATE") return classifyDeleteOrUpdate(tokens, keyword)
  if (K.FILES_OR_CODE_LEADING.has(keyword)) return filesOrCode(`${keyword} reaches files or runs code`)
  if (keyword === "VACUUM" && tokens.some((t) => isWord(t, "INTO"))) return filesOrCode("VACUUM INTO writes a file")
  return write(`${keyword} may change data`)
}

/** MySQL's own rules (D-75), with the classifier itself for the statements they contain. */
const mysqlNested: Nested = {
  tokens: (tokens) => classifyTokens(tokens, "mysql"),
  text: (sql) => verdictOfText(sql, "mysql").verdict
}

const classifyTokens = (tokens: ReadonlyArray<SqlToken>, dialect: SqlDialect): Verdict =>
  dialect === "mysql"
    ? worse(
      worse(classifyMysqlLeading(tokens, mysqlNested) ?? classifyLeading(tokens, dialect), scanFilesOrCode(tokens)),
      scanMysql(tokens)
    )
    : worse(classifyLeading(tokens, dialect), scanFilesOrCode(tokens))

/** The worst verdict over every statement under every plausible lexical reading, and the most statements any reading saw. */
const verdictOfText = (
  sql: string,
  dialect: SqlDialect
): { readonly verdict: Verdict; readonly statementCount: number } => {
  let verdict: Verdict | undefined
  let statementCount = 0
  for (const tokens of tokenizeEveryReading(sql, dialect)) {
    const statements = splitStatements(tokens, dialect)
    statementCount = Math.max(statementCount, statements.length)
    for (const statement of statements) {
      const next = classifyTokens(statement, dialect)
      verdict = verdict === undefined ? next : worse(verdict, next)
    }
  }
  return { verdict: verdict ?? write("the text holds no statement"), statementCount }
}

/** Classifies a SQL text (D-22): every statement under every plausible lexical reading. */
export const classifyStatement = (sql: string, dialect: SqlDialect): Classification => {
  const { verdict: final, statementCount } = verdictOfText(sql, dialect)
  const fileTier = final.files && final.tier === "safe" ? "write" : final.tier
  return {
    tier: fileTier,
    reachesFilesOrCode: final.files,
    statementCount,
    ...(final.reason === undefined ? {} : { reason: final.reason }),
    ...(final.hint === undefined ? {} : { approvalHint: final.hint })
  }
}

/** The "<what>" of the approval message "Allow <what> on '<connection>'?" (D-26). */
export const describeForApproval = (classification: Classification): string =>
  classification.approvalHint ??
    (classification.tier === "destructive"
      ? "a destructive statement"
      : classification.tier === "write"
      ? "a statement that changes data"
      : "a query")
