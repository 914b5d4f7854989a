import { Command, Options } from "@effect/cli"
import { lazyHandler } from "./Lazy.ts"

const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

/**
 * `dbdesk activity verify` (product-decisions §6): walks the chain and names the first row that
 * was edited, inserted or deleted; exits 1 when it finds one or cannot read the log.
 */
const verify = Command.make("verify", { home }, lazyHandler(() => import("./handlers/Activity.ts"), (m) => m.verify)).pipe(
  Command.withDescription("Check the activity log's hash chain; names the first edited, inserted or deleted row")
)

/** `dbdesk activity …` */
export const activityCommand = Command.make("activity").pipe(
  Command.withDescription("The MCP activity log (activity.db)"),
  Command.withSubcommands([verify])
)
