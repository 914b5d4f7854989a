import { useState } from "react"
import type { UiConnection } from "../domain/UiSchemas.ts"
import { useLoad } from "./api.ts"
import { BrowseView } from "./features/browse/BrowseView.tsx"
import { ConnectionsView } from "./features/connections/ConnectionsView.tsx"
import { ApprovalModal } from "./features/mcp/ApprovalModal.tsx"
import { McpView } from "./features/mcp/McpView.tsx"
import "./styles.css"

type View = { readonly name: "connections" } | { readonly name: "browse"; readonly connectionId: string } | { readonly name: "mcp" }

/** The desktop app's UI (product-decisions §9): connections, browse (grid, structure, console, search admin), MCP. */
export const App = () => {
  const [view, setView] = useState<View>({ name: "connections" })
  const connections = useLoad((client) => client.connections.list(), [])
  const open = (connection: UiConnection) => setView({ name: "browse", connectionId: connection.id })
  const browsing = view.name === "browse" ? connections.data?.find((c) => c.id === view.connectionId) : undefined
  return (
    <>
      <header className="top">
        <strong>dbdesk</strong>
        <nav aria-label="Views">
          <button aria-current={view.name === "connections" ? "page" : undefined} onClick={() => setView({ name: "connections" })}>Connections</button>
          {browsing !== undefined && <button aria-current="page">{browsing.name}</button>}
          <button aria-current={view.name === "mcp" ? "page" : undefined} onClick={() => setView({ name: "mcp" })}>MCP</button>
        </nav>
      </header>
      <main>
        {view.name === "connections" && <ConnectionsView connections={connections} onOpen={open} />}
        {view.name === "browse" && browsing !== undefined && <BrowseView key={browsing.id} connection={browsing} />}
        {view.name === "mcp" && <McpView />}
      </main>
      <ApprovalModal />
    </>
  )
}
