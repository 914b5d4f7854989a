import { Clock, Data, Effect, PubSub, Queue, Schedule, type Scope, Stream } from "effect"
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import type { AccessLevel } from "../domain/Principal.ts"
import {
  summarize,
  TOKEN_PREFIX_LENGTH,
  TOKEN_VALUE_PATTERN,
  type TokenRecord,
  tokenState,
  type TokenSummary
} from "../domain/Token.ts"
import { TokenStore } from "./TokenStore.ts"

export { TokensFileInvalid } from "./TokenStore.ts"

export class TokenNotFound extends Data.TaggedError("TokenNotFound")<{ readonly id: string }> {
  override get message(): string {
    return `No token has the id ${this.id}; dbdesk token list shows the ids`
  }
}

export interface NewToken {
  readonly name: string
  readonly access: AccessLevel
  readonly connections: "all" | ReadonlyArray<string>
  readonly expiresAt?: Date | undefined
  readonly bridge?: boolean
  /** The toolset (tool names or the preset "lean"); absent, every tool. */
  readonly tools?: ReadonlyArray<string> | undefined
}

/** The outcome of checking a presented value; `valid` carries the record, never the value. */
export type Verification =
  | { readonly kind: "valid"; readonly token: TokenRecord }
  | { readonly kind: "unknown" | "revoked" | "expired" }

/** A change to the store, from this process or another (the CLI); the activity log records them. */
export interface TokenChange {
  readonly kind: "created" | "revoked" | "removed"
  readonly token: TokenSummary
}

/** D-31: `lastUsedAt` is written at most once a minute. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000
/** Uses waiting for a slow reader at most; past it the oldest go (they only feed an embedding host's events). */
const MAX_PENDING_USES = 1024
/** Tokens created or revoked by another process (the CLI) reach a running server within this. */
const RELOAD_INTERVAL = "2 seconds"

const digest = (salt: string, value: string): Buffer => createHash("sha256").update(salt + value).digest()

/** Constant-time comparison of the presented value against one stored hash (D-31). */
const matches = (record: TokenRecord, value: string): boolean => {
  const stored = Buffer.from(record.hash, "hex")
  const presented = digest(record.salt, value)
  return stored.length === presented.length && timingSafeEqual(stored, presented)
}

/** A salt no record has: a value whose prefix names no token costs one hash too, as one that does. */
const NO_RECORD_SALT = "dbdesk-no-such-token"

/**
 * The record a presented value belongs to. Only the records with its prefix (public: lists show it) are hashed, so a
 * call costs one salted SHA-256 however many tokens exist (D-84: it hashed with every record's salt in turn).
 */
const matchingRecord = (records: ReadonlyArray<TokenRecord>, value: string): TokenRecord | undefined => {
  const prefix = value.slice(0, TOKEN_PREFIX_LENGTH)
  const candidates = records.filter((token) => token.prefix === prefix)
  if (candidates.length === 0) {
    digest(NO_RECORD_SALT, value)
    return undefined
  }
  return candidates.find((token) => matches(token, value))
}

/**
 * The tokens (D-33), kept by the TokenStore port: `tokens.json` by default (0600, written
 * atomically, salted SHA-256 only). The store is re-read whenever it changes, so `dbdesk token create/revoke` in
 * another process takes effect in a running server; revocations are published so in-flight work is cancelled.
 */
