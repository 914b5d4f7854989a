import type { Effect, Stream } from "effect"
import type { JsonObject } from "../domain/Json.ts"
import type { Scope } from "../domain/Principal.ts"
import type { ProtocolError } from "../domain/ProtocolErrors.ts"
import type { Era } from "../domain/RequestEnvelope.ts"
import type { CacheScope } from "../domain/ServerInfo.ts"
import type { MethodContext } from "../services/MethodContext.ts"

export type { MethodContext } from "../services/MethodContext.ts"

export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: CacheScope
}

/** The work of a request, run after the response has started (D-26). */
export type Execution = Effect.Effect<JsonObject, ProtocolError>

/**
 * A method that answers with its own long-lived SSE stream (`subscriptions/listen`, interop §5):
 * the frames are sent as they come (`data: …` lines or `:` comments), with no request slot, no
 * handler deadline and no result envelope — the stream writes its own final response, if any.
 */
export class StreamingExecution {
  constructor(readonly frames: Stream.Stream<string>) {}
}

export interface McpMethod {
  readonly name: string
  readonly eras: ReadonlyArray<Era>
  /** Wire contract §4.3: scopes the caller must hold; tool-specific scopes are checked by the tool. */
  readonly scopes: ReadonlyArray<Scope>
  /** Wire contract §4.4: only the six cacheable methods set this. */
  readonly cacheHint?: (params: JsonObject, result: JsonObject) => CacheHint
  /**
   * A method whose successful result is the same for every request with this key (and era) sets this: the result
   * is then encoded once and sent as those bytes again (D-84). Undefined for a request that must run.
   */
  readonly answerKey?: (context: MethodContext) => string | undefined
  /**
   * Validation and every gate that may answer with a non-200 status happen here, before the
   * response commits (D-25); the returned Execution runs inside it.
   */
  readonly prepare: (context: MethodContext) => Effect.Effect<Execution | StreamingExecution, ProtocolError>
}
