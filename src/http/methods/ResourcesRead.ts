import { Effect, Either } from "effect"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { HostCatalog } from "../../services/resources/HostCatalog.ts"
import { ResourceReader } from "../../services/resources/ResourceReader.ts"
import { parseResourceUri, RESOURCE_TTL_MS } from "../../services/resources/ResourceUris.ts"
import type { McpMethod } from "../McpMethod.ts"

/**
 * Wire contract §4.3/§4.4/§7.1 and D-47: `resources/read` needs `resources:read`;
 * the TTL depends on the URI (always `private`); hidden connections are -33007 and resources that
 * do not exist -32602 (C7.1-b). The read happens before the response commits, so every one of
 * those errors keeps its HTTP status even when a progressToken asked for SSE. A URI an embedding
 * host serves (exactly, or under one of its templates) is read by the host.
 */
export const ResourcesReadMethod = Effect.gen(function*() {
  const reader = yield* ResourceReader
  const host = yield* HostCatalog
  const hosted = (uri: string) => host.resource(uri) ?? host.template(uri)?.template
  return {
    name: "resources/read",
    eras: ["modern", "legacy"],
    scopes: ["resources:read"],
    cacheHint: (params) => {
      const uri = params["uri"]
      const served = typeof uri === "string" ? hosted(uri) : undefined
      if (served !== undefined) return { ttlMs: served.ttlMs ?? 0, cacheScope: "private" }
      const ref = typeof uri === "string" ? Either.getOrUndefined(parseResourceUri(uri)) : undefined
      return { ttlMs: ref === undefined ? 0 : RESOURCE_TTL_MS[ref.kind], cacheScope: "private" }
    },
    prepare: (context) =>
      Effect.gen(function*() {
        const uri = context.params["uri"]
        if (typeof uri !== "string") {
          return yield* ProtocolError.invalidParams("params.uri must be a resource URI from resources/list")
        }
        const resource = host.resource(uri)
        const templated = resource === undefined ? host.template(uri) : undefined
        const result = resource !== undefined
          ? yield* resource.read(context)
          : templated !== undefined
          ? yield* templated.template.read(uri, templated.variables, context)
          : yield* reader.read(context.principal, uri)
        return Effect.succeed(result)
      })
  } satisfies McpMethod
})
