import { Effect } from "effect"
import type { JsonObject } from "../domain/Json.ts"
import type { Principal } from "../domain/Principal.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import type { LegacySession, LegacySessions } from "../services/LegacySessions.ts"
import type { McpHttpRequest, McpHttpResponse } from "./McpHttp.ts"
import { legacyClientInfo, negotiateLegacyVersion } from "./methods/Initialize.ts"

export interface LegacyAdmission {
  readonly session: LegacySession
  /** Response headers: `Mcp-Session-Id` on the answer to `initialize`, nothing otherwise. */
  readonly headers: Record<string, string>
}

const sessionNotFound = (detail: string) =>
  ProtocolError.of(-33001, `Session not found: ${detail}; send initialize to open a new session`)

/** D-45: the 16 sessions belong to callers this one may not evict (LegacySessions' policy). */
const sessionsFull = (held: number) =>
  new ProtocolError({
    code: -33000,
    message:
      `All ${held} legacy sessions are held by other clients with the same or more access: retry later, initialize with a token of more access, or send 2026-07-28 requests (no session needed)`,
    data: { reason: "legacy_sessions_full", held },
    headers: { "retry-after": "60" }
  })

/**
 * Wire contract §3.3 and D-30, D-45, run after
 * the principal is resolved: `initialize` opens a session bound to that principal and answers its
 * id; any other legacy request needs the id of a live session of the same principal, else 404
 * -33001 so the client initialises again (C3.3-c/d/f). Unknown and foreign ids get the same
 * answer, so a session's existence is not revealed to another principal.
 */
export const admitLegacy = (
  sessions: LegacySessions,
  supportedVersions: ReadonlyArray<string>,
  http: McpHttpRequest,
  request: { readonly method: string; readonly params: JsonObject },
  principal: Principal
): Effect.Effect<LegacyAdmission, ProtocolError> =>
  Effect.gen(function*() {
    if (request.method === "initialize") {
      const version = yield* negotiateLegacyVersion(request.params, supportedVersions)
      const session = yield* sessions.create(principal, version, legacyClientInfo(request.params)).pipe(
        Effect.catchTag("LegacySessionsFull", (full) => Effect.fail(sessionsFull(full.held)))
      )
      return { session, headers: { "mcp-session-id": session.id } }
    }
    const sessionId = http.headers["mcp-session-id"]
    if (sessionId === undefined || sessionId === "") {
      return yield* sessionNotFound("this request carries no Mcp-Session-Id")
    }
    const session = yield* sessions.use(sessionId, principal.key).pipe(
      Effect.mapError(() => sessionNotFound("no live session has this Mcp-Session-Id"))
    )
    // The session fixes the negotiated revision; a header naming another one disagrees with it.
    const header = http.headers["mcp-protocol-version"]
    if (header !== undefined && header !== session.protocolVersion) {
      return yield* ProtocolError.headerMismatch(
        `MCP-Protocol-Version ${header} disagrees with the ${session.protocolVersion} negotiated at initialize`,
        {
          header: "MCP-Protocol-Version",
          expected: session.protocolVersion
        }
      )
    }
    return { session, headers: {} }
  })

export const withHeaders = (response: McpHttpResponse, headers: Record<string, string>): McpHttpResponse =>
  Object.keys(headers).length === 0 ? response : { ...response, headers: { ...response.headers, ...headers } }
