import { Effect } from "effect"
import type * as http from "node:http"
import { isJsonObject, type JsonObject } from "../domain/Json.ts"
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_INSTANCE_ID,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_VERSION
} from "../domain/ProtocolVersions.ts"
import type { HandshakeFile } from "../services/Handshake.ts"
import { BridgeRefusal, notRunning } from "./BridgeRefusal.ts"
import { trustHandshake } from "./HandshakeTrust.ts"
import { postUpstream, type UpstreamTarget } from "./Upstream.ts"

export const BRIDGE_CLIENT_INFO = { name: "dbdesk-mcp", version: "0.1.0" } as const

/** What the bridge keeps from `server/discover` to answer a legacy host's `initialize` itself. */
export interface DiscoveredServer {
  readonly capabilities: JsonObject
  readonly instructions: string | undefined
  readonly serverInfo: JsonObject | undefined
}

export interface Upstream {
  readonly handshake: HandshakeFile
  readonly target: UpstreamTarget
  readonly server: DiscoveredServer
}

const discoverRequest: JsonObject = {
  jsonrpc: "2.0",
  id: "dbdesk-bridge-discover",
  method: "server/discover",
  params: {
    _meta: {
      [META_PROTOCOL_VERSION]: MODERN_VERSION,
      [META_CLIENT_CAPABILITIES]: {},
      [META_CLIENT_INFO]: BRIDGE_CLIENT_INFO
    }
  }
}

/**
 * Trusts the handshake file, then proves the server behind it with `server/discover` before anything
 * is forwarded: it must list `2026-07-28` (wire contract §1, C1-c) and answer with the file's
 * instance id (D-9).
 */
export const acquireUpstream = (handshakePath: string, agent: http.Agent) =>
  Effect.gen(function*() {
    const handshake = yield* trustHandshake(handshakePath)
    const target: UpstreamTarget = { port: handshake.port, token: handshake.bridgeToken }
    const reply = yield* postUpstream(agent, target, discoverRequest, () => undefined).pipe(
      Effect.timeoutFail({
        duration: "10 seconds",
        onTimeout: () =>
          notRunning(`the server at 127.0.0.1:${handshake.port} did not answer server/discover within 10 s`)
      }),
      Effect.catchTag("UpstreamUnreachable", (error) =>
        notRunning(`${error.message}, although ${handshakePath} names it`))
    )
    const result = reply.kind === "json" && isJsonObject(reply.message) ? reply.message["result"] : undefined
    if (!isJsonObject(result)) {
      return yield* new BridgeRefusal({
        reason: "unsupported_version",
        explanation:
          `The server at 127.0.0.1:${handshake.port} did not answer server/discover (HTTP ${reply.status}), ` +
          `so it does not speak ${MODERN_VERSION}. Update dbdesk.`
      })
    }
    const versions = Array.isArray(result["supportedVersions"]) ? result["supportedVersions"] : []
    if (!versions.includes(MODERN_VERSION)) {
      return yield* new BridgeRefusal({
        reason: "unsupported_version",
        explanation:
          `The server at 127.0.0.1:${handshake.port} supports ${versions.map(String).join(", ") || "no versions"}, ` +
          `not ${MODERN_VERSION}, which the bridge needs. Update dbdesk.`
      })
    }
    const meta = isJsonObject(result["_meta"]) ? result["_meta"] : {}
    if (meta[META_INSTANCE_ID] !== handshake.instanceId) {
      return yield* new BridgeRefusal({
        reason: "instance_mismatch",
        explanation:
          `The server at 127.0.0.1:${handshake.port} did not prove it is the dbdesk instance ${handshakePath} names ` +
          `(instance ${handshake.instanceId}); refusing to send it your requests. Restart dbdesk to rewrite the handshake file.`
      })
    }
    const serverInfo = meta[META_SERVER_INFO]
    return {
      handshake,
      target,
      server: {
        capabilities: isJsonObject(result["capabilities"]) ? result["capabilities"] : {},
        instructions: typeof result["instructions"] === "string" ? result["instructions"] : undefined,
        serverInfo: isJsonObject(serverInfo) ? serverInfo : undefined
      }
    } satisfies Upstream
  })
