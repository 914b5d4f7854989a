import { type ReactNode, useState } from "react"
import { ActivityPanel } from "./ActivityPanel.tsx"
import { ConnectClientPanel } from "./ConnectClientPanel.tsx"
import { CuratedToolsPanel } from "./CuratedToolsPanel.tsx"
import { OpenReadsPanel } from "./OpenReadsPanel.tsx"
import { PolicyExplainerPanel } from "./PolicyExplainerPanel.tsx"
import { ClientsPanel, SettingsPanel, StatusPanel } from "./ServerPanels.tsx"
import { TokensPanel } from "./TokensPanel.tsx"

/** One tab of the MCP panel; a new panel is one more entry here. */
export interface McpSection {
  readonly id: string
  readonly label: string
  readonly render: () => ReactNode
}

export const MCP_SECTIONS: ReadonlyArray<McpSection> = [
  { id: "server", label: "Server", render: () => <StatusPanel /> },
  { id: "connect", label: "Connect a client", render: () => <ConnectClientPanel /> },
  { id: "tokens", label: "Tokens", render: () => <TokensPanel /> },
  { id: "curated", label: "Curated tools", render: () => <CuratedToolsPanel /> },
  { id: "clients", label: "Connected clients", render: () => <ClientsPanel /> },
  { id: "reads", label: "Open reads", render: () => <OpenReadsPanel /> },
  { id: "activity", label: "Activity", render: () => <ActivityPanel /> },
  { id: "settings", label: "Settings", render: () => <><SettingsPanel /><PolicyExplainerPanel /></> }
]

/** MCP panel (D-60). */
export const McpView = ({ sections = MCP_SECTIONS }: { readonly sections?: ReadonlyArray<McpSection> }) => {
  const [section, setSection] = useState(sections[0]?.id ?? "server")
  const current = sections.find((entry) => entry.id === section) ?? sections[0]
  return (
    <section>
      <div className="tabs" role="tablist" aria-label="MCP">
        {sections.map((entry) => <button key={entry.id} role="tab" aria-selected={entry.id === current?.id} onClick={() => setSection(entry.id)}>{entry.label}</button>)}
      </div>
      {current?.render()}
    </section>
  )
}
