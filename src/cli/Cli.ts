import { Command } from "@effect/cli"
import { packageVersion } from "../services/PackageInfo.ts"
import { activityCommand } from "./ActivityCommand.ts"
import { bridgeCommand } from "./BridgeCommand.ts"
import { serveCommand } from "./ServeCommand.ts"
import { tokenCommand } from "./TokenCommand.ts"

const dbdesk = Command.make("dbdesk").pipe(
  Command.withDescription("dbdesk: a local MCP server for your database connections"),
  Command.withSubcommands([serveCommand, tokenCommand, activityCommand, bridgeCommand])
)

/** Every command's work is imported when it runs (see Lazy.ts): parsing argv loads only the command tree. */
export const runCli = (argv: ReadonlyArray<string>) => Command.run(dbdesk, { name: "dbdesk", version: packageVersion() })(argv)
