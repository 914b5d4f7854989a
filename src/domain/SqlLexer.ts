/**
 * A small SQL lexer used by the statement classifier (D-22). It knows just enough of
 * the SQLite, PostgreSQL and MySQL/MariaDB lexical rules to tell code from comments, strings and quoted
 * identifiers, and it can read the same text under several "lexical readings" so the classifier can take the worst.
 */
export type SqlDialect = "sqlite" | "postgresql" | "mysql"

export type SqlToken =
  | { readonly kind: "word"; readonly upper: string; readonly text: string }
  | { readonly kind: "quoted"; readonly text: string }
  | { readonly kind: "string"; readonly text: string }
  | { readonly kind: "punct"; readonly text: string }
  | { readonly kind: "other"; readonly text: string }

export interface LexicalReading {
  readonly nestedComments: boolean
  /** backslash escapes inside '...' (PostgreSQL with standard_conforming_strings off) */
  readonly backslashEscapes: boolean
  /** PostgreSQL E'...' strings */
  readonly escapeStrings: boolean
  /** PostgreSQL $tag$...$tag$ strings */
  readonly dollarQuotes: boolean
  /** SQLite [identifier] and `identifier` */
  readonly bracketIdentifiers: boolean
  /** MySQL rules (D-75): `#` comments, `--` only before a space, `identifier`, "…" as a string unless ANSI_QUOTES */
  readonly mysql?: MysqlReading
}

export interface MysqlReading {
  /** `/*! … *\/`, `/*!NNNNN … *\/` and `/*M! … *\/` are code (the server runs them) rather than comments. */
  readonly executableComments: boolean
  /** "…" is an identifier (sql_mode ANSI_QUOTES) rather than a string. */
  readonly ansiQuotes: boolean
}

/** The readings an engine of the dialect might plausibly apply; the first is the engine's own. */
export const readingsFor = (dialect: SqlDialect): ReadonlyArray<LexicalReading> =>
  dialect === "mysql" ? MYSQL_READINGS : dialect === "sqlite" ? SQLITE_READINGS : POSTGRESQL_READINGS

const SQLITE_READINGS: ReadonlyArray<LexicalReading> = [
  {
    nestedComments: false,
    backslashEscapes: false,
    escapeStrings: false,
    dollarQuotes: false,
    bracketIdentifiers: true
  },
  {
    nestedComments: true,
    backslashEscapes: false,
    escapeStrings: false,
    dollarQuotes: false,
    bracketIdentifiers: true
  },
  {
    nestedComments: false,
    backslashEscapes: false,
    escapeStrings: false,
    dollarQuotes: false,
    bracketIdentifiers: false
  }
]

const POSTGRESQL_READINGS: ReadonlyArray<LexicalReading> = [
  { nestedComments: true, backslashEscapes: false, escapeStrings: true, dollarQuotes: true, bracketIdentifiers: false },
  { nestedComments: true, backslashEscapes: true, escapeStrings: true, dollarQuotes: true, bracketIdentifiers: false },
  { nestedComments: false, backslashEscapes: false, escapeStrings: true, dollarQuotes: true, bracketIdentifiers: false }
]

/**
 * MySQL/MariaDB (D-75): the engine's own reading runs executable comments and takes backslash escapes; a server
 * older than a comment's version (or MySQL for `/*M!`) treats it as a comment, and sql_mode may set
 * NO_BACKSLASH_ESCAPES or ANSI_QUOTES: each of those is a reading of its own.
 */
const MYSQL_READINGS: ReadonlyArray<LexicalReading> = [true, false].flatMap((executableComments) =>
  [true, false].flatMap((backslashEscapes) =>
    [false, true].map((ansiQuotes) => ({
      nestedComments: false,
      backslashEscapes,
      escapeStrings: false,
      dollarQuotes: false,
      bracketIdentifiers: false,
      mysql: { executableComments, ansiQuotes }
    }))
  )
)

const isWordStart = (c: string): boolean => /[A-Za-z_]/.test(c) || c.charCodeAt(0) > 127
const isWordPart = (c: string): boolean => /[A-Za-z0-9_$]/.test(c) || c.charCodeAt(0) > 127

