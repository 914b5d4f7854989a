import { MODERN_VERSION } from "../domain/ProtocolVersions.ts"

/** The desktop app's UI (product-decisions §9). Only the shell exists so far; the views are open work. */
export const App = () => (
  <main style={{ fontFamily: "system-ui, sans-serif", margin: "2rem" }}>
    <h1>dbdesk</h1>
    <p>The local MCP server speaks protocol revision {MODERN_VERSION}. The connection, browse, console and MCP views are not built yet.</p>
  </main>
)
