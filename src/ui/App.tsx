import { useCallback, useEffect, useMemo, useState } from "react"
import { useLoad } from "./api.ts"
import { BrowseView, type TabActions } from "./features/browse/BrowseView.tsx"
import { ConnectionsView } from "./features/connections/ConnectionsView.tsx"
import { ApprovalModal } from "./features/mcp/ApprovalModal.tsx"
import { McpView } from "./features/mcp/McpView.tsx"
import { PairingView } from "./features/pairing/PairingView.tsx"
import { PrefsProvider } from "./shell/Prefs.tsx"
import { useShortcutsOverlay } from "./shell/Shortcuts.tsx"
import { LeaveGuardProvider, useLeaveGuard } from "./workspace/LeaveGuard.tsx"
import { formatRoute, parseRoute, type Route, tabOfId } from "./workspace/route.ts"
import { useSessionState } from "./workspace/sessionState.ts"
import { applyRoute, closeTab, moveTab, type OpenConnections, routeOfTab } from "./workspace/state.ts"
import { forgetConsoleTab } from "./features/console/consoleStore.ts"
import { ConnectionMark } from "./features/connections/ConnectionMark.tsx"
import { OpenAnything } from "./features/browse/sidebar/OpenAnything.tsx"
import { chosenDatabase } from "./features/browse/sidebar/catalogStore.ts"
import "./styles.css"

/** The address is the source of truth for what is shown; a new view is a history entry, so Back and Forward work. */
const useRoute = () => {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash))
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash))
    window.addEventListener("hashchange", onChange)
    window.addEventListener("popstate", onChange)
    return () => {
      window.removeEventListener("hashchange", onChange)
      window.removeEventListener("popstate", onChange)
    }
  }, [])
  const go = useCallback((next: Route, replace = false) => {
    const hash = formatRoute(next)
    const url = location.pathname === "/pair" ? `/${hash}` : hash
    if (hash !== location.hash || url !== hash) {
      if (replace) history.replaceState(null, "", url)
      else history.pushState(null, "", url)
    }
    setRoute(next)
  }, [])
  return [route, go] as const
}

