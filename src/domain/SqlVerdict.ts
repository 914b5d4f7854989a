import * as K from "./SqlKeywords.ts"
import type { SqlToken } from "./SqlLexer.ts"

/** Verdicts and token scans of the statement classifier (D-22). */

/** The tiers of D-22 (the Schema is StatementClassifier's; this module stays free of effect for the SQLite child). */
export type StatementTier = "safe" | "write" | "destructive"

export interface Verdict {
  readonly tier: StatementTier
  readonly files: boolean
  readonly reason?: string | undefined
  readonly hint?: string | undefined
}

export const rank: Record<StatementTier, number> = { safe: 0, write: 1, destructive: 2 }
export const SAFE: Verdict = { tier: "safe", files: false }
export const write = (reason: string): Verdict => ({ tier: "write", files: false, reason })
export const destructive = (reason: string): Verdict => ({ tier: "destructive", files: false, reason })
export const filesOrCode = (reason: string): Verdict => ({ tier: "write", files: true, reason })

export const worse = (a: Verdict, b: Verdict): Verdict => {
  const tier = rank[b.tier] > rank[a.tier] ? b.tier : a.tier
  const reason = b.files && !a.files
    ? b.reason
    : !a.files && rank[b.tier] > rank[a.tier]
    ? b.reason
    : (a.reason ?? b.reason)
  return { tier, files: a.files || b.files, reason, hint: a.hint ?? b.hint }
}

export const isWord = (token: SqlToken | undefined, ...uppers: ReadonlyArray<string>): boolean =>
  token !== undefined && token.kind === "word" && uppers.includes(token.upper)
export const isPunct = (token: SqlToken | undefined, text: string): boolean =>
  token !== undefined && token.kind === "punct" && token.text === text
export const nameOf = (token: SqlToken | undefined): string | undefined =>
  token === undefined ? undefined : token.kind === "word" || token.kind === "quoted" ? token.text : undefined

/** Index just after the parenthesised group that opens at `open`. */
export const closeOf = (tokens: ReadonlyArray<SqlToken>, open: number): number => {
  let depth = 0
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], "(")) depth++
    else if (isPunct(tokens[i], ")") && --depth === 0) return i + 1
  }
  return tokens.length
}

const FILE_FUNCTION_CALL = new RegExp(`\\b(${[...K.FILES_OR_CODE_FUNCTIONS].join("|")})\\s*\\(`, "i")

/** PostgreSQL `U&"…"` / `U&'…'` text with its `\XXXX` and `\+XXXXXX` escapes (or the UESCAPE character) decoded. */
export const decodedText = (tokens: ReadonlyArray<SqlToken>, i: number): string => {
  const token = tokens[i]!
  const text = token.kind === "word" ? token.text : token.kind === "quoted" || token.kind === "string" ? token.text : ""
  if (!(isPunct(tokens[i - 1], "&") && isWord(tokens[i - 2], "U"))) return text
  const custom = isWord(tokens[i + 1], "UESCAPE") ? tokens[i + 2] : undefined
  const escape = custom?.kind === "string" && custom.text.length === 1 ? custom.text : "\\"
  const quoted = escape.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  return text.replace(
    new RegExp(`${quoted}(${quoted}|\\+[0-9A-Fa-f]{6}|[0-9A-Fa-f]{4})`, "g"),
    (_m, code: string) => code === escape ? escape : String.fromCodePoint(Number.parseInt(code.replace("+", ""), 16))
  )
}

/** Refused markers anywhere in the statement: server functions (also quoted, or named in a string), pairs. */
export const scanFilesOrCode = (tokens: ReadonlyArray<SqlToken>): Verdict => {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const name = nameOf(token) === undefined ? undefined : decodedText(tokens, i).toLowerCase()
    if (name !== undefined && K.FILES_OR_CODE_FUNCTIONS.has(name)) return filesOrCode(`calls ${name}`)
    if (token.kind === "string" && FILE_FUNCTION_CALL.test(decodedText(tokens, i))) {
      return filesOrCode("names a refused function")
    }
    if (token.kind !== "word") continue
    for (const [first, second] of K.FILES_OR_CODE_PAIRS) {
      if (token.upper === first && isWord(tokens[i + 1], second)) return filesOrCode(`uses ${first} ${second}`)
    }
  }
  return SAFE
}

/** A statement that should only read: any data-changing word, row lock or side-effect function makes it a write. */
export const scanRead = (tokens: ReadonlyArray<SqlToken>): Verdict => {
  let verdict = SAFE
  tokens.forEach((token, i) => {
    if (token.kind !== "word") return
    if (K.DESTRUCTIVE_LEADING.has(token.upper)) verdict = worse(verdict, destructive(`contains ${token.upper}`))
    else if (token.upper === "INTO") verdict = worse(verdict, write("writes INTO a table"))
    else if (K.WRITE_WORDS_IN_READS.has(token.upper)) verdict = worse(verdict, write(`contains ${token.upper}`))
    else if (token.upper === "FOR" && isWord(tokens[i + 1], ...K.ROW_LOCK_WORDS)) {
      verdict = worse(verdict, write("locks rows (FOR UPDATE/SHARE)"))
    } else if (K.WRITE_FUNCTIONS.has(token.text.toLowerCase()) && isPunct(tokens[i + 1], "(")) {
      verdict = worse(verdict, write(`calls ${token.text.toLowerCase()}, which has side effects`))
    }
  })
  return verdict
}
