import { failure } from "./Http.ts"

export type FilterNode =
  | { readonly kind: "&&" | "||"; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: "clause"; readonly text: string }

const PARSE_FAILED = "Could not parse the filter query."

const matchingClose = (text: string, open: number, openChar: string, closeChar: string): number => {
  let depth = 0
  let inBackticks = false
  for (let i = open; i < text.length; i++) {
    const c = text[i]
    if (c === "`") inBackticks = !inBackticks
    else if (!inBackticks && c === openChar) depth++
    else if (!inBackticks && c === closeChar && --depth === 0) return i
  }
  return text.length - 1
}

const previousNonSpace = (text: string, start: number, i: number): string | undefined => {
  for (let j = i - 1; j >= start; j--) if (text[j] !== " ") return text[j]
  return undefined
}

const nextNonSpace = (text: string, i: number): string | undefined => {
  for (let j = i; j < text.length; j++) if (text[j] !== " ") return text[j]
  return undefined
}

/**
 * The outer tokenizer of §2.1: `(`, `)`, `&&`, `||` and clauses. A backtick toggles a flag that keeps
 * those characters inside the clause; there is no escape.
 */
export const tokenizeFilter = (text: string): Array<string> => {
  const tokens: Array<string> = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === " ") {
      i++
    } else if (c === "(" || c === ")") {
      tokens.push(c)
      i++
    } else if (c === "&" || c === "|") {
      if (text[i + 1] !== c) failure(400, "Could not parse the filter filter_query.")
      tokens.push(c + c)
      i += 2
    } else if (c === "$" || (c === "!" && text[i + 1] === "$")) {
      const open = text.indexOf("(", i)
      const end = open === -1 ? text.length - 1 : matchingClose(text, open, "(", ")")
      tokens.push(text.slice(i, end + 1).trim())
      i = end + 1
    } else {
      const start = i
      let inBackticks = false
      while (i < text.length) {
        const d = text[i]!
        if (d === "`") {
          inBackticks = !inBackticks
        } else if (!inBackticks) {
          if (d === "(") {
            if (previousNonSpace(text, start, i) !== ":") break
            i = matchingClose(text, i, "(", ")")
          } else if (d === ")") {
            break
          } else if ((d === "&" && text[i + 1] === "&") || (d === "|" && text[i + 1] === "|")) {
            break
          } else if (d === "[" && previousNonSpace(text, start, i) === ":" && nextNonSpace(text, i + 1) === "(") {
            i = matchingClose(text, i, "[", "]")
          }
        }
        i++
      }
      tokens.push(text.slice(start, i).trim())
    }
  }
  return tokens
}

const isOperator = (token: string): token is "&&" | "||" => token === "&&" || token === "||"

/** Infix → postfix with `&&` and `||` of equal precedence, left-associative (§2.2). */
const toPostfix = (tokens: ReadonlyArray<string>): Array<string> => {
  const output: Array<string> = []
  const operators: Array<string> = []
  for (const token of tokens) {
    if (token === "(") {
      operators.push(token)
    } else if (token === ")") {
      while (operators.length > 0 && operators[operators.length - 1] !== "(") output.push(operators.pop()!)
      if (operators.length === 0) failure(400, "Could not parse the filter query: unbalanced parentheses.")
      operators.pop()
    } else if (isOperator(token)) {
      while (operators.length > 0 && operators[operators.length - 1] !== "(") output.push(operators.pop()!)
      operators.push(token)
    } else {
      output.push(token)
    }
  }
  while (operators.length > 0) {
    const top = operators.pop()!
    if (top === "(") failure(400, "Could not parse the filter query: unbalanced parentheses.")
    output.push(top)
  }
  return output
}

const tooManyOperations = (version: number): string =>
  version >= 28
    ? "`filter_by` has too many operations. Maximum allowed: 100. Use `--filter-by-max-ops` command line argument to customize this value."
    : version >= 27
    ? "`filter_by` has too many operations. Maximum allowed: 100"
    : "`filter_by` has too many operations."

/** Parses a `filter_by` into a tree of clause texts; `undefined` for an empty/all-space filter. */
export const parseFilterTree = (filterBy: string, version: number): FilterNode | undefined => {
  if (filterBy.trim() === "") return undefined
  const postfix = toPostfix(tokenizeFilter(filterBy))
  if (postfix.length > 100) failure(400, tooManyOperations(version))
  const stack: Array<FilterNode> = []
  for (const token of postfix) {
    if (isOperator(token)) {
      const right = stack.pop()
      const left = stack.pop()
      if (right === undefined || left === undefined) {
        return failure(400, `Could not parse the filter query: unbalanced \`${token}\` operands.`)
      }
      stack.push({ kind: token, left, right })
    } else {
      stack.push({ kind: "clause", text: token })
    }
  }
  if (stack.length !== 1) return failure(400, PARSE_FAILED)
  return stack[0]
}

/** Splits a `[...]` list on commas outside backticks. */
export const splitList = (inner: string): Array<string> => {
  const items: Array<string> = []
  let current = ""
  let inBackticks = false
  for (const c of inner) {
    if (c === "`") inBackticks = !inBackticks
    if (c === "," && !inBackticks) {
      items.push(current.trim())
      current = ""
    } else {
      current += c
    }
  }
  items.push(current.trim())
  return items
}
