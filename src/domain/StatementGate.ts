import { type Refusal, secretRefusal, textRefusal } from "./AnswerGate.ts"
import { type GuardPolicy, guardsAnything } from "./ColumnGuard.ts"
import { SECRET_CATALOGS, type SecretCatalog, SECRET_WORDS, TEXT_RUNNING_FUNCTIONS } from "./SecretCatalogs.ts"
import { type SqlDialect, type SqlToken, tokenizeEveryReading } from "./SqlLexer.ts"
import { decodedText, isPunct, isWord } from "./SqlVerdict.ts"

/**
 * D-64: the check of a statement's text before it runs (every plausible lexical reading, as the classifier does).
 * It refuses a statement that names a secret catalog, a credential column or a function that runs SQL text, and
 * gathers what the driver needs to decide on the answer: the names the statement may read relations or call routines
 * by, whether it has a set operation, and the names it defines itself (CTEs, derived tables).
 */
export interface StatementFacts {
  readonly names: ReadonlyArray<string>
  readonly compound: boolean
  readonly local: ReadonlyArray<string>
}

export type GateVerdict = { readonly kind: "pass"; readonly facts: StatementFacts } | {
  readonly kind: "refuse"
  readonly refusal: Refusal
}

const SET_OPERATIONS = ["UNION", "INTERSECT", "EXCEPT", "MINUS"]

/**
 * A MySQL catalog is named qualified (`mysql.user`, `information_schema.PROCESSLIST`, in any quoting) or unqualified
 * while the current database is its own.
 */
const mysqlCatalogAt = (
  catalog: SecretCatalog,
  tokens: ReadonlyArray<SqlToken>,
  i: number,
  database: string | undefined
): boolean => {
  const qualifier = isPunct(tokens[i - 1], ".") && tokens[i - 2] !== undefined
    ? decodedText(tokens, i - 2).toLowerCase()
    : undefined
  return (qualifier ?? database?.toLowerCase()) === catalog.schema
}

/** A MySQL catalog named inside a string (text PREPAREd or EXECUTEd): `db.name` with any quoting around the dot. */
const MYSQL_IN_TEXT = SECRET_CATALOGS.mysql.map((catalog) =>
  [new RegExp(`${catalog.schema}\\W{0,3}\\.\\W{0,3}${catalog.name.replace(/\$/g, "\\$")}\\b`, "i"), catalog] as const
)

/** MySQL/MariaDB statements that print a secret: SHOW GRANTS / CREATE USER (hashes), the process list and InnoDB's status (statement texts). */
const showsSecret = (tokens: ReadonlyArray<SqlToken>, i: number): readonly [string, SecretCatalog] | undefined => {
  if (!isWord(tokens[i], "SHOW")) return undefined
  const next = isWord(tokens[i + 1], "FULL") ? i + 2 : i + 1
  const hashes = {
    schema: "mysql",
    name: "user",
    holds:
      "account password hashes, which these statements print; information_schema.USER_PRIVILEGES lists grants without them"
  }
  if (isWord(tokens[i + 1], "GRANTS")) return ["SHOW GRANTS", hashes]
  if (isWord(tokens[i + 1], "CREATE") && isWord(tokens[i + 2], "USER")) return ["SHOW CREATE USER", hashes]
  const statements = SECRET_CATALOGS.mysql.find((catalog) =>
    catalog.schema === "information_schema" && catalog.name === "processlist"
  )!
  if (isWord(tokens[next], "PROCESSLIST")) return ["SHOW PROCESSLIST", statements]
  if (isWord(tokens[i + 1], "ENGINE") && isWord(tokens[i + 3], "STATUS")) return ["SHOW ENGINE … STATUS", statements]
  return undefined
}

const refuseSecret = (
  dialect: SqlDialect,
  tokens: ReadonlyArray<SqlToken>,
  i: number,
  database: string | undefined
): Refusal | undefined => {
  const token = tokens[i]!
  const text = decodedText(tokens, i).toLowerCase()
  const catalogs = SECRET_CATALOGS[dialect]
  const words = SECRET_WORDS[dialect]
  if (token.kind === "string") {
    const named = catalogs.find((catalog) => dialect === "postgresql" && text.includes(catalog.name))
    if (named !== undefined) return secretRefusal(named)
    const word = words.find(([name]) => text.includes(name))
    if (word !== undefined) return secretRefusal(word[1], word[0])
    const inText = dialect === "mysql" ? MYSQL_IN_TEXT.find(([pattern]) => pattern.test(text))?.[1] : undefined
    return inText === undefined ? undefined : secretRefusal(inText)
  }
  if (token.kind !== "word" && token.kind !== "quoted") return undefined
  const catalog = catalogs.find((candidate) =>
    candidate.name === text && (dialect !== "mysql" || mysqlCatalogAt(candidate, tokens, i, database))
  )
  if (catalog !== undefined) return secretRefusal(catalog)
  const word = words.find(([name]) => name === text)
  if (word !== undefined) return secretRefusal(word[1], word[0])
  const shown = dialect === "mysql" ? showsSecret(tokens, i) : undefined
  return shown === undefined ? undefined : secretRefusal(shown[1], shown[0])
}

/** Names a CTE or derived table gets in the statement: `name AS (`, `name (cols) AS (`, `) [AS] name`. */
const localName = (tokens: ReadonlyArray<SqlToken>, i: number): boolean => {
  if (isPunct(tokens[i + 1], "(") || isWord(tokens[i + 1], "AS") && isPunct(tokens[i + 2], "(")) return true
  return isPunct(tokens[i - 1], ")") || (isWord(tokens[i - 1], "AS") && isPunct(tokens[i - 2], ")"))
}

/** D-64: the statement-level gate; `database` is the current database (MySQL's unqualified names). */
export const statementGate = (
  sql: string,
  dialect: SqlDialect,
  policy: GuardPolicy,
  database?: string
): GateVerdict => {
  const names = new Set<string>()
  const local = new Set<string>()
  let compound = false
  if (!guardsAnything(policy)) return { kind: "pass", facts: { names: [], compound, local: [] } }
  for (const tokens of tokenizeEveryReading(sql, dialect)) {
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!
      if (policy.secretCatalogs === "closed") {
        const refusal = refuseSecret(dialect, tokens, i, database)
        if (refusal !== undefined) return { kind: "refuse", refusal }
      }
      if (token.kind !== "word" && token.kind !== "quoted") continue
      const text = decodedText(tokens, i)
      if (isPunct(tokens[i + 1], "(") && TEXT_RUNNING_FUNCTIONS[dialect].has(text.toLowerCase())) {
        return { kind: "refuse", refusal: textRefusal(`${text.toLowerCase()}() runs SQL text`, policy) }
      }
      if (isWord(token, ...SET_OPERATIONS)) compound = true
      // As written too: MySQL table names are case-sensitive on most systems (and PostgreSQL's quoted names are).
      names.add(text.toLowerCase())
      names.add(text)
      if (localName(tokens, i)) local.add(text.toLowerCase())
    }
  }
  return { kind: "pass", facts: { names: [...names], compound, local: [...local] } }
}
