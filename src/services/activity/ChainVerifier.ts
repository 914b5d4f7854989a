import type { ActivityEntry, ChainVerdict } from "../../domain/Activity.ts"
import { type ChainAnchor, type ChainHead, hashEntry } from "./ActivityChain.ts"

// The verifier runs only on demand (`dbdesk activity verify`, the UI's check): its own module, so the
// server loads it on first use, not at start (D-76).

const describe = (entry: ActivityEntry): string => `row ${entry.seq} (${entry.at} ${entry.action})`

/**
 * Walks the rows in seq order from the anchor and names the first one that was edited, inserted
 * or deleted (D-51). A row whose content
 * no longer matches its own hash was edited, unless it hashes under a shifted seq (rows were
 * renumbered around an inserted or deleted one); a row whose link skips back two rows follows an
 * inserted one; a gap in seq is a deleted one; the head catches a removed or added last row.
 */
export const verifyChain = (
  rows: ReadonlyArray<ActivityEntry>,
  anchor: ChainAnchor,
  head: ChainHead | undefined
): ChainVerdict => {
  let prev = anchor
  let beforePrev: ChainAnchor | undefined
  for (const row of rows) {
    const expectedSeq = prev.seq + 1
    if (hashEntry(row) !== row.hash) {
      if (hashEntry({ ...row, seq: row.seq - 1 }) === row.hash) {
        return {
          ok: false,
          problem: "inserted",
          seq: row.seq - 1,
          message: `row ${row.seq - 1} was inserted: ${describe(row)} was renumbered after it`
        }
      }
      if (hashEntry({ ...row, seq: row.seq + 1 }) === row.hash) {
        return {
          ok: false,
          problem: "deleted",
          seq: row.seq,
          message: `a row was deleted before ${describe(row)}, which was renumbered`
        }
      }
      return {
        ok: false,
        problem: "edited",
        seq: row.seq,
        message: `${describe(row)} was edited: its content no longer matches its hash`
      }
    }
    if (row.seq > expectedSeq) {
      return {
        ok: false,
        problem: "deleted",
        seq: expectedSeq,
        message: `row ${expectedSeq} was deleted: ${describe(row)} follows row ${prev.seq}`
      }
    }
    if (row.seq < expectedSeq) {
      return {
        ok: false,
        problem: "inserted",
        seq: row.seq,
        message: `${describe(row)} was inserted before the start of the chain (row ${prev.seq})`
      }
    }
    if (row.prevHash !== prev.hash) {
      if (beforePrev !== undefined && row.prevHash === beforePrev.hash) {
        return {
          ok: false,
          problem: "inserted",
          seq: prev.seq,
          message: `row ${prev.seq} was inserted: ${describe(row)} links to row ${beforePrev.seq}`
        }
      }
      if (beforePrev === undefined) {
        return {
          ok: false,
          problem: "edited",
          seq: row.seq,
          message: `${describe(row)} was edited: it no longer links to the start of the chain`
        }
      }
      return {
        ok: false,
        problem: "edited",
        seq: prev.seq,
        message: `row ${prev.seq} was edited: ${describe(row)} no longer links to it`
      }
    }
    beforePrev = prev
    prev = { seq: row.seq, hash: row.hash }
  }
  if (head !== undefined) {
    if (prev.seq < head.seq) {
      return {
        ok: false,
        problem: "deleted",
        seq: prev.seq + 1,
        message: `row ${
          prev.seq + 1
        } was deleted: the log ends at row ${prev.seq}, the writer last wrote row ${head.seq}`
      }
    }
    if (prev.seq > head.seq) {
      return {
        ok: false,
        problem: "inserted",
        seq: head.seq + 1,
        message: `row ${head.seq + 1} was inserted after the last row the writer wrote (row ${head.seq})`
      }
    }
    if (prev.hash !== head.hash) {
      return {
        ok: false,
        problem: "edited",
        seq: prev.seq,
        message: `row ${prev.seq} was edited: its hash differs from the one the writer recorded`
      }
    }
  }
  return { ok: true, rows: rows.length }
}
