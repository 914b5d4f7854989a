import { lookup } from "./DocumentValidation.ts"
import { baseType } from "./Fields.ts"
import { failure } from "./Http.ts"
import type { Collection, StoredDocument } from "./State.ts"

export interface SortEntry {
  readonly name: string
  readonly order: string
  readonly missing: "first" | "last" | undefined
}

export interface SortKey {
  readonly name: string
  readonly desc: boolean
  readonly missing: "first" | "last" | undefined
  readonly kind: "number" | "string" | "seq" | "text_match"
}

const splitOutsideParentheses = (text: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let current = ""
  for (const c of text) {
    if (c === "(") depth++
    if (c === ")") depth--
    if (c === "," && depth === 0) {
      parts.push(current)
      current = ""
    } else current += c
  }
  parts.push(current)
  return parts
}

/** Step 5 of §1.3's precedence: syntax and the 3-field limit (§3). */
export const parseSortBy = (sortBy: string | undefined): Array<SortEntry> => {
  if (sortBy === undefined || sortBy.trim() === "") return []
  const entries = splitOutsideParentheses(sortBy).map((part): SortEntry => {
    const text = part.trim()
    const colon = text.lastIndexOf(":")
    if (colon === -1 || text.lastIndexOf(")") > colon) return failure(400, "Parameter `sort_by` is malformed.")
    const head = text.slice(0, colon).trim()
    const order = text.slice(colon + 1).trim()
    const options = /^([^(]+)\(\s*missing_values\s*:\s*(first|last)\s*\)$/.exec(head)
    if (options !== null) return { name: options[1]!.trim(), order, missing: options[2] as "first" | "last" }
    return { name: head, order, missing: undefined }
  })
  if (entries.length > 3) failure(400, "Only upto 3 sort fields are allowed.")
  return entries
}

/** Step 10: sortability (404), order (400), the 3-field limit after implicit additions (422); defaults of §3. */
export const resolveSortKeys = (
  collection: Collection,
  entries: ReadonlyArray<SortEntry>,
  wildcard: boolean
): Array<SortKey> => {
  const keys: Array<SortKey> = entries.map((entry) => {
    let kind: SortKey["kind"]
    if (entry.name === "_seq_id") kind = "seq"
    else if (entry.name === "_text_match") kind = "text_match"
    else {
      const field = collection.field(entry.name)
      if (field === undefined || !field.index || !field.sort) {
        return failure(404, `Could not find a field named \`${entry.name}\` in the schema for sorting.`)
      }
      kind = baseType(field.type) === "string" ? "string" : "number"
    }
    const order = entry.order.toLowerCase()
    if (order !== "asc" && order !== "desc") {
      failure(400, `Order for field\` ${entry.name}\` should be either ASC or DESC.`)
    }
    return { name: entry.name, desc: order === "desc", missing: entry.missing, kind }
  })
  const descending = (name: string, kind: SortKey["kind"]): SortKey => ({ name, desc: true, missing: undefined, kind })
  if (keys.length === 0) {
    if (!wildcard) keys.push(descending("_text_match", "text_match"))
    const dsf = collection.defaultSortingField
    if (dsf !== "") {
      keys.push(descending(dsf, collection.field(dsf)?.type === "string" ? "string" : "number"))
    } else {
      keys.push(descending("_seq_id", "seq"))
    }
  } else if (!wildcard && !keys.some((k) => k.kind === "text_match") && keys.length < 3) {
    keys.push(descending("_text_match", "text_match"))
  }
  if (keys.length > 3) failure(422, "Only upto 3 sort_by fields can be specified.")
  return keys
}

export interface Ranked {
  readonly stored: StoredDocument
  readonly textMatch: number
}

const sortValue = (key: SortKey, ranked: Ranked): number | string | undefined => {
  if (key.kind === "seq") return ranked.stored.seq
  if (key.kind === "text_match") return ranked.textMatch
  const value = lookup(ranked.stored.doc, key.name)
  if (key.kind === "string") return typeof value === "string" ? value.toLowerCase().slice(0, 2000) : undefined
  if (typeof value === "boolean") return value ? 1 : 0
  return typeof value === "number" ? value : undefined
}

/**
 * §3: numeric missing values always last; a missing string is the highest value (last on asc, first on
 * desc); `missing_values` overrides; ties put the higher seq id (newer document) first.
 */
export const compareRanked = (keys: ReadonlyArray<SortKey>) => (a: Ranked, b: Ranked): number => {
  for (const key of keys) {
    const va = sortValue(key, a)
    const vb = sortValue(key, b)
    if (va === undefined || vb === undefined) {
      if (va === vb) continue
      const missingLast = key.missing !== undefined ? key.missing === "last" : key.kind === "string" ? !key.desc : true
      return (va === undefined ? 1 : -1) * (missingLast ? 1 : -1)
    }
    if (va === vb) continue
    const ascending = va < vb ? -1 : 1
    return key.desc ? -ascending : ascending
  }
  return b.stored.seq - a.stored.seq
}
