import { Command, Options } from "@effect/cli"
import { Option } from "effect"
import { lazyHandler } from "./Lazy.ts"

const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

/** `dbdesk bridge`: the stdio bridge, also installed as `dbdesk-mcp` (product-decisions §7). */
export const bridgeCommand = Command.make(
  "bridge",
  { home },
  lazyHandler(() => import("../bridge/BridgeProcess.ts"), (m) => ({ home }: { readonly home: Option.Option<string> }) => m.bridgeMain(Option.getOrUndefined(home)))
).pipe(
  Command.withDescription("Speak MCP over stdio for clients that cannot use HTTP, forwarding to the running dbdesk server")
)
