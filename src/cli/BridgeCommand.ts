import { Command, Options } from "@effect/cli"
import { Option } from "effect"
import { bridgeMain } from "../bridge/BridgeProcess.ts"

const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

/** `dbdesk bridge`: the stdio bridge, also installed as `dbdesk-mcp` (product-decisions §7). */
export const bridgeCommand = Command.make("bridge", { home }, ({ home }) => bridgeMain(Option.getOrUndefined(home))).pipe(
  Command.withDescription("Speak MCP over stdio for clients that cannot use HTTP, forwarding to the running dbdesk server")
)
