import { Args, Command, Options } from "@effect/cli"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const handlers = () => import("./handlers/Tools.ts")
const name = Args.text({ name: "name" }).pipe(Args.withDescription("the curated tool's name (dbdesk tools list)"))

const add = Command.make("add", {
  home,
  name: Options.text("name").pipe(
    Options.withDescription("the tool's name for AI clients: letters, digits, _, - and .")
  ),
  connection: Options.text("connection").pipe(Options.withDescription("the id or name of the connection it runs on")),
  sql: Options.text("sql").pipe(Options.withDescription("the statement; :name marks a parameter, bound as a value")),
  description: Options.text("description").pipe(Options.withDescription("what the tool does, for the model")),
  param: Options.text("param").pipe(
    Options.withDescription(
      "name:type[=default], type text|integer|number|boolean|date|timestamp|enum(a|b) (repeatable)"
    ),
    Options.repeated
  ),
  approvedInAdvance: Options.boolean("approved-in-advance").pipe(
    Options.withDescription("a tool that changes data runs without asking; each run is recorded in the activity log")
  ),
  replace: Options.boolean("replace").pipe(Options.withDescription("change the tool of that name"))
}, lazyHandler(handlers, (m) => m.add)).pipe(
  Command.withDescription(described("Expose a statement to AI clients as a tool with typed parameters.", [
    "dbdesk tools add --name orders_by_region --connection Shop --description \"Orders of a region since a time\" \\",
    "  --sql \"SELECT * FROM orders WHERE region = :region AND placed_at >= :since\" --param region:text --param since:timestamp"
  ]))
)

const list = Command.make("list", { home, json }, lazyHandler(handlers, (m) => m.list)).pipe(
  Command.withDescription(
    described("List the curated tools of tools.json.", ["dbdesk tools list", "dbdesk tools list --json"])
  )
)

const test = Command.make("test", {
  home,
  name,
  arg: Options.text("arg").pipe(Options.withDescription("name=value, one per parameter (repeatable)"), Options.repeated)
}, lazyHandler(handlers, (m) => m.test)).pipe(
  Command.withDescription(described("Run a curated tool that reads with sample arguments.", [
    "dbdesk tools test orders_by_region --arg region=north --arg since=2026-01-01T00:00:00Z"
  ]))
)

const remove = Command.make("remove", { home, name }, lazyHandler(handlers, (m) => m.remove)).pipe(
  Command.withDescription(described("Remove a curated tool.", ["dbdesk tools remove orders_by_region"]))
)

/** `dbdesk tools list|add|test|remove`: the curated tools of tools.json in the support directory. */
export const toolsCommand = Command.make("tools").pipe(
  Command.withDescription(
    described("Manage curated tools: saved statements AI clients call with typed arguments (tools.json).", [
      "dbdesk tools list",
      "dbdesk tools add --name NAME --connection ID-OR-NAME --sql TEXT --description TEXT --param name:type[=default]"
    ])
  ),
  Command.withSubcommands([list, add, test, remove])
)
