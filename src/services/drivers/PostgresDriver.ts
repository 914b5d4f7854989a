import { Effect } from "effect"
import type postgres from "postgres"
import type { ResultSet } from "../../domain/ResultSet.ts"
import { toCell } from "../../domain/SqlCell.ts"
import { type BuildResult, buildBrowse, buildCount, quoteIdentifier } from "./BrowseSql.ts"
import {
  type ConnectionStatus,
  type DatabaseDriver,
  DriverError,
  type InsertResult,
  InvalidArgument,
  type Namespace,
  TableNotFound
} from "./Driver.ts"
import * as Catalog from "./postgres/PostgresCatalog.ts"
import { type Db, errorText, makeRunner, type PostgresSettings, type RunFailure, type Track } from "./postgres/PostgresRunner.ts"
import { makeRedactor } from "./Redactor.ts"

export type { PostgresSettings } from "./postgres/PostgresRunner.ts"

/** Deadline of the catalog reads, browse, count, explain and inserts, which take no timeout_seconds. */
const TOOL_SECONDS = 30
const PLACEHOLDER = (position: number) => `$${position}`
/** Stands for the table in BrowseSql's output, which quotes one identifier; replaced by the schema-qualified name. */
const TABLE_SLOT = "\u0000dbdesk-table\u0000"

/** A missing table or a bad argument found inside a transaction; it ends the work and becomes its own error. */
class Missing {
  constructor(readonly failure: TableNotFound | InvalidArgument) {}
}

/** Only a timeout keeps its own meaning outside execute; anything else the tools show as a driver error. */
const asDriverError = (error: RunFailure): DriverError =>
  error._tag === "DriverError"
    ? error
    : new DriverError({ message: error._tag === "StatementTimeout" ? `the database did not answer within ${error.seconds} s` : error.message })

interface Rows extends ReadonlyArray<ReadonlyArray<unknown>> {
  readonly count: number | null
  readonly command: string
  readonly columns?: ReadonlyArray<{ readonly name: string }>
}

const toResultSet = (rows: Rows, maxRows: number, started: number): ResultSet => {
  const kept = rows.slice(0, maxRows).map((row) => row.map(toCell))
  const truncated = rows.length > maxRows
  const changesRows = /^(INSERT|UPDATE|DELETE|MERGE|COPY)$/.test(rows.command)
  const affected = changesRows ? rows.count ?? 0 : 0
  const status = truncated
    ? `showing the first ${kept.length} rows`
    : changesRows
    ? `${affected} row${affected === 1 ? "" : "s"} affected`
    : rows.command === "SELECT" || rows.command === "" ? undefined : rows.command
  return {
    columns: (rows.columns ?? []).map((column) => column.name),
    rows: kept,
    row_count: kept.length,
    rows_affected: affected,
    execution_time_ms: performance.now() - started,
    is_truncated: truncated,
    ...(status === undefined ? {} : { status_message: status })
  }
}

/** Extended protocol only: one statement per call even if the classifier were fooled (product-decisions §3.1). */
const statement = (db: Db, sql: string, params: ReadonlyArray<unknown>) =>
  db.unsafe(sql, params as Array<postgres.ParameterOrJSON<never>>, { prepare: false, simple: false } as never).values()

/**
 * PostgreSQL driver (product-decisions §2): a lazily opened pool per connection; safe statements inside
 * `BEGIN READ ONLY`; interruption and the statement deadline send the protocol cancel request.
 */