/** Reads a quoted run starting after the opening quote; a doubled closing quote is an escaped quote. */
const readQuoted = (sql: string, start: number, close: string, backslash: boolean): [string, number] => {
  let i = start
  let text = ""
  while (i < sql.length) {
    const c = sql[i]!
    if (backslash && c === "\\" && i + 1 < sql.length) {
      text += sql[i + 1]
      i += 2
    } else if (c === close) {
      if (sql[i + 1] === close && close !== "]") {
        text += close
        i += 2
      } else {
        return [text, i + 1]
      }
    } else {
      text += c
      i++
    }
  }
  return [text, i] // unterminated: the rest of the text belongs to it
}

const skipBlockComment = (sql: string, start: number, nested: boolean): number => {
  let depth = 1
  let i = start
  while (i < sql.length && depth > 0) {
    if (sql.startsWith("*/", i)) {
      depth--
      i += 2
    } else if (nested && sql.startsWith("/*", i)) {
      depth++
      i += 2
    } else {
      i++
    }
  }
  return i
}

/** MySQL: `--` starts a comment only before whitespace, a control character or the end of the text. */
const isMysqlDashComment = (sql: string, i: number): boolean => {
  if (!sql.startsWith("--", i)) return false
  const next = sql.charCodeAt(i + 2)
  return Number.isNaN(next) || next <= 32
}

/** The length of an executable comment's opening (`/*!`, `/*!80027`, `/*M!100500`), or 0. */
const executableOpening = (sql: string, i: number): number => {
  const match = /^\/\*(M?!)[0-9]{0,6}/.exec(sql.slice(i, i + 11))
  return match === null ? 0 : match[0].length
}

/** `offsets`, when given, receives each token's start in `sql` (the curated tools' placeholder scanner). */
export const tokenize = (sql: string, reading: LexicalReading, offsets?: Array<number>): Array<SqlToken> => {
  const tokens: Array<SqlToken> = []
  const mysql = reading.mysql
  /** Inside an executable comment whose text is code: its closing `*\/` ends it. */
  let inExecutable = false
  let i = 0
  while (i < sql.length) {
    const c = sql[i]!
    // Overwritten until a token is pushed: the entry of each token is where its iteration began.
    if (offsets !== undefined) offsets[tokens.length] = i
    if (/\s/.test(c)) {
      i++
    } else if (mysql !== undefined && inExecutable && sql.startsWith("*/", i)) {
      inExecutable = false
      i += 2
    } else if (mysql !== undefined && mysql.executableComments && executableOpening(sql, i) > 0) {
      // A second opening inside one is skipped too: the first closing ends both (measured on MariaDB 10.11).
      inExecutable = true
      i += executableOpening(sql, i)
    } else if (mysql !== undefined && (c === "#" || isMysqlDashComment(sql, i))) {
      const end = sql.indexOf("\n", i)
      i = end === -1 ? sql.length : end + 1
    } else if (mysql !== undefined && sql.startsWith("--", i)) {
      tokens.push({ kind: "punct", text: "-" })
      i++
    } else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i)
      i = end === -1 ? sql.length : end + 1
    } else if (sql.startsWith("/*", i)) {
      i = skipBlockComment(sql, i + 2, reading.nestedComments)
    } else if (c === "'") {
      const [text, next] = readQuoted(sql, i + 1, "'", reading.backslashEscapes)
      tokens.push({ kind: "string", text })
      i = next
    } else if (c === "\"") {
      const asString = mysql !== undefined && !mysql.ansiQuotes
      const [text, next] = readQuoted(sql, i + 1, "\"", asString && reading.backslashEscapes)
      tokens.push({ kind: asString ? "string" : "quoted", text })
      i = next
    } else if (mysql !== undefined && c === "`") {
      const [text, next] = readQuoted(sql, i + 1, "`", false)
      tokens.push({ kind: "quoted", text })
      i = next
    } else if (reading.bracketIdentifiers && (c === "`" || c === "[")) {
      const [text, next] = readQuoted(sql, i + 1, c === "[" ? "]" : "`", false)
      tokens.push({ kind: "quoted", text })
      i = next
    } else if (c === "$" && reading.dollarQuotes) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))
      if (tag === null) {
        const param = /^\$[0-9]*/.exec(sql.slice(i))![0]
        tokens.push({ kind: "other", text: param })
        i += Math.max(param.length, 1)
      } else {
        const end = sql.indexOf(tag[0], i + tag[0].length)
        const stop = end === -1 ? sql.length : end
        tokens.push({ kind: "string", text: sql.slice(i + tag[0].length, stop) })
        i = end === -1 ? sql.length : end + tag[0].length
      }
    } else if (isWordStart(c)) {
      let j = i + 1
      while (j < sql.length && isWordPart(sql[j]!)) j++
      const text = sql.slice(i, j)
      if (reading.escapeStrings && (text === "E" || text === "e") && sql[j] === "'") {
        const [body, next] = readQuoted(sql, j + 1, "'", true)
        tokens.push({ kind: "string", text: body })
        i = next
      } else {
        tokens.push({ kind: "word", upper: text.toUpperCase(), text })
        i = j
      }
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      let j = i + 1
      while (j < sql.length && /[0-9A-Za-z_.]/.test(sql[j]!)) j++
      tokens.push({ kind: "other", text: sql.slice(i, j) })
      i = j
    } else if (c === "?" || c === ":" || c === "@" || c === "$") {
      let j = i + 1
      while (j < sql.length && isWordPart(sql[j]!)) j++
      tokens.push({ kind: "other", text: sql.slice(i, j) })
      i = j
    } else {
      tokens.push({ kind: "punct", text: c })
      i++
    }
  }
  return tokens
}

