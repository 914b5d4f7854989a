import { Effect, Either } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { isJsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { isLegacyVersion } from "../../domain/ProtocolVersions.ts"
import { SERVER_INSTRUCTIONS } from "../../domain/ServerInfo.ts"
import { ServerIdentity } from "../../services/ServerIdentity.ts"
import type { McpMethod } from "../McpMethod.ts"
import { SupportedVersions } from "../SupportedVersions.ts"

/**
 * Wire contract §6 point 3 for a legacy client (C6-c, C9-d): `resources.subscribe` is false,
 * since `subscriptions/listen` is modern-only; `logging` because `logging/setLevel` is answered.
 */
export const LEGACY_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: true },
  prompts: { listChanged: false },
  completions: {},
  logging: {}
} as const

/**
 * Wire contract §3.3 / §9: `initialize` accepts exactly `2025-11-25` and `2025-06-18`; any other
 * version, `2025-03-26` included (it needs batching), is -32022 with `data.supported` (C3.3-b).
 */
export const negotiateLegacyVersion = (
  params: JsonObject,
  supported: ReadonlyArray<string>
): Either.Either<string, ProtocolError> => {
  const requested = params["protocolVersion"]
  if (typeof requested === "string" && isLegacyVersion(requested)) return Either.right(requested)
  return Either.left(ProtocolError.of(
    -32022,
    `Unsupported protocol version ${
      JSON.stringify(requested ?? null)
    }: initialize with 2025-11-25 or 2025-06-18, or send 2026-07-28 requests without initialize`,
    { supported: [...supported], ...(typeof requested === "string" ? { requested } : {}) }
  ))
}

/** Wire contract §3.3 (C3.3-a): the legacy handshake; the session itself is opened by the legacy gate. */
export const InitializeMethod = Effect.gen(function*() {
  const identity = yield* ServerIdentity
  const versions = yield* SupportedVersions
  return {
    name: "initialize",
    eras: ["legacy"],
    scopes: [],
    prepare: (context) =>
      Effect.map(
        negotiateLegacyVersion(context.params, versions.current()),
        (protocolVersion) =>
          Effect.succeed<JsonObject>({
            protocolVersion,
            capabilities: LEGACY_CAPABILITIES,
            serverInfo: {
              name: identity.serverInfo.name,
              version: identity.serverInfo.version,
              title: identity.serverInfo.title
            },
            instructions: SERVER_INSTRUCTIONS
          })
      )
  } satisfies McpMethod
})

/** The `clientInfo` a legacy client names itself with at `initialize`, if well-formed. */
export const legacyClientInfo = (params: JsonObject) => {
  const info = params["clientInfo"]
  if (!isJsonObject(info) || typeof info["name"] !== "string") return undefined
  const version = typeof info["version"] === "string" ? info["version"] : ""
  return typeof info["title"] === "string"
    ? { name: info["name"], version, title: info["title"] }
    : { name: info["name"], version }
}
