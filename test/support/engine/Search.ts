import { lookup } from "./DocumentValidation.ts"
import { baseType } from "./Fields.ts"
import { compileFilter } from "./Filter.ts"
import { failure } from "./Http.ts"
import { commaList, pruneDocument } from "./Prune.ts"
import { compareRanked, parseSortBy, type Ranked, resolveSortKeys } from "./Sorting.ts"
import type { EngineState } from "./State.ts"
import { stringElements, tokenize } from "./Tokens.ts"

export type SearchParams = Readonly<Record<string, string>>

/** Parameters validated as uint32 (§1.3.1), checked in key order like the server's std::map. */
const UNSIGNED_PARAMS = [
  "drop_tokens_threshold",
  "highlight_affix_num_tokens",
  "limit",
  "limit_hits",
  "max_candidates",
  "max_facet_values",
  "num_typos",
  "offset",
  "page",
  "per_page",
  "search_cutoff_ms",
  "snippet_threshold",
  "typo_tokens_threshold"
]
const UINT32_MAX = 4294967295
const MAX_PER_PAGE = 250

const unsigned = (params: SearchParams, name: string): number | undefined => {
  const value = params[name]
  return value === undefined ? undefined : Number(value)
}

/** Simple token matching for `q` over `query_by` (typo tolerance and token dropping are out of scope). */
const textScore = (
  doc: Record<string, unknown>,
  queryTokens: ReadonlyArray<string>,
  queryBy: ReadonlyArray<string>
): number => {
  let score = 0
  for (const [i, token] of queryTokens.entries()) {
    const isLast = i === queryTokens.length - 1
    let best = 0
    for (const [priority, name] of queryBy.entries()) {
      const tokens = stringElements(lookup(doc, name)).flatMap(tokenize)
      const weight = queryBy.length - priority
      if (tokens.includes(token)) best = Math.max(best, 2 * weight)
      else if (isLast && tokens.some((t) => t.startsWith(token))) best = Math.max(best, weight)
    }
    if (best === 0) return 0
    score += best
  }
  return score
}

/** One search (§1.3 precedence, §3, §4); throws an EngineFailure with the code and message of the first failing check. */
export const runSearch = (
  state: EngineState,
  collectionName: string,
  params: SearchParams
): Record<string, unknown> => {
  const collection = state.resolve(collectionName)
  if (collection === undefined) return failure(404, state.searchCollectionNotFound)
  const q = params["q"]
  if (q === undefined) return failure(400, "Parameter `q` is required.")
  for (const name of UNSIGNED_PARAMS) {
    const value = params[name]
    if (value !== undefined && (!/^\d+$/.test(value) || Number(value) > UINT32_MAX)) {
      failure(400, `Parameter \`${name}\` must be an unsigned integer.`)
    }
  }
  const sortEntries = parseSortBy(params["sort_by"])
  const wildcard = q.trim() === "*"
  const queryBy = commaList(params["query_by"])
  if (!wildcard && queryBy.length === 0) failure(400, "No search fields specified for the query.")
  for (const name of queryBy) {
    const field = collection.field(name)
    if (field === undefined) failure(404, `Could not find a field named \`${name}\` in the schema.`)
    else if (baseType(field.type) !== "string" && field.type !== "string*") {
      failure(400, `Field \`${name}\` should be a string or a string array.`)
    }
  }
  const predicate = compileFilter(state, collection, params["filter_by"], params["validate_field_names"] !== "false")
  const perPage = unsigned(params, "per_page") ?? unsigned(params, "limit") ?? 10
  if (perPage > MAX_PER_PAGE) failure(422, `Only upto ${MAX_PER_PAGE} hits can be fetched per page.`)
  const sortKeys = resolveSortKeys(collection, sortEntries, wildcard)

  const queryTokens = wildcard ? [] : tokenize(q)
  const ranked: Array<Ranked> = []
  for (const stored of collection.docs.values()) {
    if (!predicate(stored.doc)) continue
    const textMatch = wildcard ? 0 : textScore(stored.doc, queryTokens, queryBy)
    if (!wildcard && textMatch === 0) continue
    ranked.push({ stored, textMatch })
  }
  ranked.sort(compareRanked(sortKeys))

  const page = unsigned(params, "page") ?? 0
  const offsetParam = unsigned(params, "offset")
  const offset = page > 0 ? (page - 1) * perPage : offsetParam ?? 0
  const limitHits = unsigned(params, "limit_hits") ?? (state.version >= 28 ? 1_000_000 : UINT32_MAX)
  const end = Math.min(offset + perPage, limitHits, ranked.length)
  const include = commaList(params["include_fields"])
  const exclude = commaList(params["exclude_fields"])
  const hits = ranked.slice(offset, Math.max(offset, end)).map(({ stored, textMatch }) => ({
    document: pruneDocument(stored.doc, include, exclude),
    highlight: {},
    highlights: [],
    ...(wildcard ? {} : {
      text_match: textMatch,
      text_match_info: {
        best_field_score: String(textMatch),
        best_field_weight: 15,
        fields_matched: 1,
        num_tokens_dropped: 0,
        score: String(textMatch),
        tokens_matched: queryTokens.length,
        typo_prefix_score: 0
      }
    })
  }))
  const result: Record<string, unknown> = {
    facet_counts: [],
    found: ranked.length,
    hits,
    out_of: collection.docs.size,
    request_params: { collection_name: collection.name, first_q: q, per_page: perPage, q },
    search_cutoff: false,
    search_time_ms: 0
  }
  // §1.3: `offset` replaces `page` when only a non-zero offset was sent.
  if (page === 0 && offsetParam !== undefined && offsetParam !== 0) result["offset"] = offsetParam
  else result["page"] = page > 0 ? page : 1
  for (const name of exclude) if (name === "out_of" || name === "search_time_ms") delete result[name]
  return result
}
