import { randomBytes } from "node:crypto"
import type { RequestId } from "../domain/JsonRpc.ts"

const keyOf = (id: RequestId) => `${typeof id}:${id}`

/**
 * Upstream request ids unique per bridge process (D-38): every
 * bridge authenticates as the one principal `bridge`, so two hosts' `1`s must never meet upstream.
 */
export class IdMap {
  private next = 0
  private readonly running = new Map<string, Array<string>>()

  constructor(private readonly prefix: string = `dbdesk-mcp-${randomBytes(6).toString("hex")}`) {}

  issue(hostId: RequestId): string {
    const upstreamId = `${this.prefix}-${this.next++}`
    const key = keyOf(hostId)
    this.running.set(key, [...(this.running.get(key) ?? []), upstreamId])
    return upstreamId
  }

  /** The upstream id of the host's running request with this id (the latest, if the host reused it). */
  upstreamFor(hostId: RequestId): string | undefined {
    return this.running.get(keyOf(hostId))?.at(-1)
  }

  release(hostId: RequestId, upstreamId: string): void {
    const key = keyOf(hostId)
    const left = (this.running.get(key) ?? []).filter((id) => id !== upstreamId)
    if (left.length === 0) this.running.delete(key)
    else this.running.set(key, left)
  }

  get size(): number {
    return this.running.size
  }
}

/** Turns the text of one upstream message back into what the host would read over HTTP. */
export type IdRestorer = (text: string) => string

/**
 * C1-c: the server names a request by the id it received, wherever it names one: the response's `id`, the
 * subscription id in `_meta` of a listen acknowledgement, its notifications and its graceful result, an error's
 * `data.requestId`. The host must read its own id in each of those places, so every JSON string token equal to the
 * upstream id is replaced before the text is parsed. Upstream ids are random per bridge process and never contain a
 * quote or a backslash, so the quoted form matches a whole string token and nothing else.
 */
export const restoreHostId = (upstreamId: string, hostId: RequestId): IdRestorer => {
  const quoted = JSON.stringify(upstreamId)
  const replacement = JSON.stringify(hostId)
  return (text) => (text.includes(quoted) ? text.replaceAll(quoted, replacement) : text)
}
