import { Schema } from "effect"

/** A filter the client refuses before any request is sent (doc 2 §4.2, §7; S7-e). */
export class SearchFilterRefused extends Schema.TaggedError<SearchFilterRefused>()("SearchFilterRefused", {
  message: Schema.String,
  column: Schema.optionalWith(Schema.String, { exact: true })
}) {}

/** Console input the client refuses before any request is sent (doc 2 §4.3 point 5; S4.3-e, S7-f). */
export class SearchConsoleRefused extends Schema.TaggedError<SearchConsoleRefused>()("SearchConsoleRefused", {
  message: Schema.String
}) {}

/** A grid edit the client refuses before any request, such as a change to the read-only `id` (S2.2-b). */
export class SearchEditRefused extends Schema.TaggedError<SearchEditRefused>()("SearchEditRefused", {
  message: Schema.String
}) {}

/**
 * A request whose path the URL standard would rewrite (a `.` or `..` segment, even percent-encoded, or a backslash), so
 * it would reach another resource than the one named; refused before sending. A document id `..` cannot be addressed.
 */
export class SearchPathRefused extends Schema.TaggedError<SearchPathRefused>()("SearchPathRefused", {
  message: Schema.String,
  path: Schema.String
}) {}

/**
 * A failed engine call. `message` is the engine's own `message` verbatim (D-58, doc 2 §7); `status` is
 * absent when the engine was not reached.
 */
export class SearchEngineError extends Schema.TaggedError<SearchEngineError>()("SearchEngineError", {
  reason: Schema.Literal("Status", "Transport", "Decode"),
  message: Schema.String,
  status: Schema.optionalWith(Schema.Int, { exact: true })
}) {}

/** The MCP tool error code for an engine failure (D-58, Errors row). */
export const searchErrorCode = (
  error: SearchEngineError
): "denied" | "not_found" | "invalid_argument" | "not_connected" | "query_failed" => {
  if (error.reason === "Transport") return "not_connected"
  switch (error.status) {
    case 401:
    case 403:
      return "denied"
    case 404:
      return "not_found"
    case 400:
    case 422:
      return "invalid_argument"
    default:
      return "query_failed"
  }
}
