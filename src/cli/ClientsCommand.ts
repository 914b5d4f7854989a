import { Args, Command, Options } from "@effect/cli"
import { AI_CLIENT_IDS, DEFAULT_SERVER_NAME } from "../domain/AiClients.ts"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const handlers = () => import("./handlers/Clients.ts")
const client = Args.choice(AI_CLIENT_IDS.map((id) => [id, id] as const), { name: "client" }).pipe(
  Args.withDescription(`one of ${AI_CLIENT_IDS.join(", ")}`)
)
const configFile = Options.text("config-file").pipe(
  Options.withDescription("edit this file instead of the client's usual one"),
  Options.optional
)
const name = Options.text("name").pipe(
  Options.withDescription(`the entry's name in the client (default ${DEFAULT_SERVER_NAME})`),
  Options.withDefault(DEFAULT_SERVER_NAME)
)
const print = Options.boolean("print").pipe(
  Options.withDescription("only print the entry (or Claude Code's command line); change nothing")
)

const list = Command.make("list", { json, name }, lazyHandler(handlers, (m) => m.list)).pipe(
  Command.withDescription(described(
    "List the AI clients dbdesk can set up, where each keeps its MCP config on macOS, Linux and Windows, and whether dbdesk is configured there.",
    ["dbdesk clients list", "dbdesk clients list --json"]
  ))
)

const install = Command.make(
  "install",
  { home, client, configFile, name, print },
  lazyHandler(handlers, (m) => m.install)
).pipe(Command.withDescription(described(
  "Add dbdesk (its stdio bridge) to an AI client's MCP config: other servers stay as they are, a backup is made first, and a second run changes nothing.",
  [
    "dbdesk clients install claude-desktop",
    "dbdesk clients install cursor --print",
    "dbdesk clients install vscode --config-file ./.vscode/mcp.json",
    "dbdesk clients install claude-code --print   (prints the claude mcp add command)"
  ]
)))

const remove = Command.make("remove", { client, configFile, name }, lazyHandler(handlers, (m) => m.remove)).pipe(
  Command.withDescription(described(
    "Remove dbdesk's entry from an AI client's MCP config; everything else in the file stays.",
    ["dbdesk clients remove cursor"]
  ))
)

/** `dbdesk clients list|install|remove` (D-78). */
export const clientsCommand = Command.make("clients").pipe(
  Command.withDescription(
    described("Connect AI clients (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf) to dbdesk.", [
      "dbdesk clients list",
      "dbdesk clients install claude-desktop"
    ])
  ),
  Command.withSubcommands([list, install, remove])
)
