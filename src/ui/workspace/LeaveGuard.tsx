import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react"
import { Dialog } from "../shell/Dialog.tsx"

/** A view with unsaved changes: how many, how to save them (opens its Save dialog) and how to drop them. */
export interface DirtyEntry {
  readonly label: string
  readonly count: number
  readonly save: () => void
  readonly discard: () => void
}

type Choice = "save" | "discard" | "cancel"

interface Guard {
  readonly register: (key: string, entry: DirtyEntry | undefined) => void
  /**
   * Before leaving the views whose key starts with `prefix`: proceeds at once when none has unsaved changes, otherwise
   * asks Save / Discard / Cancel. Save opens the first one's Save dialog and does not leave; Discard drops them and leaves.
   */
  readonly confirmLeave: (prefix: string, onSave: (key: string) => void) => Promise<boolean>
}

const GuardContext = createContext<Guard | undefined>(undefined)

export const useLeaveGuard = (): Guard => {
  const guard = useContext(GuardContext)
  if (guard === undefined) throw new Error("useLeaveGuard outside LeaveGuardProvider")
  return guard
}

/** Registers a view's unsaved changes under `key` while it has some. */
export const useDirty = (key: string, entry: DirtyEntry | undefined) => {
  const { register } = useLeaveGuard()
  useEffect(() => register(key, entry), [key, entry, register])
  useEffect(() => () => register(key, undefined), [key, register])
}

/**
 * Nothing unsaved is lost without asking: closing a tab or a connection asks in the app, and leaving or reloading the
 * page asks through the browser's own prompt (browsers show their own words there; none can offer Save).
 */
export const LeaveGuardProvider = ({ children }: { readonly children: ReactNode }) => {
  const entries = useRef(new Map<string, DirtyEntry>())
  const [asking, setAsking] = useState<{ readonly items: ReadonlyArray<readonly [string, DirtyEntry]>; readonly answer: (choice: Choice) => void }>()

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if ([...entries.current.values()].some((entry) => entry.count > 0)) {
        event.preventDefault()
        event.returnValue = ""
      }
    }
    window.addEventListener("beforeunload", onBeforeUnload)
    return () => window.removeEventListener("beforeunload", onBeforeUnload)
  }, [])

  const register = useCallback((key: string, entry: DirtyEntry | undefined) => {
    if (entry === undefined || entry.count === 0) entries.current.delete(key)
    else entries.current.set(key, entry)
  }, [])

  const confirmLeave = useCallback(async (prefix: string, onSave: (key: string) => void) => {
    const items = [...entries.current.entries()].filter(([key, entry]) => key.startsWith(prefix) && entry.count > 0)
    if (items.length === 0) return true
    const choice = await new Promise<Choice>((answer) => setAsking({ items, answer }))
    setAsking(undefined)
    if (choice === "discard") {
      for (const [, entry] of items) entry.discard()
      return true
    }
    if (choice === "save") {
      const [key, entry] = items[0]!
      onSave(key)
      entry.save()
    }
    return false
  }, [])

  const guard = useMemo(() => ({ register, confirmLeave }), [register, confirmLeave])
  const total = asking?.items.reduce((sum, [, entry]) => sum + entry.count, 0) ?? 0
  return (
    <GuardContext.Provider value={guard}>
      {children}
      {asking !== undefined && (
        <Dialog title="Unsaved changes" onClose={() => asking.answer("cancel")}>
          <p>{total} unsaved change{total === 1 ? "" : "s"} would be lost:</p>
          <ul>{asking.items.map(([key, entry]) => <li key={key}>{entry.label}: {entry.count} change{entry.count === 1 ? "" : "s"}</li>)}</ul>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button data-autofocus onClick={() => asking.answer("cancel")}>Cancel</button>
            <button className="danger" onClick={() => asking.answer("discard")}>Discard</button>
            <button className="primary" onClick={() => asking.answer("save")}>Save…</button>
          </div>
        </Dialog>
      )}
    </GuardContext.Provider>
  )
}
