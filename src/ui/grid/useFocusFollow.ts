import type { Virtualizer } from "@tanstack/react-virtual"
import { type Dispatch, type RefObject, type SetStateAction, useEffect, useRef } from "react"
import type { Pos } from "./selection.ts"

/**
 * Where the grid's focus goes when what it shows changes: back to the first row on a new page, sort or filter; along
 * with the records when rows are added or removed above them; onto a requested cell (a row just added).
 */
export const useFocusFollow = ({ scrollKey, topRows, focusRequest, scrollRef, rowV, setFocus, setAnchor }: {
  readonly scrollKey: string | undefined
  readonly topRows: number
  readonly focusRequest: { readonly r: number; readonly c: number; readonly n: number } | undefined
  readonly scrollRef: RefObject<HTMLDivElement | null>
  readonly rowV: Virtualizer<HTMLDivElement, Element>
  readonly setFocus: Dispatch<SetStateAction<Pos>>
  readonly setAnchor: Dispatch<SetStateAction<Pos>>
}) => {
  // a new page, sort or filter starts at the first row, not where the previous one was scrolled to
  useEffect(() => {
    if (scrollKey === undefined) return
    if (scrollRef.current !== null) scrollRef.current.scrollTop = 0
    setFocus((f) => ({ r: 0, c: f.c }))
    setAnchor((a) => ({ r: 0, c: a.c }))
  }, [scrollKey])
  // rows added above (or removed from above) move the selection with the records it was on
  const previousTop = useRef(topRows)
  useEffect(() => {
    const delta = topRows - previousTop.current
    previousTop.current = topRows
    if (delta === 0) return
    setFocus((f) => ({ r: Math.max(0, f.r + delta), c: f.c }))
    setAnchor((a) => ({ r: Math.max(0, a.r + delta), c: a.c }))
  }, [topRows])
  useEffect(() => {
    if (focusRequest === undefined) return
    const pos = { r: focusRequest.r, c: focusRequest.c }
    setFocus(pos)
    setAnchor(pos)
    rowV.scrollToIndex(pos.r)
    scrollRef.current?.focus({ preventScroll: true })
  }, [focusRequest?.n])
}
