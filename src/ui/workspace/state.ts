import { type Route, type TabRef, tabId, tabOfId } from "./route.ts"

/** One open connection: its tabs in order (ids from {@link tabId}), the one shown, and how many consoles it opened. */
export interface OpenConnection {
  readonly id: string
  readonly tabs: ReadonlyArray<string>
  readonly active: string | undefined
  readonly consoles: number
  /** Data or Structure, per table tab. */
  readonly views?: Readonly<Record<string, "data" | "structure">>
}

export type OpenConnections = ReadonlyArray<OpenConnection>

/** A table's Data and Structure share one tab; a console tab is `console:<n>`. */
export const tabIdOf = (
  tab: TabRef
): string => (tab.kind === "structure" ? tabId({ ...tab, kind: "table", name: tab.name ?? "" }) : tabId(tab))

export const routeOfTab = (connectionId: string, id: string, connection?: OpenConnection): Route => {
  const tab = tabOfId(id)
  const view = connection?.views?.[id]
  return {
    view: "connection",
    connectionId,
    tab: tab.kind === "table" && view === "structure" ? { ...tab, kind: "structure", name: tab.name ?? "" } : tab
  }
}

const fresh = (id: string, search: boolean): OpenConnection => ({
  id,
  tabs: ["console:1", ...(search ? ["users", "dashboard"] : [])],
  active: undefined,
  consoles: 1
})

/** The workspace after the address changed to `route`: the named connection and tab are opened when they were not. */
export const applyRoute = (open: OpenConnections, route: Route, isSearch: (id: string) => boolean): OpenConnections => {
  if (route.view !== "connection") return open
  const existing = open.find((c) => c.id === route.connectionId)
  const base = existing ?? fresh(route.connectionId, isSearch(route.connectionId))
  let next = base
  if (route.tab !== undefined) {
    const id = tabIdOf(route.tab)
    const consoleNumber = route.tab.kind === "console" ? Number(route.tab.name) : 0
    next = {
      ...base,
      tabs: base.tabs.includes(id) ? base.tabs : [...base.tabs, id],
      active: id,
      consoles: Number.isFinite(consoleNumber) ? Math.max(base.consoles, consoleNumber) : base.consoles,
      ...(route.tab.kind === "table" || route.tab.kind === "structure"
        ? { views: { ...base.views, [id]: route.tab.kind === "structure" ? "structure" as const : "data" as const } }
        : {})
    }
  }
  if (existing === next) return open
  return existing === undefined ? [...open, next] : open.map((c) => (c.id === next.id ? next : c))
}

export const closeTab = (
  open: OpenConnections,
  connectionId: string,
  id: string
): { readonly open: OpenConnections; readonly active: string | undefined } => {
  const connection = open.find((c) => c.id === connectionId)
  if (connection === undefined) return { open, active: undefined }
  const index = connection.tabs.indexOf(id)
  const tabs = connection.tabs.filter((t) => t !== id)
  const active = connection.active === id ? tabs[Math.min(index, tabs.length - 1)] : connection.active
  const { [id]: _, ...views } = connection.views ?? {}
  return { open: open.map((c) => (c.id === connectionId ? { ...c, tabs, active, views } : c)), active }
}

export const moveTab = (open: OpenConnections, connectionId: string, id: string, to: number): OpenConnections =>
  open.map((c) => {
    if (c.id !== connectionId) return c
    const tabs = c.tabs.filter((t) => t !== id)
    tabs.splice(Math.max(0, Math.min(tabs.length, to)), 0, id)
    return { ...c, tabs }
  })

/** A tab's title; a tab on another database than the connection's names it (D-98). */
export const tabLabel = (id: string): string => {
  const tab = tabOfId(id)
  const on = tab.database === undefined ? "" : ` (${tab.database})`
  if (tab.kind === "console") return `${tab.name === "1" ? "Console" : `Console ${tab.name ?? ""}`}${on}`
  if (tab.kind === "users") return "Users & Roles"
  if (tab.kind === "dashboard") return "Server Dashboard"
  return `${tab.name ?? ""}${on}`
}
