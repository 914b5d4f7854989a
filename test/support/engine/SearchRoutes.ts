import { EngineFailure, failure, json, raw, type EngineResponse } from "./Http.ts"
import { dump, isObject, type Json, JsonFloat, type JsonObject, parseJson } from "./Json.ts"
import { route, type RequestContext, type Route } from "./Router.ts"
import { runSearch, type SearchParams } from "./Search.ts"

const MAX_QUERY_LENGTH = 4000
const DEFAULT_MULTI_SEARCH_LIMIT = 50

const search = (context: RequestContext): EngineResponse => {
  if (context.rawQuery.length > MAX_QUERY_LENGTH) {
    return raw(
      400,
      dump({
        message: "Query string exceeds max allowed length of 4000. Use the /multi_search end-point for larger payloads."
      })
    )
  }
  return json(200, runSearch(context.state, context.params["collection"]!, context.query))
}

/** §1.3: integers as decimals, booleans as words, floats through `std::to_string` (6 decimals). */
const paramText = (value: Json): string => {
  if (typeof value === "string") return value
  if (typeof value === "boolean") return value ? "true" : "false"
  if (value instanceof JsonFloat) return value.value.toFixed(6)
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(6)
  return failure(400, "One or more search parameters are malformed.")
}

/** Merges one search element into the URL params: the URL wins, except `filter_by`, which is ANDed (§1.3). */
export const mergeSearchParams = (url: SearchParams, element: JsonObject): Record<string, string> => {
  const merged: Record<string, string> = { ...url }
  for (const [key, value] of Object.entries(element)) {
    const textValue = paramText(value)
    if (key === "filter_by" && url["filter_by"] !== undefined) {
      merged["filter_by"] = `(${url["filter_by"]}) && (${textValue})`
    } else if (!(key in url)) {
      merged[key] = textValue
    }
  }
  return merged
}

/** The searches of a multi_search body, or undefined when the body is not usable (used for auth too). */
export const searchElements = (body: string): Array<Json> | undefined => {
  try {
    const parsed = parseJson(body)
    return isObject(parsed) && Array.isArray(parsed["searches"]) ? parsed["searches"] : undefined
  } catch {
    return undefined
  }
}

export const multiSearchCollections = (body: string, query: SearchParams): Array<string> =>
  (searchElements(body) ?? []).map((element) => {
    const name = isObject(element) ? element["collection"] : undefined
    return query["collection"] ?? (typeof name === "string" ? name : "")
  })

const multiSearch = (context: RequestContext): EngineResponse => {
  let parsed: Json
  try {
    parsed = parseJson(context.body)
  } catch {
    return failure(400, "Bad JSON.")
  }
  if (!isObject(parsed) || !Array.isArray(parsed["searches"])) return failure(400, "Missing `searches` array.")
  const searches = parsed["searches"]
  const limitParam = context.query["limit_multi_searches"]
  const limit = limitParam !== undefined && /^\d+$/.test(limitParam) ? Number(limitParam) : DEFAULT_MULTI_SEARCH_LIMIT
  if (searches.length > limit) failure(400, "Number of multi searches exceeds `limit_multi_searches` parameter.")
  if (!searches.every(isObject)) failure(400, "The value of `searches` must be an array of objects.")
  const merged = (searches as Array<JsonObject>).map((element) => mergeSearchParams(context.query, element))
  const results = merged.map((params) => {
    try {
      return runSearch(context.state, params["collection"] ?? "", params)
    } catch (error) {
      if (!(error instanceof EngineFailure)) throw error
      return { code: error.code, error: error.message }
    }
  })
  return json(200, { results })
}

export const searchRoutes: ReadonlyArray<Route> = [
  route("GET", "/collections/:collection/documents/search", search, { errorShape: "search", category: "search" }),
  route("POST", "/multi_search", multiSearch, { category: "search" })
]
