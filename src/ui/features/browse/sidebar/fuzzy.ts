/**
 * Fuzzy matching for the sidebar search and "open anything" (D-98): every character of the query appears in the
 * text in order, case ignored. The score prefers a contiguous match, then a match at the start of a word, then a
 * shorter text; `undefined` when it does not match.
 */
export const fuzzyScore = (query: string, text: string): number | undefined => {
  const q = query.trim().toLowerCase()
  if (q === "") return 0
  const t = text.toLowerCase()
  const at = t.indexOf(q)
  if (at >= 0) return 1000 - (at === 0 || /[^a-z0-9]/.test(t[at - 1] ?? "") ? 0 : 100) - at - t.length / 100
  let score = 500
  let from = 0
  let previous = -2
  for (const ch of q) {
    const found = t.indexOf(ch, from)
    if (found < 0) return undefined
    if (found !== previous + 1) score -= 5
    if (found === 0 || /[^a-z0-9]/.test(t[found - 1] ?? "")) score += 3
    previous = found
    from = found + 1
  }
  return score - t.length / 100
}

/** `items` that match `query`, best first (their order kept among equals). */
export const fuzzyFilter = <A>(items: ReadonlyArray<A>, query: string, text: (item: A) => string): Array<A> =>
  items
    .map((item, index) => ({ item, index, score: fuzzyScore(query, text(item)) }))
    .filter((entry): entry is { item: A; index: number; score: number } => entry.score !== undefined)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.item)
