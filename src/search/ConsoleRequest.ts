import { Either } from "effect"
import { SearchConsoleRefused } from "../domain/SearchErrors.ts"

export const consoleMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const
export type ConsoleMethod = (typeof consoleMethods)[number]

export type ConsoleBody =
  | { readonly _tag: "Json"; readonly value: unknown }
  /** JSON lines, e.g. for `…/documents/import`; sent as `text/plain`. */
  | { readonly _tag: "JsonLines"; readonly text: string }

/** A console request (doc 2 §4.3 point 1): method, a path on the connection's own origin (query included), a body. */
export interface ConsoleRequest {
  readonly method: ConsoleMethod
  readonly path: string
  readonly body: ConsoleBody | undefined
}

const sqlKeywords = new Set([
  "SELECT",
  "INSERT",
  "UPDATE",
  "DELETE",
  "WITH",
  "CREATE",
  "DROP",
  "ALTER",
  "TRUNCATE",
  "SHOW",
  "EXPLAIN",
  "DESCRIBE",
  "REPLACE",
  "MERGE",
  "GRANT",
  "REVOKE",
  "BEGIN",
  "COMMIT",
  "VACUUM",
  "PRAGMA"
])

const usage = "Enter a request like: GET /collections (a JSON body may follow on the next lines)."
const looksLikeSql =
  "This looks like SQL. The console sends REST requests to Typesense: enter a method and a path, like GET /collections, with an optional JSON body on the following lines."
const leavesOrigin =
  "The path must stay on this connection's server: start it with a single /, and leave out the host, http:// and . or .. segments."

const refuse = (message: string) => Either.left(new SearchConsoleRefused({ message }))

const parseBody = (text: string): Either.Either<ConsoleBody | undefined, SearchConsoleRefused> => {
  if (text === "") return Either.right(undefined)
  try {
    return Either.right({ _tag: "Json", value: JSON.parse(text) })
  } catch (error) {
    const lines = text.split("\n").filter((line) => line.trim() !== "")
    const allLinesParse = lines.length > 1 && lines.every((line) => {
      try {
        JSON.parse(line)
        return true
      } catch {
        return false
      }
    })
    if (allLinesParse) return Either.right({ _tag: "JsonLines", text: lines.join("\n") })
    return refuse(`The body must be JSON (or JSON lines for an import): ${String((error as Error).message)}`)
  }
}

/**
 * Parses console input (doc 2 §4.3, typesense-reference §7.8): the first line is `METHOD path`, the rest is the body.
 * SQL-like input (S4.3-e, S7-f) and paths that would leave the connection's origin are refused before any request.
 */
export const parseConsoleInput = (input: string): Either.Either<ConsoleRequest, SearchConsoleRefused> => {
  const trimmed = input.trim()
  const newline = trimmed.indexOf("\n")
  const firstLine = (newline === -1 ? trimmed : trimmed.slice(0, newline)).trim()
  const rest = newline === -1 ? "" : trimmed.slice(newline + 1).trim()
  const match = /^(\S+)(?:\s+(.*))?$/.exec(firstLine)
  if (match === null) return refuse(usage)
  const word = (match[1] ?? "").toUpperCase()
  const method = consoleMethods.find((m) => m === word)
  if (method === undefined) return refuse(sqlKeywords.has(word) ? looksLikeSql : usage)
  const target = (match[2] ?? "").trim()
  const question = target.indexOf("?")
  const pathPart = question === -1 ? target : target.slice(0, question)
  // a path never holds whitespace, so `DELETE FROM books` is not sent (typesense-reference §7.8)
  if (/\s/.test(pathPart)) return refuse(looksLikeSql)
  if (/^[a-z][a-z0-9+.-]*:/i.test(pathPart) || pathPart.startsWith("//") || pathPart.includes("\\")) {
    return refuse(leavesOrigin)
  }
  const path = pathPart.startsWith("/") ? target : `/${target}`
  const segments = (question === -1 ? path : path.slice(0, path.indexOf("?"))).split("/")
  if (segments.some((segment) => segment === "." || segment === "..")) return refuse(leavesOrigin)
  if (/[\u0000-\u001f\u007f]/.test(path)) return refuse(leavesOrigin)
  return parseBody(rest).pipe(Either.map((body) => ({ method, path, body })))
}

/** Console text for a request; {@link parseConsoleInput} reads it back to the same request. */
export const formatConsoleRequest = (request: ConsoleRequest): string => {
  const head = `${request.method} ${request.path}`
  if (request.body === undefined) return head
  return request.body._tag === "Json"
    ? `${head}\n${JSON.stringify(request.body.value, null, 2)}`
    : `${head}\n${request.body.text}`
}

export type RequestTier = "safe" | "write" | "destructive"

/**
 * The approval tier of a console request (D-24): `GET`, `HEAD`, `POST /multi_search` and
 * `POST …/documents/search` are safe; other `POST`, `PUT` and `PATCH` write; `DELETE` is destructive.
 */
export const classifyConsoleRequest = (method: string, path: string): RequestTier => {
  const upper = method.toUpperCase()
  if (upper === "GET" || upper === "HEAD") return "safe"
  if (upper === "DELETE") return "destructive"
  const bare = (path.split(/[?#]/)[0] ?? "").replace(/\/+$/, "")
  if (upper === "POST" && (bare === "/multi_search" || /^\/collections\/[^/]+\/documents\/search$/.test(bare))) {
    return "safe"
  }
  return "write"
}

/** The tier of console text (D-22), or the refusal of input the console does not send (S4.3-e). */
export const classifyConsoleText = (text: string): Either.Either<RequestTier, SearchConsoleRefused> =>
  parseConsoleInput(text).pipe(Either.map((request) => classifyConsoleRequest(request.method, request.path)))