export const makePostgresDriver = (settings: PostgresSettings): Effect.Effect<DatabaseDriver> =>
  Effect.sync(() => {
    const redact = makeRedactor(settings.secrets ?? [])
    const runner = makeRunner(settings, redact)
    const read = <A>(body: (db: Db) => Promise<A>) =>
      Effect.mapError(runner.run("readonly", TOOL_SECONDS, (db) => body(db)), asDriverError)

    const onTable = <A>(
      table: string,
      access: "readonly" | "readwrite",
      body: (db: Db, found: Catalog.ResolvedTable, track: Track) => Promise<A>
    ) =>
      runner.run(access, TOOL_SECONDS, (db, track) =>
        Catalog.findTable(db, table).then((found) => {
          if (found === undefined) throw new Missing(new TableNotFound({ table }))
          return body(db, found, track)
        }).then((value) => ({ ok: true as const, value }), (error: unknown) => {
          if (error instanceof Missing) return { ok: false as const, failure: error.failure }
          throw error
        })).pipe(
          Effect.mapError(asDriverError),
          Effect.flatMap((outcome) => (outcome.ok ? Effect.succeed(outcome.value) : Effect.fail(outcome.failure)))
        )

    const built = (result: BuildResult, found: Catalog.ResolvedTable) => {
      if (!result.ok) throw new Missing(new InvalidArgument({ message: result.message }))
      return { sql: result.value.sql.replace(quoteIdentifier(TABLE_SLOT), Catalog.qualifiedName(found)), params: result.value.params }
    }

    const status = (): Effect.Effect<ConnectionStatus> =>
      read((db) => db.unsafe<Array<{ version: string }>>("SELECT current_setting('server_version') AS version")).pipe(
        Effect.map((rows): ConnectionStatus => ({ status: "connected", server_version: `PostgreSQL ${rows[0]?.version ?? ""}`.trim() })),
        Effect.catchAll((error) => Effect.succeed<ConnectionStatus>({ status: "error", error: error.message })),
        Effect.withSpan("PostgresDriver.status")
      )

    const insertInto = async (db: Db, found: Catalog.ResolvedTable, columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>): Promise<InsertResult> => {
      const known = await Catalog.columnNames(db, found.oid)
      const unknown = columns.find((column) => !known.includes(column))
      if (unknown !== undefined) {
        throw new Missing(new InvalidArgument({ message: `unknown column "${unknown}"; the table has: ${known.join(", ")}` }))
      }
      const sql = `INSERT INTO ${Catalog.qualifiedName(found)} (${columns.map(quoteIdentifier).join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`
      const failed: Array<{ index: number; error: string }> = []
      let affected = 0
      await db.unsafe("BEGIN")
      try {
        for (const [index, row] of rows.entries()) {
          if (row.length !== columns.length) {
            failed.push({ index, error: `expected ${columns.length} values, got ${row.length}` })
            continue
          }
          await db.unsafe("SAVEPOINT dbdesk_row")
          try {
            affected += (await statement(db, sql, row)).count ?? 0
            await db.unsafe("RELEASE SAVEPOINT dbdesk_row")
          } catch (error) {
            await db.unsafe("ROLLBACK TO SAVEPOINT dbdesk_row")
            failed.push({ index, error: errorText(error, settings, redact) })
          }
        }
        await db.unsafe("COMMIT")
      } catch (error) {
        await db.unsafe("ROLLBACK").catch(() => undefined)
        throw error
      }
      return { rows_affected: affected, failed_rows: failed }
    }

    // Intermediate: the port takes `database` and `schema` (issue 25); the pg driver that honours them replaces this one.
    const ownOnly = (namespace: Namespace | undefined) =>
      (namespace?.database === undefined || namespace.database === settings.database) && namespace?.schema === undefined
        ? Effect.void
        : Effect.fail(new InvalidArgument({ message: "this build reaches only the connection's own database and its search path" }))

    const driver: DatabaseDriver = {
      dialect: "postgresql",
      status,
      listDatabases: () =>
        read((db) => db.unsafe<Array<{ name: string }>>(Catalog.DATABASES_SQL)).pipe(
          Effect.map((rows) => rows.map((row) => row.name)),
          Effect.withSpan("PostgresDriver.listDatabases")
        ),
      listSchemas: (namespace) => ownOnly(namespace).pipe(Effect.zipRight(read(Catalog.listSchemas)), Effect.withSpan("PostgresDriver.listSchemas")),
      listTables: (options) => ownOnly(options).pipe(Effect.zipRight(read((db) => Catalog.listTables(db, options.includeRowCounts))), Effect.withSpan("PostgresDriver.listTables")),
      describeTable: (table, namespace) => ownOnly(namespace).pipe(Effect.zipRight(onTable(table, "readonly", Catalog.describeTable)), Effect.catchTag("InvalidArgument", (e) => Effect.fail(new DriverError({ message: e.message })))),
      tableDdl: (table, namespace) => ownOnly(namespace).pipe(Effect.zipRight(onTable(table, "readonly", Catalog.tableDdl)), Effect.catchTag("InvalidArgument", (e) => Effect.fail(new DriverError({ message: e.message })))),
      searchSchema: (term, limit, namespace) => ownOnly(namespace).pipe(Effect.zipRight(read((db) => Catalog.searchSchema(db, term, limit))), Effect.withSpan("PostgresDriver.searchSchema")),
      browse: (table, query, namespace) =>
        ownOnly(namespace).pipe(Effect.zipRight(onTable(table, "readonly", async (db, found, track) => {
          const started = performance.now()
          const known = await Catalog.columnNames(db, found.oid)
          const { sql, params } = built(buildBrowse(TABLE_SLOT, known, query, PLACEHOLDER), found)
          return toResultSet(await track(statement(db, sql, params)) as unknown as Rows, query.limit ?? 500, started)
        })), Effect.withSpan("PostgresDriver.browse")),
      count: (table, filters, logic, namespace) =>
        ownOnly(namespace).pipe(Effect.zipRight(onTable(table, "readonly", async (db, found, track) => {
          const known = await Catalog.columnNames(db, found.oid)
          const { sql, params } = built(buildCount(TABLE_SLOT, known, filters, logic, PLACEHOLDER), found)
          const rows = await track(statement(db, sql, params))
          return { row_count: Number(rows[0]?.[0] ?? 0), is_approximate: false }
        })), Effect.withSpan("PostgresDriver.count")),
      execute: (sql, options) =>
        ownOnly(options).pipe(Effect.zipRight(runner.run(options.access, options.timeoutSeconds, async (db, track) => {
          const started = performance.now()
          const rows = await track(statement(db, sql, options.params ?? []))
          return toResultSet(rows as unknown as Rows, options.maxRows, started)
        })), Effect.withSpan("PostgresDriver.execute")),
      // product-decisions §3: the tools allow analyze only for a safe inner statement; it still runs read-only.
      explain: (sql, analyze) =>
        runner.run("readonly", TOOL_SECONDS, async (db, track) => {
          const started = performance.now()
          const rows = await track(statement(db, `EXPLAIN ${analyze ? "(ANALYZE) " : ""}${sql}`, []))
          return toResultSet(rows as unknown as Rows, 10_000, started)
        }).pipe(Effect.mapError(asDriverError), Effect.withSpan("PostgresDriver.explain")),
      insertRows: (table, columns, rows) =>
        onTable(table, "readwrite", (db, found) => insertInto(db, found, columns, rows)).pipe(Effect.withSpan("PostgresDriver.insertRows")),
      close: runner.close
    }
    return driver
  })
