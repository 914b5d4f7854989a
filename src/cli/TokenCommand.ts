import { Args, Command, Options } from "@effect/cli"
import { Clock, Console, Effect, Either, Layer, Option } from "effect"
import { parseConnectionList, parseExpiry, tokenState, type TokenSummary } from "../domain/Token.ts"
import { SettingsStore } from "../services/Settings.ts"
import { SupportPaths } from "../services/SupportPaths.ts"
import { Tokens } from "../services/Tokens.ts"

const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

const tokensLayer = (directory: Option.Option<string>) => Tokens.Default.pipe(Layer.provide(SupportPaths.layer(Option.getOrUndefined(directory))))

const fail = (message: string) =>
  Console.error(message).pipe(Effect.zipRight(Effect.sync(() => {
    process.exitCode = 1
  })))

const describeConnections = (connections: TokenSummary["connections"]) => (connections === "all" ? "all" : connections.join(","))

const create = Command.make("create", {
  home,
  name: Options.text("name").pipe(Options.withDescription("a name you will recognise in token list and the activity log")),
  access: Options.choice("access", ["readOnly", "readWrite", "fullAccess"]).pipe(Options.withDescription("access level (product-decisions §4)")),
  connections: Options.text("connections").pipe(Options.withDescription("comma-separated connection ids the token may use (default: all)"), Options.optional),
  expires: Options.text("expires").pipe(Options.withDescription("30d, a date such as 2027-01-31 (valid through that day, UTC), or never (default)"), Options.optional)
}, (options) =>
  Effect.gen(function*() {
    const name = options.name.trim()
    if (name === "") return yield* fail("--name must not be empty")
    const expiry = parseExpiry(Option.getOrUndefined(options.expires), yield* Clock.currentTimeMillis)
    if (Either.isLeft(expiry)) return yield* fail(expiry.left)
    const tokens = yield* Tokens
    const { token, value } = yield* tokens.create({
      name,
      access: options.access,
      connections: parseConnectionList(Option.getOrUndefined(options.connections)),
      expiresAt: expiry.right
    })
    yield* Console.log(`Created token "${token.name}" (id ${token.id}, ${token.access}, connections: ${describeConnections(token.connections)}, expires: ${token.expiresAt ?? "never"}).`)
    yield* Console.log("Copy it now; it is shown only this once:")
    yield* Console.log(value)
  }).pipe(Effect.provide(tokensLayer(options.home)))).pipe(Command.withDescription("Create an MCP access token and print its value once"))

const list = Command.make("list", {
  home,
  json: Options.boolean("json").pipe(Options.withDescription("print JSON (token values are never stored, so never printed)")),
  all: Options.boolean("all").pipe(Options.withDescription("also list the running server's bridge tokens (product-decisions §4)"))
}, (options) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const now = yield* Clock.currentTimeMillis
    const all = (yield* tokens.list()).filter((token) => options.all || !token.bridge)
    const rows = all.map((token) => ({ ...token, state: tokenState({ ...token, hash: "", salt: "" }, now) }))
    if (options.json) return yield* Console.log(JSON.stringify(rows, null, 2))
    if (rows.length === 0) return yield* Console.log("No tokens. Create one with: dbdesk token create --name NAME --access readOnly")
    for (const row of rows) {
      yield* Console.log([row.id, row.prefix + "…", row.state, row.access, `connections: ${describeConnections(row.connections)}`, `created ${row.createdAt}`, `last used ${row.lastUsedAt ?? "never"}`, `expires ${row.expiresAt ?? "never"}`, JSON.stringify(row.name)].join("  "))
    }
  }).pipe(Effect.provide(tokensLayer(options.home)))).pipe(Command.withDescription("List tokens (never their values)"))

const revoke = Command.make("revoke", { home, id: Args.text({ name: "id" }) }, (options) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const token = yield* tokens.revoke(options.id.trim())
    yield* Console.log(`Revoked token "${token.name}" (id ${token.id}); a running server cancels its requests within seconds.`)
  }).pipe(
    Effect.catchTag("TokenNotFound", (error) => fail(error.message)),
    Effect.provide(tokensLayer(options.home))
  )).pipe(Command.withDescription("Revoke a token: its next request fails and its running requests are cancelled"))

/** `dbdesk token create|list|revoke` (product-decisions §4 "Issuing"). */
export const tokenCommand = Command.make("token").pipe(
  Command.withDescription("Manage MCP access tokens"),
  Command.withSubcommands([create, list, revoke])
)

/** product-decisions §4 "Authentication": first start with auth on and no token prints a "Default" token once. */
export const announceDefaultToken = Effect.gen(function*() {
  const { mcp } = yield* Effect.flatMap(SettingsStore, (store) => store.current)
  if (!mcp.requireAuth) return
  const created = yield* Effect.flatMap(Tokens, (tokens) => tokens.ensureDefault())
  if (created === undefined) return
  yield* Console.log(`Created the access token "Default" (readWrite, all connections, id ${created.token.id}). Give it to your MCP client as a bearer token; it is shown only this once:`)
  yield* Console.log(created.value)
})
