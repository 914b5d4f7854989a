import { Clock, Console, Effect, Either, Layer, Option } from "effect"
import { parseConnectionList, parseExpiry, tokenState, type TokenSummary } from "../../domain/Token.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { Tokens } from "../../services/Tokens.ts"
import { failCommand } from "./Failure.ts"

const tokensLayer = (directory: Option.Option<string>) => Tokens.Default.pipe(Layer.provide(SupportPaths.layer(Option.getOrUndefined(directory))))

const describeConnections = (connections: TokenSummary["connections"]) => (connections === "all" ? "all" : connections.join(","))

/** `dbdesk token create` (product-decisions §4 "Issuing"). */
export const create = (options: {
  readonly home: Option.Option<string>
  readonly name: string
  readonly access: "readOnly" | "readWrite" | "fullAccess"
  readonly connections: Option.Option<string>
  readonly expires: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const name = options.name.trim()
    if (name === "") return yield* failCommand("--name must not be empty")
    const expiry = parseExpiry(Option.getOrUndefined(options.expires), yield* Clock.currentTimeMillis)
    if (Either.isLeft(expiry)) return yield* failCommand(expiry.left)
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
  }).pipe(Effect.provide(tokensLayer(options.home)))

/** `dbdesk token list`: never prints a value (none is stored). */
export const list = (options: { readonly home: Option.Option<string>; readonly json: boolean; readonly all: boolean }) =>
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
  }).pipe(Effect.provide(tokensLayer(options.home)))

/** `dbdesk token revoke <id>`: a running server cancels the token's requests within seconds. */
export const revoke = (options: { readonly home: Option.Option<string>; readonly id: string }) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const token = yield* tokens.revoke(options.id.trim())
    yield* Console.log(`Revoked token "${token.name}" (id ${token.id}); a running server cancels its requests within seconds.`)
  }).pipe(
    Effect.catchTag("TokenNotFound", (error) => failCommand(error.message)),
    Effect.provide(tokensLayer(options.home))
  )
