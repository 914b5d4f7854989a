import { randomBytes, randomUUID } from "node:crypto"
import { Effect, Schedule } from "effect"
import { toolFailure, type ToolFailure } from "../domain/ToolErrors.ts"
import type { HeldCursor } from "./drivers/Driver.ts"
import { SettingsStore } from "./Settings.ts"

/** Open handles one caller may keep; opening one more closes its oldest. */
export const PER_CALLER = 4
/** Open handles in all; opening one more closes the oldest of anyone's. */
export const IN_ALL = 16
/**
 * Open handles on one connection: each holds a session of its pool (4 on PostgreSQL and MySQL/MariaDB), so calls keep
 * sessions to run on; on another database of the server (on PostgreSQL a pool of 2), one of those.
 */
export const PER_CONNECTION = 2
export const PER_OTHER_DATABASE = 1

export interface Continuation {
  /** Stable while the handle moves page to page (the UI closes a read by it). */
  readonly id: string
  readonly caller: string
  readonly connectionId: string
  /** The database read when it is not the connection's own (it has a smaller pool). */
  readonly database: string | undefined
  readonly cursor: HeldCursor
  readonly opened: number
  readonly maxRows: number
  /** What was read: the statement, or the table browsed. */
  readonly statement: string
  /** Rows answered so far. */
  rows: number
  used: number
  busy: boolean
}

/** Said for an unknown, expired, closed or another caller's handle alike: a handle's existence is not told. */
const NO_HANDLE =
  "no open result with this handle: it was read to the end, expired, or was closed; run the statement again"

const newHandle = () => `c_${randomBytes(18).toString("base64url")}`

/**
 * The open results of capped reads (fetch_more): each handle is bound to the caller that opened it, closed when idle
 * or old (settings limits.continuationIdleSeconds / continuationMaxSeconds), bounded per caller, per connection and in
 * all (oldest first), and every close gives its database session back.
 */
export class Continuations extends Effect.Service<Continuations>()("dbdesk/services/Continuations", {
  scoped: Effect.gen(function*() {
    const settings = yield* SettingsStore
    const open = new Map<string, Continuation>()

    const drop = (handle: string) =>
      Effect.suspend(() => {
        const entry = open.get(handle)
        open.delete(handle)
        return entry === undefined ? Effect.void : entry.cursor.close()
      })

    const oldest = (keep: (entry: Continuation) => boolean): string | undefined => {
      let found: [string, number] | undefined
      for (const [handle, entry] of open) {
        if (keep(entry) && !entry.busy && (found === undefined || entry.opened < found[1])) {
          found = [handle, entry.opened]
        }
      }
      return found?.[0]
    }

    const expired = Effect.map(settings.current, ({ limits }) => {
      const now = Date.now()
      return [...open].filter(([, entry]) =>
        !entry.busy &&
        (now - entry.used > limits.continuationIdleSeconds * 1000 ||
          now - entry.opened > limits.continuationMaxSeconds * 1000)
      ).map(([handle]) => handle)
    })
    // A close that fails (a session already lost) never stops the sweep: the handle is gone either way.
    const sweep = Effect.flatMap(
      expired,
      (handles) =>
        Effect.forEach(handles, (handle) => Effect.catchAllCause(drop(handle), () => Effect.void), { discard: true })
    )
    yield* sweep.pipe(Effect.repeat(Schedule.spaced("1 second")), Effect.forkScoped)
    yield* Effect.addFinalizer(() => Effect.forEach([...open.keys()], drop, { discard: true }))

    /** Keeps `cursor` open for `caller`, closing the oldest handles past the bounds; returns its handle. */
    const register = (
      caller: string,
      connectionId: string,
      database: string | undefined,
      cursor: HeldCursor,
      maxRows: number,
      about: { readonly statement: string; readonly rows: number } = { statement: "", rows: 0 }
    ) =>
      Effect.gen(function*() {
        const bounds: ReadonlyArray<[(entry: Continuation) => boolean, number]> = [
          [(entry) => entry.caller === caller, PER_CALLER],
          [
            (entry) => entry.connectionId === connectionId && entry.database === database,
            database === undefined ? PER_CONNECTION : PER_OTHER_DATABASE
          ],
          // MySQL/MariaDB reach every database through the connection's one pool (4 sessions): held ones stay 2 in all.
          [(entry) => entry.connectionId === connectionId, PER_CONNECTION],
          [() => true, IN_ALL]
        ]
        for (const [keep, limit] of bounds) {
          while ([...open.values()].filter(keep).length >= limit) {
            const handle = oldest(keep)
            if (handle === undefined) break
            yield* drop(handle)
          }
        }
        const handle = newHandle()
        const now = Date.now()
        open.set(handle, {
          id: randomUUID(),
          caller,
          connectionId,
          database,
          cursor,
          opened: now,
          used: now,
          maxRows,
          statement: about.statement,
          rows: about.rows,
          busy: false
        })
        return handle
      })

    /**
     * Reads the next page of `handle` for `caller` with `read`; while rows remain the result moves to a new handle
     * (the old one is spent), else the cursor is closed. A failure closes it too.
     */
    const next = <A extends { readonly more: boolean }, E>(
      caller: string,
      handle: string,
      read: (entry: Continuation) => Effect.Effect<A, E>
    ): Effect.Effect<
      { readonly page: A; readonly handle: string | undefined; readonly entry: Continuation },
      E | ToolFailure
    > =>
      Effect.gen(function*() {
        const entry = open.get(handle)
        if (entry === undefined || entry.caller !== caller) return yield* toolFailure("not_found", NO_HANDLE)
        if (entry.busy) {
          return yield* toolFailure(
            "invalid_argument",
            "another fetch_more is reading this handle; wait for its answer and use the handle it returns"
          )
        }
        entry.busy = true
        const page = yield* read(entry).pipe(
          Effect.onError(() => drop(handle)),
          Effect.ensuring(Effect.sync(() => {
            entry.busy = false
          }))
        )
        open.delete(handle)
        if (!page.more) {
          yield* entry.cursor.close()
          return { page, handle: undefined, entry }
        }
        const following = newHandle()
        entry.used = Date.now()
        open.set(following, entry)
        return { page, handle: following, entry }
      })

    /** The handles open now (tests, the UI's list): what each reads and when it ends, never the cursor. */
    const list = () =>
      Effect.map(settings.current, ({ limits }) =>
        [...open].map(([handle, entry]) => ({
          handle,
          id: entry.id,
          caller: entry.caller,
          connectionId: entry.connectionId,
          database: entry.database,
          statement: entry.statement,
          rows: entry.rows,
          opened: entry.opened,
          expires: Math.min(
            entry.used + limits.continuationIdleSeconds * 1000,
            entry.opened + limits.continuationMaxSeconds * 1000
          )
        })))

    /** Closes the read `id` names (the UI's Close); false when it is no longer open. */
    const closeById = (id: string) =>
      Effect.suspend(() => {
        const found = [...open].find(([, entry]) => entry.id === id && !entry.busy)
        return found === undefined ? Effect.succeed(false) : Effect.as(drop(found[0]), true)
      })

    return { register, next, close: drop, closeById, list, sweep } as const
  })
}) {}
