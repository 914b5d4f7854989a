import type { IncomingMessage, ServerResponse } from "node:http"
import { aliasRoutes } from "./Aliases.ts"
import { collectionRoutes } from "./Collections.ts"
import { documentRoutes } from "./Documents.ts"
import {
  EngineFailure,
  type EngineResponse,
  escapedError,
  forbidden,
  handlerError,
  reasonPhrase,
  routeNotFound
} from "./Http.ts"
import { isObject, parseJson } from "./Json.ts"
import { authorize, keyRoutes } from "./Keys.ts"
import { operationRoutes } from "./Operations.ts"
import { matchRoute, type Route, type RouteMatch } from "./Router.ts"
import { multiSearchCollections, searchElements, searchRoutes } from "./SearchRoutes.ts"
import type { EngineState } from "./State.ts"

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

/** Route table in registration order: first registered wins (§0.1). */
export const ROUTES: ReadonlyArray<Route> = [
  ...operationRoutes,
  ...collectionRoutes,
  ...searchRoutes,
  ...documentRoutes,
  ...keyRoutes,
  ...aliasRoutes
]

const firstValues = (search: string): Record<string, string> => {
  const result: Record<string, string> = {}
  for (const [key, value] of new URLSearchParams(search)) if (!(key in result)) result[key] = value
  return result
}

/** The collections a request names, for the key's collection check (§5). */
const requestedCollections = (match: RouteMatch, body: string, query: Record<string, string>): Array<string> => {
  const { route, params } = match
  if (params["collection"] !== undefined) return [params["collection"]]
  if (route.method === "POST" && route.segments.join("/") === "collections") {
    try {
      const parsed = parseJson(body)
      if (isObject(parsed) && typeof parsed["name"] === "string") return [parsed["name"]]
    } catch {
      return []
    }
    return []
  }
  if (route.segments.join("/") === "multi_search") return multiSearchCollections(body, query)
  return []
}

const failureResponse = (state: EngineState, route: Route, error: EngineFailure): EngineResponse => {
  const escaped = route.errorShape === "escaped" || (route.errorShape === "search" && state.version >= 29)
  return escaped ? escapedError(error.code, error.message) : handlerError(error.code, error.message)
}

const respond = (state: EngineState, method: string, url: string, headers: Record<string, string>, body: string) => {
  const queryStart = url.indexOf("?")
  const path = queryStart === -1 ? url : url.slice(0, queryStart)
  const rawQuery = queryStart === -1 ? "" : url.slice(queryStart)
  const query = firstValues(rawQuery)
  const match = matchRoute(ROUTES, method, path)
  if (match === undefined) return { response: routeNotFound(), match }
  const apiKey = headers["x-typesense-api-key"] ?? query["x-typesense-api-key"] ?? ""
  if (!match.route.public) {
    const collections = requestedCollections(match, body, query)
    if (!authorize(state, apiKey, match.route.action, collections)) return { response: forbidden(), match }
  }
  try {
    const response = match.route.handler({ state, method, params: match.params, query, rawQuery, body, apiKey })
    return { response, match }
  } catch (error) {
    if (error instanceof EngineFailure) return { response: failureResponse(state, match.route, error), match }
    throw error
  }
}

export const requestListener =
  (state: EngineState, recorded: Array<RecordedRequest>) =>
  (request: IncomingMessage, response: ServerResponse): void => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const started = performance.now()
      const body = Buffer.concat(chunks).toString("utf8")
      const method = request.method ?? "GET"
      const url = request.url ?? "/"
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
      }
      recorded.push({ method, path: url, headers, body })
      let result: { response: EngineResponse; match: RouteMatch | undefined }
      try {
        result = respond(state, method, url, headers, body)
      } catch (error) {
        result = { response: handlerError(500, String(error)), match: undefined }
      }
      const { response: answer, match } = result
      if (match !== undefined) {
        const searches = match.route.segments[0] === "multi_search" ? (searchElements(body)?.length ?? 0) : 1
        state.samples.push({
          key: `${method} ${url.split("?")[0]}`,
          category: match.route.category,
          searches,
          latencyMs: performance.now() - started,
          at: Date.now()
        })
      }
      response.writeHead(answer.status, reasonPhrase(answer.status), {
        "content-type": answer.contentType,
        "content-length": Buffer.byteLength(answer.body)
      })
      response.end(method === "HEAD" ? undefined : answer.body)
    })
  }
