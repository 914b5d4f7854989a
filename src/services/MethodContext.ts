import type { Effect } from "effect"
import type { JsonObject } from "../domain/Json.ts"
import type { RequestId } from "../domain/JsonRpc.ts"
import type { Principal } from "../domain/Principal.ts"
import type { ClientInfo, Era, ModernEnvelope } from "../domain/RequestEnvelope.ts"

/**
 * Everything a method handler may know about its request. It lives below `http` because the services that handle a
 * request (tools, approvals, activity) take it, and the dispatcher in `http` builds it.
 */
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
