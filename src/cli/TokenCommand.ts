import { Args, Command, Options } from "@effect/cli"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const handlers = () => import("./handlers/Token.ts")
const id = Args.text({ name: "id" }).pipe(Args.withDescription("the token's id (dbdesk token list)"))

const create = Command.make("create", {
  home,
  json: Options.boolean("json").pipe(
    Options.withDescription("print the new token as JSON, its value included (shown this once)")
  ),
  name: Options.text("name").pipe(
    Options.withDescription("a name you will recognise in token list and the activity log")
  ),
  access: Options.choice("access", ["readOnly", "readWrite", "fullAccess"]).pipe(
    Options.withDescription(
      "what the token may do: readOnly (read), readWrite (also write) or fullAccess (also destructive statements such as DROP)"
    )
  ),
  connections: Options.text("connections").pipe(
    Options.withDescription("comma-separated ids or names of the connections the token may use (default: all)"),
    Options.optional
  ),
  expires: Options.text("expires").pipe(
    Options.withDescription("30d, a date such as 2027-01-31 (valid through that day, UTC), or never (default)"),
    Options.optional
  ),
  tools: Options.text("tools").pipe(
    Options.withDescription(
      "comma-separated tools the token may list and call (built-in or curated), or lean (default: all)"
    ),
    Options.optional
  )
}, lazyHandler(handlers, (m) => m.create)).pipe(
  Command.withDescription(described("Create an MCP access token and print its value once.", [
    "dbdesk token create --name laptop --access readOnly",
    "dbdesk token create --name ci --access readWrite --connections \"Sample (SQLite)\" --expires 30d",
    "dbdesk token create --name script --access readOnly --json"
  ]))
)

const list = Command.make("list", {
  home,
  json: Options.boolean("json").pipe(
    Options.withDescription("print JSON (token values are never stored, so never printed)")
  ),
  all: Options.boolean("all").pipe(Options.withDescription("also list the running server's bridge tokens"))
}, lazyHandler(handlers, (m) => m.list)).pipe(Command.withDescription(described("List tokens (never their values).", [
  "dbdesk token list",
  "dbdesk token list --json --all"
])))

const revoke = Command.make("revoke", { home, json, id }, lazyHandler(handlers, (m) => m.revoke)).pipe(
  Command.withDescription(
    described(
      "Revoke a token: its next request fails and its running requests are cancelled; it stays listed as revoked.",
      [
        "dbdesk token revoke 3f2a…   (the id from dbdesk token list)"
      ]
    )
  )
)

const remove = Command.make("delete", { home, json, id }, lazyHandler(handlers, (m) => m.remove)).pipe(
  Command.withDescription(
    described("Delete a token for good: it stops working at once and disappears from token list.", [
      "dbdesk token delete 3f2a…   (the id from dbdesk token list)"
    ])
  )
)

/** `dbdesk token create|list|revoke|delete` (D-35). */
export const tokenCommand = Command.make("token").pipe(
  Command.withDescription(described("Manage MCP access tokens (stored hashed in tokens.json; a value is shown once).", [
    "dbdesk token create --name laptop --access readWrite",
    "dbdesk token list"
  ])),
  Command.withSubcommands([create, list, revoke, remove])
)