export class Tokens extends Effect.Service<Tokens>()("dbdesk/services/Tokens", {
  dependencies: [TokenStore.file],
  scoped: Effect.gen(function*() {
    const store = yield* TokenStore
    const revocations = yield* PubSub.unbounded<string>()
    const changes = yield* PubSub.unbounded<TokenChange>()
    const uses = yield* PubSub.sliding<TokenSummary>(MAX_PENDING_USES)
    const lock = yield* Effect.makeSemaphore(1)
    let records: ReadonlyArray<TokenRecord> = []
    let signature = "unread"

    const live = (list: ReadonlyArray<TokenRecord>) =>
      new Set(list.filter((token) => token.revokedAt === undefined).map((token) => token.id))

    const replace = (next: ReadonlyArray<TokenRecord>) =>
      Effect.gen(function*() {
        const before = live(records)
        const previous = new Map(records.map((token) => [token.id, token]))
        records = next
        const after = live(next)
        yield* Effect.forEach([...before].filter((id) => !after.has(id)), (id) => PubSub.publish(revocations, id), {
          discard: true
        })
        const present = new Set(next.map((token) => token.id))
        const changed: Array<TokenChange> = [
          ...next.filter((token) => !previous.has(token.id)).map((token) => ({
            kind: "created" as const,
            token: summarize(token)
          })),
          ...next.filter((token) =>
            token.revokedAt !== undefined && previous.get(token.id)?.revokedAt === undefined && previous.has(token.id)
          )
            .map((token) => ({ kind: "revoked" as const, token: summarize(token) })),
          ...[...previous.values()].filter((token) => !present.has(token.id)).map((token) => ({
            kind: "removed" as const,
            token: summarize(token)
          }))
        ]
        yield* PubSub.publishAll(changes, changed)
      })

    const reload = Effect.gen(function*() {
      const current = yield* store.version
      if (current === signature) return
      yield* replace(yield* store.load)
      signature = current
    })

    const persist = (next: ReadonlyArray<TokenRecord>) =>
      Effect.gen(function*() {
        yield* store.save(next)
        yield* replace(next)
        signature = yield* store.version
      })

    /**
     * Read-modify-write under this store's lock and the file's lock, starting from what is on disk now, so a write of
     * another process (the CLI) is never overwritten.
     */
    const modify = <A>(
      change: (list: ReadonlyArray<TokenRecord>, now: number) => readonly [A, ReadonlyArray<TokenRecord>]
    ) =>
      lock.withPermits(1)(store.exclusive(Effect.gen(function*() {
        yield* reload
        const [result, next] = change(records, yield* Clock.currentTimeMillis)
        if (next !== records) yield* persist(next)
        return result
      })))

    yield* reload
    // Polled on the wall clock: under a test clock moved by a day, one poll per simulated 2 s would run 43,200
    // reloads back to back.
    yield* Effect.forkScoped(
      reload.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(RELOAD_INTERVAL)), Effect.withClock(Clock.make()))
    )

    const create = Effect.fn("Tokens.create")(function*(spec: NewToken) {
      const value = `dbd_${randomBytes(32).toString("base64url")}`
      const salt = randomBytes(16).toString("base64")
      const token = yield* modify((list, now): readonly [TokenRecord, ReadonlyArray<TokenRecord>] => {
        const record: TokenRecord = {
          id: randomUUID(),
          name: spec.name,
          prefix: value.slice(0, TOKEN_PREFIX_LENGTH),
          hash: digest(salt, value).toString("hex"),
          salt,
          access: spec.access,
          connections: spec.connections,
          createdAt: new Date(now).toISOString(),
          lastUsedAt: null,
          ...(spec.expiresAt === undefined ? {} : { expiresAt: spec.expiresAt.toISOString() }),
          bridge: spec.bridge ?? false,
          ...(spec.tools === undefined ? {} : { tools: [...spec.tools] })
        }
        return [record, [...list, record]]
      })
      return { token: summarize(token), value } as const
    })

    const list = Effect.fn("Tokens.list")(function*() {
      yield* lock.withPermits(1)(reload)
      return records.map(summarize)
    })

    const revoke = Effect.fn("Tokens.revoke")(function*(id: string) {
      const found = yield* modify((list, now) => {
        const target = list.find((token) => token.id === id)
        if (target === undefined) return [undefined, list] as const
        if (target.revokedAt !== undefined) return [target, list] as const
        const revoked: TokenRecord = { ...target, revokedAt: new Date(now).toISOString() }
        return [revoked, list.map((token) => (token.id === id ? revoked : token))] as const
      })
      if (found === undefined) return yield* new TokenNotFound({ id })
      return summarize(found)
    })

    const remove = Effect.fn("Tokens.remove")(function*(id: string) {
      const found = yield* modify((list) => {
        const target = list.find((token) => token.id === id)
        return target === undefined ? [false, list] as const : [true, list.filter((token) => token.id !== id)] as const
      })
      if (!found) return yield* new TokenNotFound({ id })
    })

    // Uses to stamp as lastUsedAt, written by one background writer, so a request never waits on the disk and the
    // first uses of many tokens at once cost one write (64 new callers queued 64 fsyncs behind the lock).
    const pendingUses = new Map<string, number>()
    const wake = yield* Queue.sliding<void>(1)
    const writeUses = modify((list) => {
      if (pendingUses.size === 0) return [undefined, list] as const
      const pending = new Map(pendingUses)
      pendingUses.clear()
      return [
        undefined,
        list.map((token) => {
          const at = pending.get(token.id)
          return at === undefined ? token : { ...token, lastUsedAt: new Date(at).toISOString() }
        })
      ] as const
    })
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(wake), Effect.ignore(writeUses))))
    yield* Effect.addFinalizer(() => Effect.ignore(writeUses))

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    /** Checks a presented value; a valid use stamps `lastUsedAt` (throttled, best effort, written in the background). */
    const verify = Effect.fnUntraced(function*(value: string) {
      // A CLI create or revoke must take effect at once: stat per request, but lock and re-read only on a change.
      if ((yield* store.version) !== signature) yield* lock.withPermits(1)(reload).pipe(Effect.ignore)
      const record = TOKEN_VALUE_PATTERN.test(value) ? matchingRecord(records, value) : undefined
      if (record === undefined) return { kind: "unknown" } satisfies Verification
      const now = yield* Clock.currentTimeMillis
      const state = tokenState(record, now)
      if (state !== "active") return { kind: state } satisfies Verification
      if (
        (record.lastUsedAt === null || now - Date.parse(record.lastUsedAt) >= LAST_USED_WRITE_INTERVAL_MS) &&
        !pendingUses.has(record.id)
      ) {
        pendingUses.set(record.id, now)
        yield* Queue.offer(wake, undefined)
      }
      yield* PubSub.publish(uses, summarize(record))
      return { kind: "valid", token: record } satisfies Verification
    })

    /** D-33: the first start with auth on and no token mints "Default". */
    const ensureDefault = Effect.fn("Tokens.ensureDefault")(function*() {
      yield* lock.withPermits(1)(reload)
      if (records.some((token) => !token.bridge)) return undefined
      return yield* create({ name: "Default", access: "readWrite", connections: "all" })
    })

    /** Subscribes now (so nothing published after this call is missed) to the ids of revoked or deleted tokens. */
    const subscribeRevocations: Effect.Effect<Stream.Stream<string>, never, Scope.Scope> = Stream.fromPubSub(
      revocations,
      { scoped: true }
    )

    /** Subscribes now to every later change of the store (created, revoked, removed). */
    const subscribeChanges: Effect.Effect<Stream.Stream<TokenChange>, never, Scope.Scope> = Stream.fromPubSub(changes, {
      scoped: true
    })

    /** Subscribes now to every later successful verification (an embedding host's "token used"). */
    const subscribeUses: Effect.Effect<Stream.Stream<TokenSummary>, never, Scope.Scope> = Stream.fromPubSub(uses, {
      scoped: true
    })

    return {
      create,
      list,
      revoke,
      remove,
      verify,
      ensureDefault,
      subscribeRevocations,
      subscribeChanges,
      subscribeUses
    } as const
  })
}) {}

export type { TokenSummary }
