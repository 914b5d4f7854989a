import { Clock, Console, Effect, Either, Layer, Option } from "effect"
import { parseConnectionList, parseExpiry, parseToolset, tokenState, type TokenSummary } from "../../domain/Token.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { Tokens } from "../../services/Tokens.ts"
import { connectionChoices, filesOf, findConnection, readConnections } from "../SupportFiles.ts"
import { failCommand } from "./Failure.ts"
import { printJson } from "./Output.ts"

const tokensLayer = (directory: Option.Option<string>) =>
  Tokens.Default.pipe(Layer.provide(SupportPaths.layer(Option.getOrUndefined(directory))))

const describeConnections = (
  connections: TokenSummary["connections"]
) => (connections === "all" ? "all" : connections.join(","))

/**
 * `--connections` names connections that exist (by id or exact name); the token stores their ids.
 * A token for a connection that does not exist would silently grant nothing.
 */
const resolveConnections = (directory: Option.Option<string>, text: Option.Option<string>) =>
  Effect.gen(function*() {
    const wanted = parseConnectionList(Option.getOrUndefined(text))
    if (wanted === "all") return Either.right<"all" | ReadonlyArray<string>>("all")
    const path = filesOf(Option.getOrUndefined(directory)).connections
    const all = yield* readConnections(path)
    if (all === undefined) {
      return Either.left(
        `--connections: there are no connections yet (${path} does not exist); start dbdesk serve once or add one with dbdesk connection add`
      )
    }
    const ids: Array<string> = []
    for (const item of wanted) {
      const connection = findConnection(all, item)
      if (connection === undefined) {
        return Either.left(
          `--connections: no connection has the id or name ${JSON.stringify(item)}; ${connectionChoices(all)}`
        )
      }
      if (!ids.includes(connection.id)) ids.push(connection.id)
    }
    return Either.right<"all" | ReadonlyArray<string>>(ids)
  })

/** `dbdesk token create` (D-35). */
export const create = (options: {
  readonly home: Option.Option<string>
  readonly name: string
  readonly access: "readOnly" | "readWrite" | "fullAccess"
  readonly connections: Option.Option<string>
  readonly expires: Option.Option<string>
  readonly json: boolean
  readonly tools?: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const name = options.name.trim()
    if (name === "") return yield* failCommand("--name must not be empty")
    const expiry = parseExpiry(Option.getOrUndefined(options.expires), yield* Clock.currentTimeMillis)
    if (Either.isLeft(expiry)) return yield* failCommand(expiry.left)
    const connections = yield* resolveConnections(options.home, options.connections)
    if (Either.isLeft(connections)) return yield* failCommand(connections.left)
    const tools = parseToolset(Option.getOrUndefined(options.tools ?? Option.none()))
    const tokens = yield* Tokens
    const { token, value } = yield* tokens.create({
      name,
      access: options.access,
      connections: connections.right,
      expiresAt: expiry.right,
      tools
    })
    // The value is printed this once, in JSON as in text; it is never stored, so no later command can show it.
    if (options.json) {
      return yield* printJson({
        ...token,
        state: tokenState({ ...token, hash: "", salt: "" }, yield* Clock.currentTimeMillis),
        value
      })
    }
    yield* Console.log(
      `Created token "${token.name}" (id ${token.id}, ${token.access}, connections: ${
        describeConnections(token.connections)
      }, ${token.tools === undefined ? "" : `tools: ${token.tools.join(",")}, `}expires: ${
        token.expiresAt ?? "never"
      }).`
    )
    yield* Console.log("Copy it now; it is shown only this once:")
    yield* Console.log(value)
  }).pipe(
    Effect.catchTag("UnreadableFile", (error) => failCommand(error.message)),
    Effect.provide(tokensLayer(options.home))
  )

/** `dbdesk token list`: never prints a value (none is stored). */
export const list = (
  options: { readonly home: Option.Option<string>; readonly json: boolean; readonly all: boolean }
) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const now = yield* Clock.currentTimeMillis
    const all = (yield* tokens.list()).filter((token) => options.all || !token.bridge)
    const rows = all.map((token) => ({ ...token, state: tokenState({ ...token, hash: "", salt: "" }, now) }))
    if (options.json) return yield* printJson(rows)
    if (rows.length === 0) {
      return yield* Console.log("No tokens. Create one with: dbdesk token create --name NAME --access readOnly")
    }
    for (const row of rows) {
      yield* Console.log(
        [
          row.id,
          row.prefix + "…",
          row.state,
          row.access,
          `connections: ${describeConnections(row.connections)}`,
          ...(row.tools === undefined ? [] : [`tools: ${row.tools.join(",")}`]),
          `created ${row.createdAt}`,
          `last used ${row.lastUsedAt ?? "never"}`,
          `expires ${row.expiresAt ?? "never"}`,
          JSON.stringify(row.name)
        ].join("  ")
      )
    }
  }).pipe(Effect.provide(tokensLayer(options.home)))

/** `dbdesk token revoke <id>`: a running server cancels the token's requests within seconds. */
export const revoke = (
  options: { readonly home: Option.Option<string>; readonly id: string; readonly json: boolean }
) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const token = yield* tokens.revoke(options.id.trim())
    if (options.json) {
      return yield* printJson({
        ...token,
        state: tokenState({ ...token, hash: "", salt: "" }, yield* Clock.currentTimeMillis)
      })
    }
    yield* Console.log(
      `Revoked token "${token.name}" (id ${token.id}); a running server cancels its requests within seconds.`
    )
  }).pipe(
    Effect.catchTag("TokenNotFound", (error) => failCommand(error.message)),
    Effect.provide(tokensLayer(options.home))
  )

/** `dbdesk token delete <id>`: removes the record for good; a running server cancels its requests as for a revocation. */
export const remove = (
  options: { readonly home: Option.Option<string>; readonly id: string; readonly json: boolean }
) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const id = options.id.trim()
    const target = (yield* tokens.list()).find((token) => token.id === id)
    if (target?.bridge === true) {
      return yield* failCommand(
        `${id} is the running server's bridge token; it rotates by itself and cannot be deleted`
      )
    }
    yield* tokens.remove(id)
    if (options.json) {
      return yield* printJson(
        target === undefined ? { id, deleted: true } : { ...target, deleted: true }
      )
    }
    yield* Console.log(
      `Deleted token ${
        target === undefined ? id : `"${target.name}" (id ${id})`
      }; a running server cancels its requests within seconds.`
    )
  }).pipe(
    Effect.catchTag("TokenNotFound", (error) => failCommand(error.message)),
    Effect.provide(tokensLayer(options.home))
  )
