import type { UiConsoleTab } from "../../../domain/UiWorkSchemas.ts"
import { call } from "../../api.ts"

/** The event the console sends after a statement that created, altered, dropped or renamed something. */
export const SCHEMA_CHANGED = "dbdesk:schema-changed"
export interface SchemaChangedDetail {
  readonly connectionId: string
}

export const announceSchemaChanged = (connectionId: string) =>
  window.dispatchEvent(new CustomEvent<SchemaChangedDetail>(SCHEMA_CHANGED, { detail: { connectionId } }))

/** Calls `f` whenever a console changed the schema of `connectionId`; returns the unsubscribe. */
export const onSchemaChanged = (connectionId: string, f: () => void): () => void => {
  const listener = (event: Event) => {
    if ((event as CustomEvent<SchemaChangedDetail>).detail?.connectionId === connectionId) f()
  }
  window.addEventListener(SCHEMA_CHANGED, listener)
  return () => window.removeEventListener(SCHEMA_CHANGED, listener)
}

/**
 * Console tabs and their text, kept by the server per connection (so they outlive a restart of `serve` and a change of
 * browser or port). One page may show several consoles of a connection: they share this cache, and each save sends
 * the connection's whole list, debounced.
 */
const loaded = new Map<string, Promise<Map<string, UiConsoleTab>>>()
const timers = new Map<string, ReturnType<typeof setTimeout>>()
const SAVE_AFTER_MS = 400

const tabsOf = (connectionId: string) => {
  let tabs = loaded.get(connectionId)
  if (tabs === undefined) {
    tabs = call((client) => client.work.consoleTabs({ path: { id: connectionId } })).then(
      (state) => new Map(state.tabs.map((tab) => [tab.id, tab])),
      () => new Map<string, UiConsoleTab>()
    )
    loaded.set(connectionId, tabs)
  }
  return tabs
}

/** The saved text of one console tab, if any. */
export const loadConsoleText = async (connectionId: string, tabId: string): Promise<string | undefined> =>
  (await tabsOf(connectionId)).get(tabId)?.text

const scheduleSave = (connectionId: string, onError: (message: string) => void) => {
  clearTimeout(timers.get(connectionId))
  timers.set(
    connectionId,
    setTimeout(() => {
      void tabsOf(connectionId).then((tabs) =>
        call((client) =>
          client.work.saveConsoleTabs({
            path: { id: connectionId },
            payload: { tabs: [...tabs.values()], active: null }
          })
        ).then(() => onError(""), (e: Error) => onError(e.message))
      )
    }, SAVE_AFTER_MS)
  )
}

/** Keeps the text of a console tab (its title is the first words of its text). */
export const saveConsoleText = (
  connectionId: string,
  tabId: string,
  text: string,
  onError: (message: string) => void
) =>
  void tabsOf(connectionId).then((tabs) => {
    tabs.set(tabId, { id: tabId, title: text.trim().split("\n")[0]?.slice(0, 60) ?? "", text })
    scheduleSave(connectionId, onError)
  })

/** Forgets a closed console tab. */
export const forgetConsoleTab = (connectionId: string, tabId: string) =>
  void tabsOf(connectionId).then((tabs) => {
    if (tabs.delete(tabId)) scheduleSave(connectionId, () => undefined)
  })
