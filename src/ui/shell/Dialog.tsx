import { type ReactNode, useEffect, useRef } from "react"

/** A modal dialog: focus moves in, Escape closes it. */
export const Dialog = ({ title, onClose, children, wide }: { readonly title: string; readonly onClose: () => void; readonly children: ReactNode; readonly wide?: boolean }) => {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null
    ref.current?.querySelector<HTMLElement>("[data-autofocus], button")?.focus()
    return () => previous?.focus?.()
  }, [])
  return (
    <div className="modal-back" onKeyDown={(event) => { if (event.key === "Escape") { event.stopPropagation(); onClose() } }}>
      <div ref={ref} className={`modal${wide === true ? " wide" : ""}`} role="dialog" aria-modal="true" aria-label={title}>
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  )
}
