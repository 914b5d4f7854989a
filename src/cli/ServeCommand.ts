import { Command, Options } from "@effect/cli"
import { lazyHandler } from "./Lazy.ts"

const port = Options.integer("port").pipe(
  Options.withDescription("MCP port (default: mcp.port from settings.json, 23750); 0 picks a free port"),
  Options.optional
)
const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

/** `dbdesk serve`: the standalone loopback server (product-decisions §1). */
export const serveCommand = Command.make("serve", { port, home }, lazyHandler(() => import("./handlers/Serve.ts"), (m) => m.serve)).pipe(
  Command.withDescription("Start the dbdesk MCP server on 127.0.0.1")
)
