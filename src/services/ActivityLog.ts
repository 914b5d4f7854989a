import { Clock, Deferred, Effect, Fiber, Option, PubSub, Queue, type Scope, Stream } from "effect"
import {
  ACTIVITY_RETENTION_DAYS,
  type ActivityEntry,
  type ActivityEvent,
  type ActivityQuery,
  type ChainVerdict
} from "../domain/Activity.ts"
import { toCsv } from "./activity/ActivityExport.ts"
import { ActivitySink, type UnchainedActivity } from "./ActivitySink.ts"

/** The UI's CSV download and `dbdesk activity export` share one formatter (activity/ActivityExport.ts). */
export { toCsv }

/** Rows chained and written in one transaction at most. */
export const MAX_BATCH = 512

/**
 * Rows waiting for the writer at most (about 10 MB): past it `record` waits for the writer rather than dropping an
 * audit row, so a log that cannot keep up slows requests down instead of growing without end.
 */
export const MAX_PENDING_ROWS = 16_384

/** Batch statistics kept for the bench and the tests (the most recent ones). */
export const MAX_BATCH_STATS = 4096

type Pending =
  | { readonly kind: "row"; readonly row: UnchainedActivity }
  | { readonly kind: "flush"; readonly done: Deferred.Deferred<void> }

const DAY_MS = 86_400_000

/**
 * After the first row of a batch arrives the writer waits this long for more, so busy periods are
 * written a few rows per transaction. Real time on purpose (not Effect's Clock): it only delays
 * the write, never a request, and tests on TestClock still see their rows written.
 */
export const BATCH_LINGER_MS = 25
const linger = Effect.async<void>((resume) => {
  setTimeout(() => resume(Effect.void), BATCH_LINGER_MS)
})

const stamp = (event: ActivityEvent, at: string): UnchainedActivity => ({
  at,
  category: event.category,
  action: event.action,
  outcome: event.outcome ?? null,
  tokenId: event.tokenId ?? null,
  tokenName: event.tokenName ?? null,
  clientName: event.clientName ?? null,
  clientVersion: event.clientVersion ?? null,
  clientTitle: event.clientTitle ?? null,
  address: event.address ?? null,
  connectionId: event.connectionId ?? null,
  subject: event.subject ?? null,
  durationMs: event.durationMs ?? null,
  digest: event.digest ?? null,
  details: event.details ?? null,
  traceparent: event.traceparent ?? null,
  tracestate: event.tracestate ?? null,
  baggage: event.baggage ?? null
})

/**
 * The activity log (D-51). `record` only stamps the time and enqueues, so the
 * request path never waits on SQLite; a background fiber drains the queue in batches, each
 * chained and kept in one step by the ActivitySink (activity.db by default). Closing the scope writes whatever is
 * still queued. Rows older than 90 days are pruned when the log opens, anchoring the chain at the last one removed.
 */
