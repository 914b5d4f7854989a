import type { KeyboardEvent, PointerEvent } from "react"

const MIN = 80
const MAX = 900
const STEP = 24
const clamp = (value: number) => Math.min(MAX, Math.max(MIN, value))

/** The bar between the editor and the results: drag it, or focus it and use the up and down arrows. */
export const SplitHandle = ({ height, onHeight }: { readonly height: number; readonly onHeight: (height: number) => void }) => {
  const drag = (event: PointerEvent<HTMLDivElement>) => {
    const start = event.clientY
    const from = height
    const target = event.currentTarget
    target.setPointerCapture(event.pointerId)
    const move = (e: globalThis.PointerEvent) => onHeight(clamp(from + e.clientY - start))
    const up = () => { target.removeEventListener("pointermove", move); target.removeEventListener("pointerup", up) }
    target.addEventListener("pointermove", move)
    target.addEventListener("pointerup", up)
  }
  const key = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === "ArrowUp") onHeight(clamp(height - STEP))
    else if (event.key === "ArrowDown") onHeight(clamp(height + STEP))
    else return
    event.preventDefault()
  }
  return (
    <div
      className="split-handle"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the editor"
      aria-valuenow={height}
      aria-valuemin={MIN}
      aria-valuemax={MAX}
      tabIndex={0}
      onPointerDown={drag}
      onKeyDown={key}
    />
  )
}
