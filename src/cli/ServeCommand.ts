import { Command, Options } from "@effect/cli"
import { described, homeOption as home } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const port = Options.integer("port").pipe(
  Options.withDescription("MCP port (default: mcp.port from settings.json, 23750); 0 picks a free port"),
  Options.optional
)

/** `dbdesk serve`: the standalone loopback server (D-1). */
export const serveCommand = Command.make(
  "serve",
  { port, home },
  lazyHandler(() => import("./handlers/Serve.ts"), (m) => m.serve)
).pipe(
  Command.withDescription(
    described("Start the dbdesk MCP server on 127.0.0.1 (and the UI on a second loopback port).", [
      "dbdesk serve",
      "dbdesk serve --port 0 --home /tmp/dbdesk-try"
    ])
  )
)
