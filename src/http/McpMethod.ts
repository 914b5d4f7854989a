import type { Effect, Stream } from "effect"
import type { JsonObject } from "../domain/Json.ts"
import type { RequestId } from "../domain/JsonRpc.ts"
import type { Principal, Scope } from "../domain/Principal.ts"
import type { ProtocolError } from "../domain/ProtocolErrors.ts"
import type { ClientInfo, Era, ModernEnvelope } from "../domain/RequestEnvelope.ts"
import type { CacheScope } from "../domain/ServerInfo.ts"

export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: CacheScope
}

/** Everything a method handler may know about its request. */
export interface MethodContext {
  readonly id: RequestId
  readonly method: string
  readonly params: JsonObject
  readonly era: Era
  readonly envelope: ModernEnvelope | undefined
  readonly principal: Principal
  /** Who the client says it is: `_meta` clientInfo, or the legacy session's from `initialize` (§2.2). */
  readonly clientInfo: ClientInfo | undefined
  readonly remoteAddress: string
  /**
   * Wire contract §4.1/§2.7: reports progress on the SSE stream of a request that carried a
   * `progressToken`; a no-op otherwise. A non-advancing value is dropped here, for every tool.
   */
  readonly progress: (progress: number, message: string) => Effect.Effect<void>
}

/** The work of a request, run after the response has started (product-decisions §3.2). */
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
   * is then encoded once and sent as those bytes again (issue 33). Undefined for a request that must run.
   */
  readonly answerKey?: (context: MethodContext) => string | undefined
  /**
   * Validation and every gate that may answer with a non-200 status happen here, before the
   * response commits (product-decisions §3.2 "Order of gates"); the returned Execution runs inside it.
   */
  readonly prepare: (context: MethodContext) => Effect.Effect<Execution | StreamingExecution, ProtocolError>
}
