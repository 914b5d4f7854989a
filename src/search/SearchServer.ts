import { Effect, Schema } from "effect"
import { SearchEngineError } from "../domain/SearchErrors.ts"
import { EngineCollection } from "./CollectionSchema.ts"
import { engineMessage } from "./SearchClient.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"

/** The oldest engine version supported (doc 2 §9, S9-a). */
export const minimumEngineMajor = 26

export interface ServerInfo {
  /** From `GET /debug`; absent when the key may not read it. */
  readonly version: string | undefined
  readonly warnings: ReadonlyArray<string>
}

/** The major version of a version string (`"29.0"` → 29, `"0.25.2"` → 0), or undefined. */
export const engineMajor = (version: string): number | undefined => {
  const match = /^v?(\d+)/.exec(version.trim())
  return match?.[1] === undefined ? undefined : Number(match[1])
}

const DebugInfo = Schema.parseJson(Schema.Struct({ version: Schema.String }))

const isOk = (status: number) => status >= 200 && status <= 299

/**
 * Connecting (D-54): reachability by `GET /health` (needs no key), then the engine version by
 * `GET /debug` when the key allows it; a version below 26.0 is a warning, not a failure.
 */
export const connect = Effect.fn("SearchServer.connect")(function*(client: SearchClient, options?: CallOptions) {
  const health = yield* client.send("GET", "/health", undefined, options)
  if (!isOk(health.status)) {
    return yield* new SearchEngineError({
      reason: "Status",
      status: health.status,
      message: `Typesense at ${client.settings.origin} is not ready: ${engineMessage(health)}`
    })
  }
  const warnings: Array<string> = []
  const debug = yield* client.send("GET", "/debug", undefined, options)
  let version: string | undefined
  if (isOk(debug.status)) {
    const decoded = yield* Schema.decodeUnknown(DebugInfo)(debug.body).pipe(Effect.option)
    version = decoded._tag === "Some" ? decoded.value.version : undefined
  } else {
    warnings.push(`The engine version is unknown: GET /debug answered ${engineMessage(debug)}`)
  }
  const major = version === undefined ? undefined : engineMajor(version)
  if (version !== undefined && (major === undefined || major < minimumEngineMajor)) {
    warnings.push(`Typesense ${version} is older than 26.0, the oldest version dbdesk supports; some reads may fail.`)
  }
  const info: ServerInfo = { version, warnings }
  return info
})

export interface CollectionListing {
  readonly collections: ReadonlyArray<EngineCollection>
  /** Why nothing is listed, when the engine refused the listing (S2.1-c). */
  readonly unavailableReason: string | undefined
}

/**
 * The sidebar (S4-a): `GET /collections`. A key without `collections:list` gets 401 from the engine; the connection
 * still works and lists nothing, with the engine's message as the reason (doc 2 §2.1, D-54).
 */
export const listCollections = Effect.fn("SearchServer.listCollections")(function*(
  client: SearchClient,
  options?: CallOptions
) {
  const response = yield* client.send("GET", "/collections", undefined, options)
  if (response.status === 401 || response.status === 403) {
    const listing: CollectionListing = {
      collections: [],
      unavailableReason: `${
        engineMessage(response)
      } This API key cannot list collections: it needs the collections:list action (or collections:*).`
    }
    return listing
  }
  if (!isOk(response.status)) {
    return yield* new SearchEngineError({ reason: "Status", status: response.status, message: engineMessage(response) })
  }
  const collections = yield* client.decode(Schema.parseJson(Schema.Array(EngineCollection)), response.body)
  const listing: CollectionListing = { collections, unavailableReason: undefined }
  return listing
})
