import { type Dispatch, type SetStateAction, useEffect, useState } from "react"

/**
 * Unsaved UI state (the open workspace, grid filters, sorts, pages and pending edits) lives in sessionStorage: it
 * survives a reload and Back/Forward in the same browser tab, stays out of other tabs and windows (two windows do not
 * fight over one workspace, nor see each other's half-done edits), and ends with the tab, so nothing unsaved lingers
 * on disk after the user closed the UI. A full or unavailable storage only loses the restore, never the state in memory.
 */
export const readSession = <A>(key: string): A | undefined => {
  try {
    const text = sessionStorage.getItem(`dbdesk:${key}`)
    return text === null ? undefined : JSON.parse(text) as A
  } catch {
    return undefined
  }
}

export const writeSession = (key: string, value: unknown): void => {
  try {
    if (value === undefined) sessionStorage.removeItem(`dbdesk:${key}`)
    else sessionStorage.setItem(`dbdesk:${key}`, JSON.stringify(value))
  } catch {
    // storage full or disabled: the state stays in memory only
  }
}

/** useState whose value is restored from, and written to, sessionStorage under `key`. */
export const useSessionState = <A>(key: string, initial: A): [A, Dispatch<SetStateAction<A>>] => {
  const [value, setValue] = useState<A>(() => readSession<A>(key) ?? initial)
  useEffect(() => writeSession(key, value), [key, value])
  return [value, setValue]
}
