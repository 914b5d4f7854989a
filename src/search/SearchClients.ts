import { Effect, Exit, Redacted, Scope } from "effect"
import { SearchConnectionSettings } from "../domain/SearchConnection.ts"
import type { SearchCluster, SearchSslMode } from "../domain/SearchConnection.ts"
import { SearchEngineError } from "../domain/SearchErrors.ts"
import { makeSearchClient } from "./SearchClient.ts"
import type { SearchClient } from "./SearchClient.ts"

/** The fields of a saved search connection that make its client (doc 2 §2.1; the cluster, D-59). */
export interface SearchConnectionFields extends SearchCluster {
  readonly host: string
  readonly port: number
  readonly apiKey: Redacted.Redacted<string>
  readonly sslMode: SearchSslMode
  readonly skipTlsVerification: boolean
}

const clusterOf = (fields: SearchConnectionFields): SearchCluster => ({
  ...(fields.nodes === undefined ? {} : { nodes: fields.nodes }),
  ...(fields.nearestNode === undefined ? {} : { nearestNode: fields.nearestNode }),
  ...(fields.healthcheckIntervalSeconds === undefined
    ? {}
    : { healthcheckIntervalSeconds: fields.healthcheckIntervalSeconds }),
  ...(fields.numRetries === undefined ? {} : { numRetries: fields.numRetries }),
  ...(fields.retryIntervalSeconds === undefined ? {} : { retryIntervalSeconds: fields.retryIntervalSeconds }),
  ...(fields.connectionTimeoutSeconds === undefined
    ? {}
    : { connectionTimeoutSeconds: fields.connectionTimeoutSeconds }),
  ...(fields.randomizeNodes === undefined ? {} : { randomizeNodes: fields.randomizeNodes })
})

const sameSettings = (a: SearchConnectionFields, b: SearchConnectionFields) =>
  a.host === b.host && a.port === b.port && a.sslMode === b.sslMode &&
  a.skipTlsVerification === b.skipTlsVerification && Redacted.value(a.apiKey) === Redacted.value(b.apiKey) &&
  JSON.stringify(clusterOf(a)) === JSON.stringify(clusterOf(b))

interface OpenClient {
  readonly fields: SearchConnectionFields
  readonly client: SearchClient
  readonly scope: Scope.CloseableScope
}

/**
 * One client (and one undici dispatcher) per search connection id, replaced when the connection's fields change and
 * closed on `close` or at shutdown. Skip TLS stays with its own connection's dispatcher (D-15).
 */
export class SearchClients extends Effect.Service<SearchClients>()("dbdesk/search/SearchClients", {
  scoped: Effect.gen(function*() {
    const open = new Map<string, OpenClient>()
    const lock = yield* Effect.makeSemaphore(1)

    const closeEntry = (entry: OpenClient | undefined) =>
      entry === undefined ? Effect.void : Scope.close(entry.scope, Exit.void)

    const close = Effect.fn("SearchClients.close")(function*(connectionId: string) {
      const entry = open.get(connectionId)
      open.delete(connectionId)
      yield* closeEntry(entry)
    })

    const clientFor = Effect.fn("SearchClients.clientFor")(function*(
      connectionId: string,
      fields: SearchConnectionFields
    ) {
      return yield* lock.withPermits(1)(Effect.gen(function*() {
        const existing = open.get(connectionId)
        if (existing !== undefined && sameSettings(existing.fields, fields)) return existing.client
        yield* close(connectionId)
        const settings = yield* Effect.try({
          try: () =>
            new SearchConnectionSettings({
              host: fields.host,
              port: fields.port,
              apiKey: fields.apiKey,
              sslMode: fields.sslMode,
              skipTlsVerification: fields.skipTlsVerification,
              cluster: clusterOf(fields)
            }),
          catch: (error) =>
            new SearchEngineError({
              reason: "Transport",
              message: `The connection settings cannot be used: ${
                error instanceof Error ? error.message : String(error)
              }`
            })
        })
        const scope = yield* Scope.make()
        const client = yield* makeSearchClient(settings).pipe(Scope.extend(scope))
        open.set(connectionId, { fields, client, scope })
        return client
      }))
    })

    yield* Effect.addFinalizer(() => Effect.forEach([...open.keys()], close, { discard: true }))
    return { clientFor, close } as const
  })
}) {}
