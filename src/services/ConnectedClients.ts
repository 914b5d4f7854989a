import { Clock, Data, Effect, PubSub, type Scope, Stream } from "effect"
import { createHash } from "node:crypto"
import type { ConnectedClient } from "../domain/Activity.ts"
import type { Principal } from "../domain/Principal.ts"
import type { ClientInfo } from "../domain/RequestEnvelope.ts"
import { Tokens } from "./Tokens.ts"

/** D-52: a client is listed while it was seen in the last 5 minutes. */
export const CONNECTED_WINDOW_MS = 5 * 60_000
/** Entries held at most (as the reference client's ledger, reference §8); the least recently seen go first. */
export const MAX_CONNECTED_CLIENTS = 200

export class ClientNotFound extends Data.TaggedError("ClientNotFound")<{ readonly id: string }> {
  override get message(): string {
    return `No connected client has the id ${this.id}; it may not have been seen in the last 5 minutes`
  }
}

export class AnonymousClient extends Data.TaggedError("AnonymousClient")<{ readonly id: string }> {
  override get message(): string {
    return "This client uses no token (anonymous loopback), so there is nothing to revoke; turn on mcp.requireAuth instead"
  }
}

interface Sighting {
  readonly principal: Principal
  readonly clientInfo: ClientInfo | undefined
  readonly address: string
}

const UNKNOWN_CLIENT = "Unknown client"

/**
 * Connected clients (D-52, C2.2-d): one entry per (clientInfo name and version,
 * token, address) seen in the last 5 minutes, with first and last seen read from Effect's Clock.
 * The token part is the principal's key, so the bridge stays one client across rotations.
 * Disconnect revokes the entry's token, which cancels its in-flight requests (wire contract §5 point 9).
 */
export class ConnectedClients extends Effect.Service<ConnectedClients>()("dbdesk/services/ConnectedClients", {
  effect: Effect.gen(function*() {
    const tokens = yield* Tokens
    /** By id; the entry without its times, which are kept as numbers and written out when listed. */
    const entries = new Map<
      string,
      { entry: Omit<ConnectedClient, "firstSeenAt" | "lastSeenAt">; firstSeen: number; lastSeen: number }
    >()
    /** Id of each (name, version, principal, address) seen: the hash is taken once per client, not per request. */
    const ids = new Map<string, string>()
    const arrivals = yield* PubSub.sliding<ConnectedClient>(MAX_CONNECTED_CLIENTS)

    const expire = (now: number) => {
      for (const [id, { lastSeen }] of entries) if (now - lastSeen > CONNECTED_WINDOW_MS) entries.delete(id)
    }

    const withTimes = (
      { entry, firstSeen, lastSeen }: {
        readonly entry: Omit<ConnectedClient, "firstSeenAt" | "lastSeenAt">
        readonly firstSeen: number
        readonly lastSeen: number
      }
    ): ConnectedClient => ({
      ...entry,
      firstSeenAt: new Date(firstSeen).toISOString(),
      lastSeenAt: new Date(lastSeen).toISOString()
    })

    const seen = (sighting: Sighting): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const name = sighting.clientInfo?.name ?? UNKNOWN_CLIENT
        const version = sighting.clientInfo?.version ?? ""
        const key = JSON.stringify([name, version, sighting.principal.key, sighting.address])
        let id = ids.get(key)
        if (id === undefined) {
          id = createHash("sha256").update(key).digest("hex").slice(0, 16)
          ids.set(key, id)
        }
        const previous = entries.get(id)
        const title = sighting.clientInfo?.title ?? null
        entries.delete(id)
        const next = {
          lastSeen: now,
          firstSeen: previous?.firstSeen ?? now,
          entry: previous !== undefined && previous.entry.clientTitle === title ? previous.entry : {
            id,
            clientName: name,
            clientVersion: version,
            clientTitle: title,
            principalKey: sighting.principal.key,
            tokenId: sighting.principal.tokenId ?? null,
            tokenName: sighting.principal.tokenName ?? null,
            address: sighting.address
          }
        }
        entries.set(id, next)
        if (entries.size > MAX_CONNECTED_CLIENTS) entries.delete(entries.keys().next().value!)
        // The id table only ever holds ids of listed clients (and of the few just dropped).
        if (ids.size > 2 * MAX_CONNECTED_CLIENTS) {
          for (const [known, value] of ids) if (!entries.has(value)) ids.delete(known)
        }
        return previous === undefined || now - previous.lastSeen > CONNECTED_WINDOW_MS
          ? PubSub.publish(arrivals, withTimes(next))
          : Effect.void
      })

    /** The clients seen in the last 5 minutes, most recently seen first. */
    const list = Effect.map(Clock.currentTimeMillis, (now) => {
      expire(now)
      return [...entries.values()]
        .map(withTimes)
        .reverse()
    })

    const disconnect = Effect.fn("ConnectedClients.disconnect")(function*(id: string) {
      expire(yield* Clock.currentTimeMillis)
      const found = entries.get(id)
      if (found === undefined) return yield* new ClientNotFound({ id })
      const tokenId = found.entry.tokenId
      if (tokenId === null) return yield* new AnonymousClient({ id })
      const revoked = yield* tokens.revoke(tokenId)
      for (const [key, { entry }] of entries) if (entry.tokenId === tokenId) entries.delete(key)
      return revoked
    })

    /** Subscribes now to every client that is seen for the first time in the window (an embedding host's "client connected"). */
    const subscribeArrivals: Effect.Effect<Stream.Stream<ConnectedClient>, never, Scope.Scope> = Stream.fromPubSub(
      arrivals,
      { scoped: true }
    )

    return { seen, list, disconnect, subscribeArrivals } as const
  })
}) {}
