import { useState } from "react"
import type { UiConnection } from "../domain/UiSchemas.ts"
import { useLoad } from "./api.ts"
import { BrowseView } from "./features/browse/BrowseView.tsx"
import { ConnectionsView } from "./features/connections/ConnectionsView.tsx"
import { ApprovalModal } from "./features/mcp/ApprovalModal.tsx"
import { McpView } from "./features/mcp/McpView.tsx"
import { PairingView } from "./features/pairing/PairingView.tsx"
import { PrefsProvider } from "./shell/Prefs.tsx"
import { useShortcutsOverlay } from "./shell/Shortcuts.tsx"
import "./styles.css"

type View = { readonly name: "connections" } | { readonly name: "browse"; readonly connectionId: string } | { readonly name: "mcp" }

const Shell = () => {
  const [view, setView] = useState<View>({ name: "connections" })
  const connections = useLoad((client) => client.connections.list(), [])
  const shortcuts = useShortcutsOverlay()
  const pairing = location.pathname === "/pair"
  const open = (connection: UiConnection) => setView({ name: "browse", connectionId: connection.id })
  const browsing = view.name === "browse" ? connections.data?.find((c) => c.id === view.connectionId) : undefined
  return (
    <>
      <header className="top">
        <strong>dbdesk</strong>
        <nav aria-label="Views">
          <button aria-current={!pairing && view.name === "connections" ? "page" : undefined} onClick={() => { if (pairing) history.pushState(null, "", "/"); setView({ name: "connections" }) }}>Connections</button>
          {browsing !== undefined && <button aria-current="page">{browsing.name}</button>}
          <button aria-current={!pairing && view.name === "mcp" ? "page" : undefined} onClick={() => { if (pairing) history.pushState(null, "", "/"); setView({ name: "mcp" }) }}>MCP</button>
        </nav>
        <span style={{ flex: 1 }} />
        <button className="ghost" onClick={shortcuts.show} title="Keyboard shortcuts (?)">Shortcuts</button>
      </header>
      <main>
        {pairing
          ? <PairingView params={new URLSearchParams(location.search)} />
          : <>
            {view.name === "connections" && <ConnectionsView connections={connections} onOpen={open} />}
            {view.name === "browse" && browsing !== undefined && <BrowseView key={browsing.id} connection={browsing} />}
            {view.name === "mcp" && <McpView />}
          </>}
      </main>
      <ApprovalModal />
      {shortcuts.overlay}
    </>
  )
}

/** The desktop app's UI (product-decisions §9): connections, browse (grid, structure, console, search admin), MCP, pairing. */
export const App = () => (
  <PrefsProvider>
    <Shell />
  </PrefsProvider>
)
