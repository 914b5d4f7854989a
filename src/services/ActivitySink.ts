import { Context, Data, Effect, Layer } from "effect"
import type { ActivityEntry, ActivityQuery } from "../domain/Activity.ts"
import { type ChainAnchor, chainBatch, type ChainHead, GENESIS } from "./activity/ActivityChain.ts"
import { openActivityStore } from "./activity/ActivityStore.ts"
import { FileStoreError } from "./AtomicFile.ts"
import { SupportPaths } from "./SupportPaths.ts"

/** A row as recorded: the sink adds `seq`, `prevHash` and `hash` when it chains it. */
export type UnchainedActivity = Omit<ActivityEntry, "seq" | "prevHash" | "hash">

export class ActivityWriteFailed extends Data.TaggedError("ActivityWriteFailed")<{ readonly cause: unknown }> {
  override get message(): string {
    return `The activity rows could not be kept: ${
      this.cause instanceof Error ? this.cause.message : String(this.cause)
    }`
  }
}

/** What `activity verify` walks: every row in order, the anchor left by pruning, the last row written. */
export interface ActivityChainState {
  readonly rows: ReadonlyArray<ActivityEntry>
  readonly anchor: ChainAnchor
  readonly head: ChainHead | undefined
}

export interface ActivitySinkShape {
  /**
   * Chains a batch onto the last row kept (`seq` counts on, `prevHash` is that row's `hash`; `chainBatch` does it) and
   * keeps it in one step, all or nothing; answers the rows as kept.
   */
  readonly append: (
    batch: ReadonlyArray<UnchainedActivity>
  ) => Effect.Effect<ReadonlyArray<ActivityEntry>, ActivityWriteFailed>
  /** D-51: drops the rows before the cutoff and anchors the chain at the last one dropped. */
  readonly prune: (cutoffIso: string) => Effect.Effect<void>
  /** The rows the filter selects, newest first, at most `limit`. */
  readonly query: (filter: ActivityQuery) => Effect.Effect<ReadonlyArray<ActivityEntry>>
  readonly chain: Effect.Effect<ActivityChainState>
}

const selects = (filter: ActivityQuery) => (entry: ActivityEntry): boolean =>
  (filter.since === undefined || entry.at >= filter.since) &&
  (filter.until === undefined || entry.at < filter.until) &&
  (filter.category === undefined || entry.category === filter.category) &&
  (filter.tokenId === undefined || entry.tokenId === filter.tokenId) &&
  (filter.client === undefined || entry.clientName === filter.client || entry.clientTitle === filter.client)

/**
 * Where the activity log keeps its hash-chained rows (D-51). `ActivityLog` owns recording, batching
 * and retention; this port only keeps rows.
 */
export class ActivitySink extends Context.Tag("dbdesk/services/ActivitySink")<ActivitySink, ActivitySinkShape>() {
  /** `activity.db` in the support directory (0600, WAL), which `dbdesk activity list|export|verify` read. */
  static readonly sqlite = Layer.scoped(
    ActivitySink,
    Effect.gen(function*() {
      const { activity: path } = yield* SupportPaths
      // A log that cannot open (disk full, unreadable file) stops the start with a message naming the file (D-88).
      const opening = Effect.try({
        try: () => openActivityStore(path),
        catch: (cause) => new FileStoreError({ path, operation: "write", cause })
      })
      const store = yield* Effect.acquireRelease(Effect.orDie(opening), (opened) => Effect.sync(() => opened.close()))
      return {
        append: (batch) =>
          Effect.try({ try: () => store.append(batch), catch: (cause) => new ActivityWriteFailed({ cause }) }),
        prune: (cutoffIso) => Effect.sync(() => void store.prune(cutoffIso)),
        query: (filter) => Effect.sync(() => store.query(filter)),
        chain: Effect.sync(() => ({ rows: store.all(), anchor: store.anchor(), head: store.head() }))
      } satisfies ActivitySinkShape
    })
  )

  /** Kept in this process only, gone at stop: for a host that keeps its own audit trail from the activity events. */
  static readonly memory = () =>
    Layer.sync(ActivitySink, (): ActivitySinkShape => {
      let rows: ReadonlyArray<ActivityEntry> = []
      let anchor = GENESIS
      let head: ChainHead | undefined
      return {
        append: (batch) =>
          Effect.sync(() => {
            const written = chainBatch(head ?? anchor, batch)
            rows = [...rows, ...written]
            const last = written.at(-1)
            if (last !== undefined) head = { seq: last.seq, hash: last.hash }
            return written
          }),
        prune: (cutoffIso) =>
          Effect.sync(() => {
            const edge = rows.findLast((entry) => entry.at < cutoffIso)
            if (edge === undefined) return
            rows = rows.filter((entry) => entry.seq > edge.seq)
            anchor = { seq: edge.seq, hash: edge.hash }
          }),
        query: (filter) => Effect.sync(() => rows.filter(selects(filter)).reverse().slice(0, filter.limit)),
        chain: Effect.sync(() => ({ rows, anchor, head }))
      }
    })
}
