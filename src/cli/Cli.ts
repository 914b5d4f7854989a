import { Command } from "@effect/cli"
import { activityCommand } from "./ActivityCommand.ts"
import { bridgeCommand } from "./BridgeCommand.ts"
import { serveCommand } from "./ServeCommand.ts"
import { tokenCommand } from "./TokenCommand.ts"

const dbdesk = Command.make("dbdesk").pipe(
  Command.withDescription("dbdesk: a local MCP server for your database connections"),
  Command.withSubcommands([serveCommand, tokenCommand, activityCommand, bridgeCommand])
)

export const runCli = Command.run(dbdesk, { name: "dbdesk", version: "0.1.0" })
