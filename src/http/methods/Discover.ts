import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { META_INSTANCE_ID } from "../../domain/ProtocolVersions.ts"
import { SERVER_INSTRUCTIONS } from "../../domain/ServerInfo.ts"
import { ServerIdentity } from "../../services/ServerIdentity.ts"
import { SupportedVersions } from "../SupportedVersions.ts"
import type { McpMethod } from "../McpMethod.ts"

/** Wire contract §2.5: `server/discover` takes only `_meta`, needs no scope (§4.3, C4.3-e). */
export const DiscoverMethod = Effect.gen(function*() {
  const identity = yield* ServerIdentity
  const versions = yield* SupportedVersions
  return {
    name: "server/discover",
    eras: ["modern"],
    scopes: [],
    cacheHint: () => ({ ttlMs: 3_600_000, cacheScope: "public" }),
    prepare: () =>
      Effect.succeed(Effect.sync((): JsonObject => ({
        supportedVersions: [...versions.current()],
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: false },
          completions: {},
          extensions: {}
        },
        instructions: SERVER_INSTRUCTIONS,
        _meta: {
          "io.modelcontextprotocol/serverInfo": { ...identity.serverInfo },
          [META_INSTANCE_ID]: identity.instanceId
        }
      })))
  } satisfies McpMethod
})
