/** mulberry32: a small, fast, seedable generator, so the same seed always gives the same sequence. */
export const makeRandom = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(0, items.length - 1)]!
  return { next, int, pick }
}