/**
 * The readings of one dialect differ only in block comments (`/`), backslash escapes (`\`), `"` (ANSI_QUOTES) and
 * SQLite's `[…]` and `` `…` ``; the other fields are the same in every reading of a dialect. A text without any of
 * these characters reads alike under all of them.
 */
const READINGS_DISAGREE_ON = /[\\/"`[]/

let lastRead: {
  readonly sql: string
  readonly dialect: SqlDialect
  readonly lists: ReadonlyArray<ReadonlyArray<SqlToken>>
} | undefined

/**
 * The text's tokens under each distinct reading of its dialect: one list when the readings cannot disagree. The last
 * text's lists are kept, so the classifier and the statement gate of one call lex it once (D-82).
 */
export const tokenizeEveryReading = (sql: string, dialect: SqlDialect): ReadonlyArray<ReadonlyArray<SqlToken>> => {
  if (lastRead !== undefined && lastRead.sql === sql && lastRead.dialect === dialect) return lastRead.lists
  const readings = readingsFor(dialect)
  const lists = READINGS_DISAGREE_ON.test(sql)
    ? readings.map((reading) => tokenize(sql, reading))
    : [tokenize(sql, readings[0]!)]
  lastRead = { sql, dialect, lists }
  return lists
}

const isWord = (token: SqlToken | undefined, upper: string): boolean =>
  token !== undefined && token.kind === "word" && token.upper === upper

/**
 * Splits tokens into statements on `;`. A SQLite `CREATE TRIGGER … BEGIN … END` keeps its inner
 * semicolons (CASE … END nests inside it).
 */
export const splitStatements = (tokens: ReadonlyArray<SqlToken>, dialect: SqlDialect): Array<Array<SqlToken>> => {
  const statements: Array<Array<SqlToken>> = []
  let current: Array<SqlToken> = []
  let blockDepth = 0
  const isTrigger = (): boolean =>
    dialect === "sqlite" && isWord(current[0], "CREATE") &&
    current.slice(1, 4).some((t) => isWord(t, "TRIGGER"))
  for (const token of tokens) {
    if (token.kind === "punct" && token.text === ";" && blockDepth === 0) {
      if (current.length > 0) statements.push(current)
      current = []
      continue
    }
    current.push(token)
    if (token.kind === "word" && isTrigger()) {
      if (token.upper === "BEGIN" || token.upper === "CASE") blockDepth++
      else if (token.upper === "END" && blockDepth > 0) blockDepth--
    }
  }
  if (current.length > 0) statements.push(current)
  return statements
}
