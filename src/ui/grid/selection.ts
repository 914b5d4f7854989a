/** A cell by row and display column. */
export interface Pos {
  readonly r: number
  readonly c: number
}

/** The rectangle between the anchor and the focus, inclusive. */
export interface Range {
  readonly r0: number
  readonly r1: number
  readonly c0: number
  readonly c1: number
}

export const rangeOf = (a: Pos, b: Pos): Range => ({
  r0: Math.min(a.r, b.r),
  r1: Math.max(a.r, b.r),
  c0: Math.min(a.c, b.c),
  c1: Math.max(a.c, b.c)
})

const clamp = (pos: Pos, last: Pos): Pos => ({
  r: Math.max(0, Math.min(last.r, pos.r)),
  c: Math.max(0, Math.min(last.c, pos.c))
})

/**
 * Where a navigation key moves the focus (D-85): arrows, Tab/Shift+Tab, Home/End (row start/end; with Ctrl/Cmd the
 * first/last cell), PageUp/PageDown (a screenful), Ctrl/Cmd+arrows (to the edge). Undefined for other keys.
 */
export const step = (
  key: string,
  modifiers: { readonly mod: boolean; readonly shift: boolean },
  at: Pos,
  last: Pos,
  pageRows: number
): Pos | undefined => {
  const { mod } = modifiers
  switch (key) {
    case "ArrowUp":
      return clamp({ r: mod ? 0 : at.r - 1, c: at.c }, last)
    case "ArrowDown":
      return clamp({ r: mod ? last.r : at.r + 1, c: at.c }, last)
    case "ArrowLeft":
      return clamp({ r: at.r, c: mod ? 0 : at.c - 1 }, last)
    case "ArrowRight":
      return clamp({ r: at.r, c: mod ? last.c : at.c + 1 }, last)
    case "Tab":
      return modifiers.shift
        ? at.c > 0 ? { r: at.r, c: at.c - 1 } : clamp({ r: at.r - 1, c: last.c }, last)
        : at.c < last.c
        ? { r: at.r, c: at.c + 1 }
        : clamp({ r: at.r + 1, c: 0 }, last)
    case "Home":
      return mod ? { r: 0, c: 0 } : { r: at.r, c: 0 }
    case "End":
      return mod ? last : { r: at.r, c: last.c }
    case "PageUp":
      return clamp({ r: at.r - pageRows, c: at.c }, last)
    case "PageDown":
      return clamp({ r: at.r + pageRows, c: at.c }, last)
    default:
      return undefined
  }
}
