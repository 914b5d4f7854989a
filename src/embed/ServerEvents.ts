import type { ActivityEntry, ConnectedClient } from "../domain/Activity.ts"
import type { ApprovalRequest } from "../domain/Approval.ts"
import type { TokenSummary } from "../domain/Token.ts"

/** What a host's own UI can follow live (D-77): names may be added, none is removed or changes its payload. */
export interface ServerEventMap {
  /** A dialog waits for the user: the host's `approve` is called with the same request, and the UI shows it too. */
  readonly "approval.asked": ApprovalRequest
  /** A dialog ended: the answer, or `no_response` when the request ended first (deadline, cancel, client gone). */
  readonly "approval.answered": { readonly id: string; readonly decision: "approved" | "denied" | "no_response" }
  /** A client seen for the first time in the connected-clients window (D-52: 5 minutes). */
  readonly "client.connected": ConnectedClient
  /** A row of the activity log as kept, hash-chained (D-51); never a statement text or a secret. */
  readonly "activity.appended": ActivityEntry
  /** A token authenticated a request (the bridge's rotating token included, named "bridge"). */
  readonly "token.used": TokenSummary
}

export type ServerEventName = keyof ServerEventMap

export type ServerEventListener<E extends ServerEventName> = (payload: ServerEventMap[E]) => void

export interface ServerEvents {
  /** Calls `listener` for every later event of that name, in order; returns the function that stops it. */
  readonly on: <E extends ServerEventName>(event: E, listener: ServerEventListener<E>) => () => void
  readonly off: <E extends ServerEventName>(event: E, listener: ServerEventListener<E>) => void
}

/**
 * The events of one embedded server. Listeners run synchronously as events arrive; one that throws is reported
 * through `onListenerError` and the others still run, so a host's bug never stops the server or its events.
 */
export const makeServerEvents = (onListenerError: (event: ServerEventName, error: unknown) => void) => {
  const listeners = new Map<ServerEventName, Set<(payload: never) => void>>()
  const off = <E extends ServerEventName>(event: E, listener: ServerEventListener<E>) => {
    listeners.get(event)?.delete(listener)
  }
  const events: ServerEvents = {
    on: (event, listener) => {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener)
      return () => off(event, listener)
    },
    off
  }
  const emit = <E extends ServerEventName>(event: E, payload: ServerEventMap[E]) => {
    for (const listener of [...(listeners.get(event) ?? [])] as Array<ServerEventListener<E>>) {
      try {
        listener(payload)
      } catch (error) {
        onListenerError(event, error)
      }
    }
  }
  return { events, emit } as const
}
