import { createHash } from "node:crypto"
import { ACTIVITY_FIELDS, type ActivityEntry, GENESIS_HASH } from "../../domain/Activity.ts"

/** Where the chain starts: genesis, or the last row removed by pruning (its seq and hash). */
export interface ChainAnchor {
  readonly seq: number
  readonly hash: string
}

/** The last row the writer committed; a missing or extra tail row is found against it. */
export type ChainHead = ChainAnchor

export const GENESIS: ChainAnchor = { seq: 0, hash: GENESIS_HASH }

/** SHA-256 of every field but `hash`, as a JSON array (so null, "" and separators stay distinct). */
export const hashEntry = (entry: Omit<ActivityEntry, "hash">): string =>
  createHash("sha256")
    .update(JSON.stringify(ACTIVITY_FIELDS.filter((field) => field !== "hash").map((field) => entry[field])))
    .digest("hex")

export const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex")

/** Links a batch onto `prev` (each row's `prevHash` is the row before's `hash`, `seq` counts on). */
export const chainBatch = (
  prev: ChainHead,
  batch: ReadonlyArray<Omit<ActivityEntry, "seq" | "prevHash" | "hash">>
): ReadonlyArray<ActivityEntry> => {
  const chained: Array<ActivityEntry> = []
  let link = prev
  for (const event of batch) {
    const unhashed = { ...event, seq: link.seq + 1, prevHash: link.hash }
    const entry: ActivityEntry = { ...unhashed, hash: hashEntry(unhashed) }
    chained.push(entry)
    link = entry
  }
  return chained
}
