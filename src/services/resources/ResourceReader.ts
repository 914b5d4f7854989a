import { Effect, Either } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import type { Principal } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { capAnswerObject } from "../../domain/JsonBudget.ts"
import { withoutCredentialLiterals } from "../../domain/SecretCatalogs.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { SettingsStore } from "../Settings.ts"
import { QueryHistory } from "../QueryHistory.ts"
import { summarize } from "../tools/ConnectionTools.ts"
import { LiveSchema } from "./LiveSchema.ts"
import { connectionsUri, historyUri, parseResourceUri, type ResourceRef, schemaUri, tablesUri } from "./ResourceUris.ts"

const MIME = "application/json"

/** What a resource cut at limits.maxAnswerBytes / maxCellBytes tells its reader (D-71). */
const RESOURCE_HINTS = {
  items:
    "read a narrower resource: dbdesk://connections/{connection_id}/tables/{table} for one table, or history with a smaller ?limit=",
  texts: "raise limits.maxCellBytes to see long texts whole, or read them with execute_query and substr()",
  readPart: "raise limits.maxCellBytes to see more"
}

/** One entry of `resources/list`. */
export interface ResourceListing {
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly mimeType: string
}

const byName = <T extends { readonly name: string }>(items: ReadonlyArray<T>) =>
  [...items].sort((a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base", numeric: true }))

/** Parses a URI or answers -32602 with `data.uri` (wire contract §7.1, C7.1-b). */
export const resolveUri = (uri: string): Effect.Effect<ResourceRef, ProtocolError> =>
  Either.match(parseResourceUri(uri), {
    onLeft: (message) => Effect.fail(ProtocolError.invalidParams(message, { uri })),
    onRight: Effect.succeed
  })

/** Reads the `dbdesk://` resources of D-47; each payload mirrors the matching tool. */
export class ResourceReader extends Effect.Service<ResourceReader>()("dbdesk/services/resources/ResourceReader", {
  effect: Effect.gen(function*() {
    const access = yield* ConnectionAccess
    const schema = yield* LiveSchema
    const history = yield* QueryHistory
    const settings = yield* SettingsStore

    /** D-47: `dbdesk://connections`, then schema, tables and history of each visible connection. */
    const list = Effect.fn("ResourceReader.list")(function*(principal: Principal) {
      const visible = byName(yield* access.visible(principal))
      const root: ResourceListing = {
        uri: connectionsUri,
        name: "connections",
        title: "Connections",
        description: "The database connections you may use, as list_connections returns them.",
        mimeType: MIME
      }
      return [
        root,
        ...visible.flatMap((connection): Array<ResourceListing> => [
          {
            uri: schemaUri(connection.id),
            name: `${connection.name} schema`,
            title: `Schema of ${connection.name}`,
            description: `Tables and columns of '${connection.name}' (subscribable).`,
            mimeType: MIME
          },
          {
            uri: tablesUri(connection.id),
            name: `${connection.name} tables`,
            title: `Tables of ${connection.name}`,
            description: `Tables and views of '${connection.name}'.`,
            mimeType: MIME
          },
          {
            uri: historyUri(connection.id),
            name: `${connection.name} history`,
            title: `Query history of ${connection.name}`,
            description: `The last queries run on '${connection.name}'.`,
            mimeType: MIME
          }
        ])
      ]
    })

    const payload = (principal: Principal, ref: ResourceRef, uri: string) =>
      Effect.gen(function*() {
        if (ref.kind === "connections") {
          const visible = byName(yield* access.visible(principal))
          return { connections: visible.map((connection) => summarize(connection, connection.type === "sqlite")) }
        }
        const connection = yield* schema.resolve(principal, ref.connectionId, { uri })
        switch (ref.kind) {
          case "schema": {
            const snapshot = yield* schema.snapshot(connection, { uri })
            return {
              connection_id: connection.id,
              tables: snapshot.tables.map((table) => ({
                name: table.name,
                type: table.type,
                columns: table.columns.map((column) => ({ ...column }))
              })),
              total_tables: snapshot.totalTables,
              ...(snapshot.truncated ? { truncated: true } : {})
            }
          }
          case "tables":
            return { tables: (yield* schema.tables(connection, { uri })).map((entry) => ({ ...entry })) }
          case "table":
            return JSON.parse(JSON.stringify(yield* schema.describe(connection, ref.table, { uri }))) as JsonObject
          case "ddl":
            return { ddl: yield* schema.ddl(connection, ref.table, { uri }) }
          case "history": {
            const entries = yield* history.recent(connection.id, ref.limit).pipe(
              Effect.mapError((error) => ProtocolError.of(-32603, error.message, { uri }))
            )
            return {
              connection_id: connection.id,
              history: entries.map((entry) => ({
                id: entry.id,
                query: connection.secretCatalogs === "closed" ? withoutCredentialLiterals(entry.text) : entry.text,
                executed_at: entry.executedAt,
                execution_time_ms: entry.durationMs,
                row_count: entry.rowCount,
                outcome: entry.outcome,
                source: entry.source
              }))
            }
          }
        }
      })

    /** `resources/read`: one `application/json` content item whose text is the payload's JSON. */
    const read = Effect.fn("ResourceReader.read")(function*(principal: Principal, uri: string) {
      const ref = yield* resolveUri(uri)
      const { limits } = yield* settings.current
      const json = capAnswerObject(yield* payload(principal, ref, uri), limits, RESOURCE_HINTS)
      return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(json) }] } satisfies JsonObject
    })

    return { list, read } as const
  })
}) {}
