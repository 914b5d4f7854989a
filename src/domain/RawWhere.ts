import { classifyStatement } from "./StatementClassifier.ts"
import { statementGate } from "./StatementGate.ts"
import { type SqlDialect, type SqlToken, tokenizeEveryReading } from "./SqlLexer.ts"

/** Comment openers and the statement separator: outside strings and quoted names they could end the WHERE early. */
const ESCAPES = /--|\/\*|\*\/|#|;/

/** The text of a condition with its strings and quoted names taken out, so what is left is code. */
const codeOf = (raw: string, tokens: ReadonlyArray<SqlToken>): string =>
  tokens.reduce(
    (rest, token) => (token.kind === "string" || token.kind === "quoted" ? rest.replace(token.text, " ") : rest),
    raw
  )

/** Parentheses that close one the condition did not open would escape the parentheses it is wrapped in. */
const balanced = (tokens: ReadonlyArray<SqlToken>): boolean => {
  let depth = 0
  for (const token of tokens) {
    if (token.kind === "punct" && token.text === "(") depth++
    else if (token.kind === "punct" && token.text === ")" && --depth < 0) return false
  }
  return depth === 0
}

/**
 * A raw WHERE condition typed into the grid's filter bar (D-85): checked as the whole statement it becomes
 * (`SELECT * FROM table WHERE (condition)`), by the console's classifier and the statement gate with secret catalogs
 * closed. It may only read: one statement, no write, no files or code, no secret catalog; and it may not leave its
 * parentheses (unbalanced `)`, a comment opener or `;` outside strings, under every lexical reading of the dialect).
 * Answers the refusal in plain words, or undefined when the condition may run.
 */
export const rawWhereRefusal = (raw: string, dialect: SqlDialect): string | undefined => {
  for (const tokens of tokenizeEveryReading(raw, dialect)) {
    if (ESCAPES.test(codeOf(raw, tokens))) {
      return "A filter condition cannot hold comments (--, /* */, #) or a semicolon outside quotes."
    }
    if (!balanced(tokens)) {
      return "The parentheses of this condition do not match; a filter condition cannot close more than it opens."
    }
  }
  const statement = `SELECT * FROM t WHERE (${raw}\n)`
  const verdict = classifyStatement(statement, dialect)
  if (verdict.statementCount !== 1) return "A filter condition must stay one condition, not a further statement."
  if (verdict.reachesFilesOrCode) {
    return `This condition reads or writes files or runs code on the database server${
      verdict.reason === undefined ? "" : ` (${verdict.reason})`
    }, which a filter may not do.`
  }
  if (verdict.tier !== "safe") {
    return `A filter condition may only read data; this one changes data${
      verdict.reason === undefined ? "" : ` (${verdict.reason})`
    }.`
  }
  const gate = statementGate(statement, dialect, { rules: [], secretCatalogs: "closed" })
  if (gate.kind === "refuse") {
    return gate.refusal.gate === "secret_catalog"
      ? `This condition reads ${gate.refusal.rule}, a secret catalog (it holds passwords or other credentials); a filter may not read it.`
      : "This condition runs SQL text, which a filter may not do."
  }
  return undefined
}
