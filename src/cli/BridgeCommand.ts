import { Command } from "@effect/cli"
import { Option } from "effect"
import { described, homeOption as home } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

/** `dbdesk bridge`: the stdio bridge, also installed as `dbdesk-mcp` (D-53). */
export const bridgeCommand = Command.make(
  "bridge",
  { home },
  lazyHandler(
    () => import("../bridge/BridgeProcess.ts"),
    (m) => ({ home }: { readonly home: Option.Option<string> }) => m.bridgeMain(Option.getOrUndefined(home))
  )
).pipe(
  Command.withDescription(
    described("Speak MCP over stdio for clients that cannot use HTTP, forwarding to the running dbdesk server.", [
      "dbdesk bridge   (what dbdesk clients install writes into an AI client's config, as dbdesk-mcp)"
    ])
  )
)
