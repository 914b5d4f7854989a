import { useState } from "react"
import { ActivityPanel } from "./ActivityPanel.tsx"
import { PolicyExplainerPanel } from "./PolicyExplainerPanel.tsx"
import { ClientsPanel, SettingsPanel, StatusPanel } from "./ServerPanels.tsx"
import { TokensPanel } from "./TokensPanel.tsx"

const SECTIONS = [["server", "Server"], ["tokens", "Tokens"], ["clients", "Connected clients"], ["activity", "Activity"], ["settings", "Settings"]] as const
type Section = (typeof SECTIONS)[number][0]

/** MCP panel (product-decisions §9 point 5). */
export const McpView = () => {
  const [section, setSection] = useState<Section>("server")
  return (
    <section>
      <div className="tabs" role="tablist">
        {SECTIONS.map(([id, label]) => <button key={id} role="tab" aria-selected={section === id} onClick={() => setSection(id)}>{label}</button>)}
      </div>
      {section === "server" && <StatusPanel />}
      {section === "tokens" && <TokensPanel />}
      {section === "clients" && <ClientsPanel />}
      {section === "activity" && <ActivityPanel />}
      {section === "settings" && <><SettingsPanel /><PolicyExplainerPanel /></>}
    </section>
  )
}
