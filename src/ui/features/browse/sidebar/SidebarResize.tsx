import { type ReactNode, useEffect, useRef, useState } from "react"

const KEY = "dbdesk:sidebarWidth"
const MIN = 160
const MAX = 640
const DEFAULT = 240

const clamp = (width: number) => Math.round(Math.max(MIN, Math.min(MAX, width)))

const storedWidth = () => {
  const value = Number(localStorage.getItem(KEY))
  return Number.isFinite(value) && value > 0 ? clamp(value) : DEFAULT
}

/**
 * The sidebar with a drag handle on its right edge (D-98): drag it, or focus it and press Left/Right (Shift: larger
 * steps); the width is this browser's preference, kept across reloads and shared by every connection's sidebar.
 */
export const ResizableSidebar = ({ label, children }: { readonly label: string; readonly children: ReactNode }) => {
  const [width, setWidth] = useState(storedWidth)
  const drag = useRef<{ readonly x: number; readonly width: number } | undefined>(undefined)
  useEffect(() => {
    localStorage.setItem(KEY, String(width))
  }, [width])
  useEffect(() => {
    // another sidebar (another connection) changed the shared width
    const onStorage = () => setWidth(storedWidth())
    window.addEventListener("dbdesk:sidebar-width", onStorage)
    return () => window.removeEventListener("dbdesk:sidebar-width", onStorage)
  }, [])
  const set = (next: number) => {
    setWidth(clamp(next))
    localStorage.setItem(KEY, String(clamp(next)))
    window.dispatchEvent(new Event("dbdesk:sidebar-width"))
  }
  return (
    <aside className="sidebar tree-sidebar" aria-label={label} style={{ width }}>
      <div className="sidebar-body">{children}</div>
      <div
        className="sidebar-handle"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize the sidebar"
        aria-valuemin={MIN}
        aria-valuemax={MAX}
        aria-valuenow={width}
        tabIndex={0}
        title="Drag, or press Left/Right, to resize the sidebar"
        onPointerDown={(event) => {
          event.preventDefault()
          event.currentTarget.setPointerCapture(event.pointerId)
          drag.current = { x: event.clientX, width }
        }}
        onPointerMove={(event) => {
          if (drag.current !== undefined) set(drag.current.width + event.clientX - drag.current.x)
        }}
        onPointerUp={() => { drag.current = undefined }}
        onKeyDown={(event) => {
          const step = event.shiftKey ? 64 : 16
          if (event.key === "ArrowLeft") set(width - step)
          else if (event.key === "ArrowRight") set(width + step)
          else return
          event.preventDefault()
        }}
      />
    </aside>
  )
}
