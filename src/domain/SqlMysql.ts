import * as K from "./SqlKeywords.ts"
import type { SqlToken } from "./SqlLexer.ts"
import { destructive, filesOrCode, isPunct, isWord, SAFE, scanRead, type Verdict, worse, write } from "./SqlVerdict.ts"

/**
 * The MySQL/MariaDB part of the statement classifier (D-23), kept apart from the shared rules: leading
 * keywords MySQL adds (SET GLOBAL, KILL, PREPARE, EXECUTE IMMEDIATE, HANDLER…), dynamic SQL classified by its text,
 * and scans for the functions and clauses that write from inside a read.
 */
export interface Nested {
  /** Classifies one statement's tokens as the classifier does. */
  readonly tokens: (tokens: ReadonlyArray<SqlToken>) => Verdict
  /** Classifies a SQL text (every statement, every reading), for the text of PREPARE and EXECUTE IMMEDIATE. */
  readonly text: (sql: string) => Verdict
}

const STATEMENT_START = ["SELECT", "WITH", "TABLE", "VALUES", "INSERT", "UPDATE", "DELETE", "REPLACE"]

/** The text of adjacent string literals (MySQL concatenates 'DR' 'OP'), or undefined when anything else follows. */
const literalText = (tokens: ReadonlyArray<SqlToken>): string | undefined => {
  if (tokens.length === 0 || tokens.some((token) => token.kind !== "string")) return undefined
  return tokens.map((token) => token.text).join("")
}

/** PREPARE … FROM and EXECUTE IMMEDIATE run SQL text: judged by that text, or destructive when it cannot be read. */
const dynamicSql = (rest: ReadonlyArray<SqlToken>, what: string, nested: Nested): Verdict => {
  const using = rest.findIndex((token) => isWord(token, "USING"))
  const text = literalText(using === -1 ? rest : rest.slice(0, using))
  if (text === undefined) return destructive(`${what} runs SQL text dbdesk cannot read before it runs`)
  return worse(write(`${what} runs SQL text`), nested.text(text))
}

/** EXPLAIN/DESCRIBE/DESC: by the statement explained (EXPLAIN ANALYZE runs it); a table description only reads. */
const explained = (tokens: ReadonlyArray<SqlToken>, nested: Nested): Verdict => {
  let i = 1
  for (;;) {
    if (isWord(tokens[i], ...K.MYSQL_EXPLAIN_OPTIONS)) i++
    else if (isWord(tokens[i], "FORMAT") && isPunct(tokens[i + 1], "=")) i += 3
    else break
  }
  if (isWord(tokens[i], "FOR") && isWord(tokens[i + 1], "CONNECTION")) return SAFE
  const inner = tokens.slice(i)
  if (isPunct(inner[0], "(") || isWord(inner[0], ...STATEMENT_START)) return nested.tokens(inner)
  return scanRead(tokens)
}

const setStatement = (tokens: ReadonlyArray<SqlToken>, nested: Nested): Verdict => {
  const global = tokens.find((token) =>
    (token.kind === "word" || token.kind === "other") && K.MYSQL_GLOBAL_SCOPES.has(token.text.toUpperCase())
  )
  if (global !== undefined) {
    return filesOrCode("SET GLOBAL/PERSIST changes the server's configuration (a log file can be pointed anywhere)")
  }
  if (isWord(tokens[1], "STATEMENT")) {
    const forAt = tokens.findIndex((token, i) => i > 1 && isWord(token, "FOR"))
    const inner = forAt === -1 ? [] : tokens.slice(forAt + 1)
    return worse(
      write("SET STATEMENT changes settings for a statement"),
      inner.length === 0 ? write("SET STATEMENT without a statement") : nested.tokens(inner)
    )
  }
  return write("SET changes session settings")
}

/** A verdict for the leading keywords MySQL adds or reads differently; undefined leaves the shared rules to judge. */
export const classifyMysqlLeading = (tokens: ReadonlyArray<SqlToken>, nested: Nested): Verdict | undefined => {
  const lead = tokens[0]
  if (lead === undefined || lead.kind !== "word") return undefined
  const keyword = lead.upper
  const refused = K.MYSQL_FILES_OR_CODE_LEADING.get(keyword)
  if (refused !== undefined) return filesOrCode(refused)
  switch (keyword) {
    case "SET":
      return setStatement(tokens, nested)
    case "PREPARE": {
      const from = tokens.findIndex((token) => isWord(token, "FROM"))
      return from === -1 ? write("PREPARE without FROM") : dynamicSql(tokens.slice(from + 1), "PREPARE", nested)
    }
    case "EXECUTE":
      return isWord(tokens[1], "IMMEDIATE")
        ? dynamicSql(tokens.slice(2), "EXECUTE IMMEDIATE", nested)
        : write("EXECUTE runs a prepared statement")
    case "DEALLOCATE":
      return write("DEALLOCATE PREPARE drops a prepared statement")
    case "DROP":
      return isWord(tokens[1], "PREPARE") ? write("DROP PREPARE drops a prepared statement") : undefined
    case "EXPLAIN":
    case "DESCRIBE":
    case "DESC":
      return explained(tokens, nested)
    case "SHOW":
      return SAFE // every SHOW only reads; functions in a SHOW … WHERE are caught by scanMysql
  }
  const held = K.MYSQL_WRITE_LEADING.get(keyword)
  return held === undefined ? undefined : write(held)
}

/** Side effects anywhere in a MySQL statement: lock and sequence functions, UDFs that run programs, SONAME, share locks. */
export const scanMysql = (tokens: ReadonlyArray<SqlToken>): Verdict => {
  let verdict = SAFE
  tokens.forEach((token, i) => {
    if (token.kind !== "word" && token.kind !== "quoted") return
    const name = token.text.toLowerCase()
    const called = isPunct(tokens[i + 1], "(")
    if (called && K.MYSQL_FILES_OR_CODE_FUNCTIONS.has(name)) {
      verdict = worse(verdict, filesOrCode(`calls ${name}, which runs programs on the server`))
    } else if (called && K.MYSQL_WRITE_FUNCTIONS.has(name)) {
      verdict = worse(verdict, write(`calls ${name}, which has side effects`))
    } else if (isWord(token, "SONAME")) {
      verdict = worse(verdict, filesOrCode("loads a shared library into the server (SONAME)"))
    } else if (isWord(token, "NEXT") && isWord(tokens[i + 1], "VALUE") && isWord(tokens[i + 2], "FOR")) {
      verdict = worse(verdict, write("NEXT VALUE FOR advances a sequence"))
    } else if (isWord(token, "LOCK") && isWord(tokens[i + 1], "IN")) {
      verdict = worse(verdict, write("locks rows (LOCK IN SHARE MODE)"))
    }
  })
  return verdict
}
