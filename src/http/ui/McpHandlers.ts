import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import type { ActivityQuery } from "../../domain/Activity.ts"
import { ActivityCategory } from "../../domain/Activity.ts"
import { type TokenSummary, tokenState } from "../../domain/Token.ts"
import { UiApi } from "../../domain/UiApi.ts"
import { UiError, type UiToken } from "../../domain/UiSchemas.ts"
import { ActivityLog } from "../../services/ActivityLog.ts"
import { sha256Hex } from "../../services/activity/ActivityChain.ts"
import { Approvals } from "../../services/Approvals.ts"
import { ConnectedClients } from "../../services/ConnectedClients.ts"
import { Connections } from "../../services/Connections.ts"
import { Continuations } from "../../services/Continuations.ts"
import { HISTORY_LIMIT, QueryHistory } from "../../services/QueryHistory.ts"
import { Tokens } from "../../services/Tokens.ts"
import type { UiActivityRow } from "../../domain/UiWorkSchemas.ts"
import { CuratedToolsFileAccess } from "./CuratedToolsFileAccess.ts"
import { forUi } from "./UiErrors.ts"

const DAY_MS = 86_400_000
/** Connections whose history is read to show the statements of activity rows, at most per request. */
const STATEMENT_LOOKUP_CONNECTIONS = 20

export const toUiToken = (token: TokenSummary, now: number): UiToken => ({
  id: token.id,
  name: token.name,
  prefix: token.prefix,
  access: token.access,
  connections: token.connections,
  createdAt: token.createdAt,
  lastUsedAt: token.lastUsedAt,
  expiresAt: token.expiresAt ?? null,
  state: tokenState({ ...token, hash: "", salt: "" }, now),
  bridge: token.bridge,
  ...(token.tools === undefined ? {} : { tools: token.tools })
})

const isCategory = (value: string): value is ActivityCategory =>
  (ActivityCategory.literals as ReadonlyArray<string>).includes(value)

/** The UI's activity filters (D-51: time, category, token, client). */
export const activityQuery = (params: {
  readonly category?: string | undefined
  readonly tokenId?: string | undefined
  readonly client?: string | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly limit?: number | undefined
}): ActivityQuery => ({
  limit: Math.min(10_000, Math.max(1, Math.trunc(params.limit ?? 500))),
  ...(params.category !== undefined && isCategory(params.category) ? { category: params.category } : {}),
  ...(params.tokenId === undefined || params.tokenId === "" ? {} : { tokenId: params.tokenId }),
  ...(params.client === undefined || params.client === "" ? {} : { client: params.client }),
  ...(params.since === undefined || params.since === "" ? {} : { since: params.since }),
  ...(params.until === undefined || params.until === "" ? {} : { until: params.until })
})

/** The MCP panel: tokens, connected clients, activity log and the approval dialogs (D-31, D-52, D-26). */
export const McpHandlers = HttpApiBuilder.group(UiApi, "mcp", (handlers) =>
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const clients = yield* ConnectedClients
    const activity = yield* ActivityLog
    const approvals = yield* Approvals
    const connections = yield* Connections
    const history = yield* QueryHistory
    const curated = yield* CuratedToolsFileAccess
    const continuations = yield* Continuations
    return handlers
      .handle("continuations", () =>
        forUi(Effect.gen(function*() {
          const open = yield* continuations.list()
          if (open.length === 0) return []
          const names = new Map(
            (yield* connections.list).map((connection) => [connection.id as string, connection.name])
          )
          const tokenNames = new Map((yield* tokens.list()).map((token) => [`token:${token.id}`, token.name]))
          return open.map((entry) => ({
            id: entry.id,
            connection: `${names.get(entry.connectionId) ?? entry.connectionId}${
              entry.database === undefined ? "" : ` (${entry.database})`
            }`,
            caller: entry.caller === "bridge"
              ? "the stdio bridge"
              : tokenNames.get(entry.caller) ??
                (entry.caller.startsWith("anonymous:") ? "a client without a token" : entry.caller),
            statement: entry.statement,
            rows: entry.rows,
            openedAt: new Date(entry.opened).toISOString(),
            expiresAt: new Date(entry.expires).toISOString()
          }))
        })))
      .handle("closeContinuation", ({ path }) => Effect.map(continuations.closeById(path.id), (closed) => ({ closed })))
      .handle("tokens", ({ urlParams }) =>
        forUi(Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const all = yield* tokens.list()
          return all.filter((token) => urlParams.all === "true" || !token.bridge).map((token) => toUiToken(token, now))
        })))
      .handle("createToken", ({ payload }) =>
        forUi(Effect.gen(function*() {
          const name = payload.name.trim()
          if (name === "") {
            return yield* new UiError({ message: "Give the token a name, such as the client that will use it." })
          }
          if (payload.connections !== "all" && payload.connections.length === 0) {
            return yield* new UiError({ message: "Choose at least one connection, or all connections." })
          }
          const now = yield* Clock.currentTimeMillis
          const created = yield* tokens.create({
            name,
            access: payload.access,
            connections: payload.connections,
            expiresAt: payload.expiresInDays === null ? undefined : new Date(now + payload.expiresInDays * DAY_MS),
            ...(payload.tools === undefined || payload.tools.length === 0 ? {} : { tools: payload.tools })
          })
          return { token: toUiToken(created.token, now), value: created.value }
        })))
      .handle("revokeToken", ({ path }) => forUi(Effect.asVoid(tokens.revoke(path.id))))
      .handle("clients", () => clients.list)
      .handle("disconnect", ({ path }) => forUi(Effect.asVoid(clients.disconnect(path.id))))
      .handle("activity", ({ urlParams }) =>
        forUi(Effect.gen(function*() {
          yield* activity.flush
          const entries = yield* activity.list(activityQuery(urlParams))
          const names = new Map(
            (yield* connections.list).map((connection) => [connection.id as string, connection.name])
          )
          // a row keeps its statement as a digest; the query history of its connection may still hold the text
          const wanted = [
            ...new Set(
              entries.filter((entry) => entry.digest !== null && entry.connectionId !== null).map((entry) =>
                entry.connectionId!
              )
            )
          ]
          const texts = new Map<string, string>()
          for (const connectionId of wanted.slice(0, STATEMENT_LOOKUP_CONNECTIONS)) {
            const recent = yield* Effect.orElseSucceed(history.recent(connectionId, HISTORY_LIMIT.max), () => [])
            for (const entry of recent) if (entry.source === "mcp") texts.set(sha256Hex(entry.text), entry.text)
          }
          return entries.map((entry): UiActivityRow => {
            const connectionName = entry.connectionId === null ? undefined : names.get(entry.connectionId)
            const statement = entry.digest === null ? undefined : texts.get(entry.digest)
            return {
              ...entry,
              ...(connectionName === undefined ? {} : { connectionName }),
              ...(statement === undefined ? {} : { statement })
            }
          })
        })))
      .handle("approvals", () => approvals.list)
      .handle(
        "answer",
        ({ path, payload }) => Effect.map(approvals.answer(path.id, payload.decision), (answered) => ({ answered }))
      )
      .handle("curatedTools", () => forUi(curated.list))
      .handle("setCuratedToolDisabled", ({ path, payload }) => forUi(curated.setDisabled(path.name, payload.disabled)))
      .handle("saveCuratedTool", ({ payload }) => forUi(curated.save(payload.tool, payload.replacing)))
      .handle("testCuratedTool", ({ path, payload }) => forUi(curated.test(path.name, payload.arguments)))
  }))
