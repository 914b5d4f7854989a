import { Effect } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { JsonObject } from "../../domain/Json.ts"
import type { Principal } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { TableDescription, TableEntry } from "../../domain/SqlTable.ts"
import { ToolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Connections } from "../Connections.ts"
import { Drivers } from "../Drivers.ts"
import type { DatabaseDriver } from "../drivers/Driver.ts"
import { type DriverFailure, mapDriverFailure } from "../tools/DriverFailures.ts"
import { listable, resolveTarget } from "../tools/Guards.ts"

/** D-47: the schema resource lists at most 100 tables, then `truncated: true`. */
export const SCHEMA_TABLE_LIMIT = 100

export interface SchemaSnapshot {
  readonly tables: ReadonlyArray<TableEntry & Pick<TableDescription, "columns" | "foreign_keys">>
  readonly totalTables: number
  readonly truncated: boolean
}

/**
 * Wire contract §7.1 (C7.1-b): a resource, prompt target or table that does not exist is -32602;
 * a value the database cannot accept likewise; a database that does not answer is -33000. Gates (-33007) and
 * deadlines (-33003) pass through.
 */
const toProtocolError = (subject: JsonObject) => (error: ToolFailure | ProtocolError): ProtocolError => {
  if (!(error instanceof ToolFailure)) return error
  // D-64: a secret catalog is the user's AI policy, so -33007 as the other connection gates (wire contract §5 point 8).
  if (error.policy !== undefined) {
    return ProtocolError.of(-33007, error.detail, {
      ...subject,
      reason: error.policy.gate,
      rule: error.policy.rule,
      setting: error.policy.setting
    })
  }
  switch (error.code) {
    case "not_found":
    case "invalid_argument":
    case "unsupported":
      return ProtocolError.invalidParams(error.detail, { ...subject, reason: error.code })
    // The database does not answer: unavailable now (-33000), not an internal error of dbdesk.
    case "not_connected":
      return ProtocolError.of(-33000, error.message, { ...subject, reason: error.code })
    default:
      return ProtocolError.of(-32603, error.message, { ...subject, reason: error.code })
  }
}

/**
 * The live schema of a connection as resources, prompts and completion see it, behind the same
 * connection gates as the tools (D-12).
 */
export class LiveSchema extends Effect.Service<LiveSchema>()("dbdesk/services/resources/LiveSchema", {
  effect: Effect.gen(function*() {
    const access = yield* ConnectionAccess
    const connections = yield* Connections
    const drivers = yield* Drivers

    const resolve = Effect.fn("LiveSchema.resolve")(
      function*(principal: Principal, connectionId: string, subject: JsonObject = {}) {
        return yield* Effect.mapError(access.resolve(principal, connectionId), toProtocolError(subject))
      }
    )

    /** A prompt's `connection` argument: an id, or a name matched case-insensitively (ambiguous names need the id). */
    const resolveByIdOrName = Effect.fn("LiveSchema.resolveByIdOrName")(function*(principal: Principal, value: string) {
      const all = yield* connections.list
      if (all.some((connection) => connection.id === value)) return yield* resolve(principal, value)
      const named = all.filter((connection) => connection.name.toLowerCase() === value.trim().toLowerCase())
      if (named.length > 1) {
        return yield* ProtocolError.invalidParams(
          `${named.length} connections are named ${JSON.stringify(value)}; pass the connection id instead`,
          { argument: "connection" }
        )
      }
      const [only] = named
      if (only === undefined) {
        return yield* ProtocolError.invalidParams(
          `no connection is named or has the id ${JSON.stringify(value)}; call list_connections`,
          { argument: "connection" }
        )
      }
      return yield* resolve(principal, only.id)
    })

    const use = <A>(
      connection: Connection,
      subject: JsonObject,
      f: (driver: DatabaseDriver) => Effect.Effect<A, DriverFailure | ToolFailure>
    ) =>
      mapDriverFailure(Effect.flatMap(drivers.forConnection(connection), f)).pipe(
        Effect.mapError(toProtocolError(subject))
      )

    /** D-64: secret catalogs are neither listed nor described on these paths either. */
    const tables = (connection: Connection, subject: JsonObject = {}) =>
      use(
        connection,
        subject,
        (driver) =>
          Effect.map(
            driver.listTables({ includeRowCounts: false }),
            (all) => all.filter((entry) => listable(connection)(entry.name))
          )
      )

    const describe = (connection: Connection, table: string, subject: JsonObject = {}) =>
      use(
        connection,
        { ...subject, table },
        (driver) =>
          Effect.flatMap(
            resolveTarget(driver, connection, table),
            (target) => driver.describeTable(target.table, target.namespace)
          )
      )

    const ddl = (connection: Connection, table: string, subject: JsonObject = {}) =>
      use(
        connection,
        { ...subject, table },
        (driver) =>
          Effect.flatMap(
            resolveTarget(driver, connection, table),
            (target) => driver.tableDdl(target.table, target.namespace)
          )
      )

    const snapshot = Effect.fn("LiveSchema.snapshot")(function*(connection: Connection, subject: JsonObject = {}) {
      const all = yield* tables(connection, subject)
      const kept = all.slice(0, SCHEMA_TABLE_LIMIT)
      const described = yield* Effect.forEach(
        kept,
        (entry) =>
          Effect.map(
            describe(connection, entry.name, subject),
            (description) => ({ ...entry, columns: description.columns, foreign_keys: description.foreign_keys })
          )
      )
      return {
        tables: described,
        totalTables: all.length,
        truncated: all.length > kept.length
      } satisfies SchemaSnapshot
    })

    return { resolve, resolveByIdOrName, tables, describe, ddl, snapshot } as const
  })
}) {}
