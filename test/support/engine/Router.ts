import { type EngineResponse } from "./Http.ts"
import type { EngineState, RequestCategory } from "./State.ts"

export interface RequestContext {
  readonly state: EngineState
  readonly method: string
  /** Path parameters, each URL-decoded after splitting on `/` (§0.1). */
  readonly params: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, string>>
  /** The raw query string from the `?` on, or "" (the 4000-byte search limit counts it). */
  readonly rawQuery: string
  readonly body: string
  readonly apiKey: string
}

export type ErrorShape = "handler" | "escaped" | "search"

export interface Route {
  readonly method: string
  readonly segments: ReadonlyArray<string>
  readonly action: string
  readonly handler: (context: RequestContext) => EngineResponse
  readonly errorShape: ErrorShape
  readonly category: RequestCategory
  readonly public: boolean
}

/** `route_path::_get_action` (§5): the action string derived from a route pattern and method. */
export const deriveAction = (method: string, segments: ReadonlyArray<string>): string => {
  const path = segments.join("/")
  if (path === "multi_search" || path === "collections/:collection/documents/search") return "documents:search"
  if (path === "collections/:collection/documents/import") return "documents:import"
  if (path === "collections/:collection/documents/export") return "documents:export"
  const kept = segments.length > 2 && segments[0] === "collections" ? segments.slice(1) : segments
  const resource = kept.filter((s) => !s.startsWith(":")).join("/")
  const hasId = segments[segments.length - 1]?.startsWith(":") === true
  const operation = method === "GET" ?
    (hasId ? "get" : "list")
    : method === "POST" ?
    "create"
    : method === "PUT" ?
    "upsert"
    : method === "DELETE" ?
    "delete"
    : method === "PATCH" ?
    "update"
    : "unknown"
  return `${resource}:${operation}`
}

export interface RouteOptions {
  readonly errorShape?: ErrorShape
  readonly category?: RequestCategory
  readonly public?: boolean
}

export const route = (
  method: string,
  pattern: string,
  handler: (context: RequestContext) => EngineResponse,
  options: RouteOptions = {}
): Route => {
  const segments = pattern.split("/").filter((s) => s !== "")
  return {
    method,
    segments,
    action: deriveAction(method, segments),
    handler,
    errorShape: options.errorShape ?? "handler",
    category: options.category ?? "other",
    public: options.public ?? false
  }
}

export interface RouteMatch {
  readonly route: Route
  readonly params: Record<string, string>
}

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** First-registered-wins matching on segments split before decoding (§0.1). */
export const matchRoute = (routes: ReadonlyArray<Route>, method: string, path: string): RouteMatch | undefined => {
  const segments = path.split("/").slice(1)
  for (const candidate of routes) {
    if (candidate.method !== method || candidate.segments.length !== segments.length) continue
    const params: Record<string, string> = {}
    const matches = candidate.segments.every((pattern, i) => {
      const actual = segments[i]!
      if (pattern.startsWith(":")) {
        if (actual === "") return false
        params[pattern.slice(1)] = decode(actual)
        return true
      }
      return pattern === actual
    })
    if (matches) return { route: candidate, params }
  }
  return undefined
}
