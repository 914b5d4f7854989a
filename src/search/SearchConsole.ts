import { Effect } from "effect"
import type { ConsoleOutput } from "../domain/SearchGrid.ts"
import { SearchEngineError } from "../domain/SearchErrors.ts"
import { renderConsoleResponse } from "./ConsoleRender.ts"
import { parseConsoleInput } from "./ConsoleRequest.ts"
import type { ConsoleRequest } from "./ConsoleRequest.ts"
import { engineMessage } from "./SearchClient.ts"
import type { CallOptions, EngineBody, SearchClient } from "./SearchClient.ts"

/**
 * Sends one console request (doc 2 §4.3) as its own HTTP call (S8-a) and renders the answer; a non-2xx answer fails
 * with the engine's message verbatim.
 */
export const runConsoleRequest = Effect.fn("SearchConsole.run")(function*<E = never>(
  client: SearchClient,
  request: ConsoleRequest,
  options?: CallOptions,
  /** D-65: an MCP caller's masking rules, applied to the response before it is rendered. */
  guardBody?: (body: string) => Effect.Effect<string, E>
) {
  const body: EngineBody | undefined = request.body === undefined
    ? undefined
    : request.body._tag === "Json"
    ? { _tag: "Json", value: request.body.value }
    : { _tag: "Text", text: request.body.text, contentType: "text/plain" }
  const response = yield* client.send(request.method, request.path, body, options)
  if (response.status < 200 || response.status > 299) {
    return yield* new SearchEngineError({ reason: "Status", status: response.status, message: engineMessage(response) })
  }
  const shown = guardBody === undefined ? response.body : yield* guardBody(response.body)
  const output: ConsoleOutput = renderConsoleResponse(shown, request.path)
  return output
})

/** Parses console text and runs it; refused input (SQL-like, leaving the origin) sends nothing (S4.3-e, S7-f). */
export const runConsoleInput = Effect.fn("SearchConsole.runInput")(function*(
  client: SearchClient,
  input: string,
  options?: CallOptions
) {
  const request = yield* parseConsoleInput(input)
  return yield* runConsoleRequest(client, request, options)
})
