import { lookup } from "./DocumentValidation.ts"
import { type Clause, parseClause, type StringValue } from "./FilterClause.ts"
import { type FilterNode, parseFilterTree } from "./FilterTokenizer.ts"
import type { Collection, Doc, EngineState } from "./State.ts"
import { stringElements, tokenize } from "./Tokens.ts"

export type DocumentPredicate = (doc: Doc) => boolean

const numbersOf = (value: unknown): Array<number> =>
  Array.isArray(value) ? value.flatMap(numbersOf) : typeof value === "number" ? [value] : []

const boolsOf = (value: unknown): Array<boolean> =>
  Array.isArray(value) ? value.flatMap(boolsOf) : typeof value === "boolean" ? [value] : []

const startsWithTokens = (element: ReadonlyArray<string>, wanted: ReadonlyArray<string>, prefix: boolean): boolean =>
  wanted.every((token, i) => {
    const actual = element[i]
    if (actual === undefined) return false
    return prefix && i === wanted.length - 1 ? actual.startsWith(token) : actual === token
  })

/** `:=` — the value's tokens equal one whole element's tokens; with `*` the element starts with them (§2.2). */
const exactMatch = (elements: ReadonlyArray<string>, value: StringValue): boolean => {
  const wanted = tokenize(value.text)
  if (wanted.length === 0) return false
  return elements.some((element) => {
    const tokens = tokenize(element)
    return value.prefix
      ? startsWithTokens(tokens, wanted, true)
      : tokens.length === wanted.length && startsWithTokens(tokens, wanted, false)
  })
}

/** `:` — every token of the value occurs somewhere in the field; with `*` the last one as a prefix (§2.2). */
const containsMatch = (elements: ReadonlyArray<string>, value: StringValue): boolean => {
  const wanted = tokenize(value.text)
  if (wanted.length === 0) return false
  const present = elements.flatMap(tokenize)
  return wanted.every((token, i) =>
    value.prefix && i === wanted.length - 1 ? present.some((t) => t.startsWith(token)) : present.includes(token)
  )
}

const clausePredicate = (clause: Clause): DocumentPredicate => {
  switch (clause.kind) {
    case "none":
      return () => false
    case "id": {
      const ids = clause.ids
      const positive = (doc: Doc) => ids === "all" || ids.includes(String(doc["id"]))
      return clause.negate ? (doc) => !positive(doc) : positive
    }
    case "string": {
      const { exact, values, field } = clause
      const positive = (doc: Doc) => {
        const elements = stringElements(lookup(doc, field))
        return values.some((value) => (exact ? exactMatch(elements, value) : containsMatch(elements, value)))
      }
      return clause.negate ? (doc) => !positive(doc) : positive
    }
    case "number": {
      const { items, field } = clause
      const positive = (doc: Doc) =>
        numbersOf(lookup(doc, field)).some((n) =>
          items.some((item) => {
            switch (item.op) {
              case "..":
                return n >= item.low && n <= item.high
              case "=":
                return n === item.value
              case "<":
                return n < item.value
              case "<=":
                return n <= item.value
              case ">":
                return n > item.value
              case ">=":
                return n >= item.value
            }
          })
        )
      return clause.negate ? (doc) => !positive(doc) : positive
    }
    case "bool": {
      const { values, field } = clause
      const positive = (doc: Doc) => boolsOf(lookup(doc, field)).some((b) => values.includes(b))
      return clause.negate ? (doc) => !positive(doc) : positive
    }
  }
}

const compile = (
  state: EngineState,
  collection: Collection,
  node: FilterNode,
  validateFieldNames: boolean
): DocumentPredicate => {
  if (node.kind === "clause") {
    return clausePredicate(parseClause(state, collection.fields, node.text, validateFieldNames))
  }
  const left = compile(state, collection, node.left, validateFieldNames)
  const right = compile(state, collection, node.right, validateFieldNames)
  return node.kind === "&&" ? (doc) => left(doc) && right(doc) : (doc) => left(doc) || right(doc)
}

/**
 * Compiles a `filter_by` (§2) to a predicate; throws the §2.4 errors. Negations are complements over all
 * documents, so a document lacking the field matches `field:!=x`.
 */
export const compileFilter = (
  state: EngineState,
  collection: Collection,
  filterBy: string | undefined,
  validateFieldNames = true
): DocumentPredicate => {
  const tree = filterBy === undefined ? undefined : parseFilterTree(filterBy, state.version)
  return tree === undefined ? () => true : compile(state, collection, tree, validateFieldNames)
}