const Shell = () => {
  const [route, go] = useRoute()
  const [pairing, setPairing] = useState(location.pathname === "/pair")
  const connections = useLoad((client) => client.connections.list(), [])
  const [open, setOpen] = useSessionState<OpenConnections>("workspace", [])
  const shortcuts = useShortcutsOverlay()
  const guard = useLeaveGuard()
  const known = connections.data
  const isSearch = useCallback((id: string) => known?.find((c) => c.id === id)?.type === "search", [known])

  // the address names a connection or a tab: open it (a link, Back/Forward or reload lands on the same view)
  useEffect(() => {
    if (known === undefined || route.view !== "connection" || !known.some((c) => c.id === route.connectionId)) return
    setOpen((current) => applyRoute(current, route, isSearch))
    if (route.tab === undefined) {
      const state = open.find((c) => c.id === route.connectionId)
      if (state?.active !== undefined) go(routeOfTab(route.connectionId, state.active, state), true)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [route, known])

  const navigate = (next: Route) => {
    setPairing(false)
    go(next)
  }
  const openConnection = (id: string) => {
    const state = open.find((c) => c.id === id)
    navigate(state?.active === undefined ? { view: "connection", connectionId: id } : routeOfTab(id, state.active, state))
  }

  const closeConnection = async (id: string) => {
    if (!await guard.confirmLeave(`${id}/`, (key) => go(routeOfTab(id, key.slice(id.length + 1))))) return
    const rest = open.filter((c) => c.id !== id)
    setOpen(rest)
    if (route.view === "connection" && route.connectionId === id) {
      const other = rest[rest.length - 1]
      go(other === undefined ? { view: "connections" } : other.active === undefined ? { view: "connection", connectionId: other.id } : routeOfTab(other.id, other.active, other), true)
    }
  }

  const actionsFor = (id: string): TabActions & { select: (tab: string) => void; setView: (tab: string, view: "data" | "structure") => void } => {
    const state = open.find((c) => c.id === id)
    const select = (tab: string) => go(routeOfTab(id, tab, state))
    return {
      open: (tab) => go({ view: "connection", connectionId: id, tab }),
      newConsole: (_text, on = chosenDatabase(id)) => go({ view: "connection", connectionId: id, tab: { kind: "console", name: String((state?.consoles ?? 0) + 1), ...on } }),
      close: (tab) => void (async () => {
        if (!await guard.confirmLeave(`${id}/${tab}`, () => select(tab))) return
        const next = closeTab(open, id, tab)
        // a closed console's text is not kept for the next start
        if (tabOfId(tab).kind === "console") forgetConsoleTab(id, tab)
        setOpen(next.open)
        const after = next.open.find((c) => c.id === id)
        go(next.active === undefined ? { view: "connection", connectionId: id } : routeOfTab(id, next.active, after), true)
      })(),
      move: (tab, to) => setOpen((current) => moveTab(current, id, tab, to)),
      select,
      setView: (tab, view) => {
        setOpen((current) => current.map((c) => (c.id === id ? { ...c, views: { ...c.views, [tab]: view } } : c)))
        go(routeOfTab(id, tab, { ...(state ?? { id, tabs: [], active: tab, consoles: 0 }), views: { ...state?.views, [tab]: view } }))
      }
    }
  }

  const shownConnection = !pairing && route.view === "connection" ? route.connectionId : undefined
  const openKnown = useMemo(() => open.flatMap((state) => {
    const connection = known?.find((c) => c.id === state.id)
    return connection === undefined ? [] : [{ state, connection }]
  }), [open, known])
  const openConnections = useMemo(() => openKnown.map(({ connection }) => connection), [openKnown])

  return (
    <div className="app">
      <header className="top">
        <strong>dbdesk</strong>
        <nav aria-label="Views">
          <button aria-current={!pairing && route.view === "connections" ? "page" : undefined} onClick={() => navigate({ view: "connections" })}>Connections</button>
          {openKnown.map(({ connection }) => (
            <span key={connection.id} className="nav-connection">
              <button aria-current={shownConnection === connection.id ? "page" : undefined} onClick={() => openConnection(connection.id)}><ConnectionMark connection={connection} />{connection.name}</button>
              <button className="nav-close" title={`Close ${connection.name}`} onClick={() => void closeConnection(connection.id)}>×</button>
            </span>
          ))}
          <button aria-current={!pairing && route.view === "mcp" ? "page" : undefined} onClick={() => navigate({ view: "mcp" })}>MCP</button>
        </nav>
        <span style={{ flex: 1 }} />
        <button className="ghost" onClick={shortcuts.show} title="Keyboard shortcuts (?)">Shortcuts</button>
      </header>
      <main>
        {pairing
          ? <PairingView params={new URLSearchParams(location.search)} />
          : <>
            {route.view === "connections" && <ConnectionsView connections={connections} onOpen={(c) => openConnection(c.id)} />}
            {route.view === "mcp" && <McpView />}
            {route.view === "connection" && known !== undefined && !known.some((c) => c.id === route.connectionId) && (
              <p className="error" role="alert">This connection does not exist any more. Choose one under Connections.</p>
            )}
          </>}
        {openKnown.map(({ state, connection }) => {
          const actions = actionsFor(connection.id)
          return <BrowseView key={connection.id} connection={connection} state={state} visible={shownConnection === connection.id} actions={actions} select={actions.select} setView={actions.setView} />
        })}
      </main>
      <ApprovalModal />
      <OpenAnything connections={openConnections} shown={shownConnection} />
      {shortcuts.overlay}
    </div>
  )
}

/** The desktop app's UI (D-60): connections, browse (grid, structure, console, search admin), MCP, pairing. */
export const App = () => (
  <PrefsProvider>
    <LeaveGuardProvider>
      <Shell />
    </LeaveGuardProvider>
  </PrefsProvider>
)
