/**
 * Helpers for the in-memory tables that are keyed by something a caller chooses (a token, an address, a client name):
 * a Map kept in recency order (Map iterates in insertion order) and trimmed to a bound.
 */

/** Sets `key` as the most recently used entry. */
export const touch = <K, V>(entries: Map<K, V>, key: K, value: V): void => {
  entries.delete(key)
  entries.set(key, value)
}

/**
 * Once `entries` holds more than `max`, drops what `expired` says is over, then the least recently used down to three
 * quarters of `max` (so the next trims are not on every call).
 */
export const trimToBound = <K, V>(
  entries: Map<K, V>,
  max: number,
  expired: (value: V, key: K) => boolean = () => false
): void => {
  if (entries.size <= max) return
  for (const [key, value] of entries) if (expired(value, key)) entries.delete(key)
  if (entries.size <= max) return
  const keep = Math.floor((max * 3) / 4)
  for (const key of entries.keys()) {
    if (entries.size <= keep) break
    entries.delete(key)
  }
}
