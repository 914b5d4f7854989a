import { Args, Command, Options } from "@effect/cli"
import { lazyHandler } from "./Lazy.ts"

const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

const handlers = () => import("./handlers/Token.ts")

const create = Command.make("create", {
  home,
  name: Options.text("name").pipe(Options.withDescription("a name you will recognise in token list and the activity log")),
  access: Options.choice("access", ["readOnly", "readWrite", "fullAccess"]).pipe(Options.withDescription("access level (product-decisions §4)")),
  connections: Options.text("connections").pipe(Options.withDescription("comma-separated connection ids the token may use (default: all)"), Options.optional),
  expires: Options.text("expires").pipe(Options.withDescription("30d, a date such as 2027-01-31 (valid through that day, UTC), or never (default)"), Options.optional)
}, lazyHandler(handlers, (m) => m.create)).pipe(Command.withDescription("Create an MCP access token and print its value once"))

const list = Command.make("list", {
  home,
  json: Options.boolean("json").pipe(Options.withDescription("print JSON (token values are never stored, so never printed)")),
  all: Options.boolean("all").pipe(Options.withDescription("also list the running server's bridge tokens (product-decisions §4)"))
}, lazyHandler(handlers, (m) => m.list)).pipe(Command.withDescription("List tokens (never their values)"))

const revoke = Command.make("revoke", { home, id: Args.text({ name: "id" }) }, lazyHandler(handlers, (m) => m.revoke)).pipe(
  Command.withDescription("Revoke a token: its next request fails and its running requests are cancelled")
)

/** `dbdesk token create|list|revoke` (product-decisions §4 "Issuing"). */
export const tokenCommand = Command.make("token").pipe(
  Command.withDescription("Manage MCP access tokens"),
  Command.withSubcommands([create, list, revoke])
)