export class ActivityLog extends Effect.Service<ActivityLog>()("dbdesk/services/ActivityLog", {
  dependencies: [ActivitySink.sqlite],
  scoped: Effect.gen(function*() {
    const sink = yield* ActivitySink
    const now = yield* Clock.currentTimeMillis
    yield* sink.prune(new Date(now - ACTIVITY_RETENTION_DAYS * DAY_MS).toISOString())
    const queue = yield* Queue.bounded<Pending>(MAX_PENDING_ROWS)
    const appended = yield* PubSub.sliding<ActivityEntry>(MAX_PENDING_ROWS)
    const batchStats: Array<{ readonly rows: number; readonly writeMs: number }> = []

    // Rows a failed batch held (a full disk): kept, up to MAX_PENDING_ROWS, and written with the next batch, so an
    // audit row is lost only when the log cannot be written for that long.
    let carried: ReadonlyArray<UnchainedActivity> = []
    let failing = false

    const write = (items: Iterable<Pending>) =>
      Effect.gen(function*() {
        const list = [...items]
        const rows = [...carried, ...list.flatMap((item) => (item.kind === "row" ? [item.row] : []))]
        if (rows.length > 0) {
          const started = performance.now()
          yield* sink.append(rows).pipe(
            Effect.tap((written) =>
              Effect.sync(() => {
                if (batchStats.length >= MAX_BATCH_STATS) batchStats.splice(0, batchStats.length - MAX_BATCH_STATS + 1)
                batchStats.push({ rows: rows.length, writeMs: performance.now() - started })
                carried = []
              }).pipe(Effect.zipRight(PubSub.publishAll(appended, written)))
            ),
            Effect.tap(() =>
              failing
                ? Effect.logInfo(`activity: written again (${rows.length} rows kept while it could not be)`)
                : Effect.void
            ),
            Effect.tap(() =>
              Effect.sync(() => {
                failing = false
              })
            ),
            Effect.catchAll((error) => {
              const dropped = Math.max(0, rows.length - MAX_PENDING_ROWS)
              carried = rows.slice(dropped)
              const warn = !failing || dropped > 0
              failing = true
              return warn
                ? Effect.logWarning(
                  `activity: ${rows.length} rows could not be written; kept to retry${
                    dropped > 0 ? `, ${dropped} oldest dropped` : ""
                  }`,
                  error
                )
                : Effect.void
            })
          )
        }
        yield* Effect.forEach(
          list,
          (item) => (item.kind === "flush" ? Deferred.succeed(item.done, undefined) : Effect.void),
          { discard: true }
        )
      })

    // Taking and writing a batch is one step: an interrupt at shutdown never drops a taken row. With rows carried
    // over from a failed batch, the writer tries again after a second even when nothing new arrives.
    const drainOnce = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const first = carried.length === 0
          ? Option.some(yield* restore(Queue.take(queue)))
          : yield* restore(Effect.timeoutOption(Queue.take(queue), "1 second"))
        yield* linger
        yield* write([...Option.toArray(first), ...(yield* Queue.takeUpTo(queue, MAX_BATCH - 1))])
      })
    )
    const writer = yield* Effect.forkScoped(Effect.forever(drainOnce))
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(Fiber.interrupt(writer), Effect.flatMap(Queue.takeAll(queue), write))
    )

    const record = (event: ActivityEvent): Effect.Effect<void> =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (millis) => Queue.offer(queue, { kind: "row", row: stamp(event, new Date(millis).toISOString()) })
      ).pipe(Effect.asVoid)

    /** Waits until every row recorded before this call is in the database. */
    const flush = Effect.gen(function*() {
      const done = yield* Deferred.make<void>()
      yield* Queue.offer(queue, { kind: "flush", done })
      yield* Deferred.await(done)
    })

    const list = Effect.fn("ActivityLog.list")(function*(query: ActivityQuery) {
      return yield* sink.query(query)
    })

    const exportCsv = Effect.fn("ActivityLog.exportCsv")(function*(query: ActivityQuery) {
      return toCsv(yield* list(query))
    })

    const verify: Effect.Effect<ChainVerdict> = Effect.zipRight(
      flush,
      Effect.zipWith(
        Effect.promise(() => import("./activity/ChainVerifier.ts")),
        sink.chain,
        ({ verifyChain }, { anchor, head, rows }) => verifyChain(rows, anchor, head)
      )
    )

    /** Size and write time of the last MAX_BATCH_STATS batches (for the note on D-51 and the bench). */
    const batches = Effect.sync(() => [...batchStats])

    /** Subscribes now to every row kept from then on, as kept (chained). */
    const subscribeAppended: Effect.Effect<Stream.Stream<ActivityEntry>, never, Scope.Scope> = Stream.fromPubSub(
      appended,
      { scoped: true }
    )

    return { record, flush, list, exportCsv, verify, batches, subscribeAppended } as const
  })
}) {}
