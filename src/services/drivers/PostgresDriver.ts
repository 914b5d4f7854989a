import { Effect } from "effect"
import { type AnswerHints, type AnswerLimits, BROWSE_HINTS } from "../../domain/AnswerBudget.ts"
import { withheldRows } from "../../domain/AnswerGate.ts"
import { readPostgresPlan } from "../../domain/CostGuard.ts"
import type { ResultSet } from "../../domain/ResultSet.ts"
import {
  type BuildResult,
  buildBrowse,
  buildBrowseText,
  buildCount,
  POSTGRES_FLAVOR,
  quoteIdentifier
} from "./BrowseSql.ts"
import {
  type ConnectionStatus,
  type DatabaseDriver,
  DriverError,
  type DryRun,
  type InsertResult,
  InvalidArgument,
  type AnswerGuard,
  type GuardedResultSet,
  type LockTimeout,
  type Namespace,
  PolicyRefusal,
  PreviewRefused,
  type ReachFailure,
  rowCountMismatch,
  type StatementAccess,
  type TransactionOutcome,
  type TransactionStatement,
  type StatementTimeout,
  type TableNotFound,
  Unsupported
} from "./Driver.ts"
import * as Catalog from "./postgres/PostgresCatalog.ts"
import { parameterText } from "./postgres/PgCells.ts"
import { guardedFailure, PgGuardLookup } from "./postgres/PgGuard.ts"
import type { PipelineResult } from "./postgres/PgPipeline.ts"
import { openPgCursor } from "./postgres/PgCursor.ts"
import { checkStatement, dryRunStatement } from "./postgres/PgPreview.ts"
import { ResultCollector } from "./postgres/PgResults.ts"
import { pgTypeName } from "./postgres/PgTypeNames.ts"
import { structureDetails } from "./postgres/PgStructure.ts"
import { rowRejection } from "./postgres/PostgresErrors.ts"
import {
  type Db,
  makeRunner,
  type PostgresSettings,
  type RunFailure,
  searchPathStep
} from "./postgres/PostgresRunner.ts"
import { makeRedactor } from "./Redactor.ts"

export type { PostgresSettings } from "./postgres/PostgresRunner.ts"

/** Deadline of the catalog reads, browse, count, explain and inserts, which take no timeout_seconds. */
const TOOL_SECONDS = 30
/** Parsing takes milliseconds; only a lock held by another session (parse analysis takes one) makes it wait. */
const CHECK_SECONDS = 10
const PLACEHOLDER = (position: number) => `$${position}`
/** browse_table read as a held cursor: its LIMIT is no limit, the pages are cut by the cursor. */
const UNBOUNDED_ROWS = 2 ** 52
/** Stands for the table in BrowseSql's output, which quotes one identifier; replaced by the schema-qualified name. */
const TABLE_SLOT = "\u0000dbdesk-table\u0000"

/** Outside execute a deadline is not -33003 but a database that did not answer in time; lock waits likewise. */
const asToolFailure = (error: RunFailure): ReachFailure | TableNotFound => {
  switch (error._tag) {
    case "StatementTimeout":
      return new DriverError({ message: `the database did not answer within ${error.seconds} s` })
    case "Unsupported":
      return new DriverError({ message: error.message })
    default:
      return error
  }
}

const asExecuteFailure = (error: RunFailure): ReachFailure | StatementTimeout | LockTimeout | Unsupported =>
  error._tag === "TableNotFound" ? new DriverError({ message: `no table named ${error.table}` }) : error

const built = (result: BuildResult, found: Catalog.ResolvedTable) => {
  if (!result.ok) throw new InvalidArgument({ message: result.message })
  return {
    sql: result.value.sql.replace(quoteIdentifier(TABLE_SLOT), Catalog.qualifiedName(found)),
    values: result.value.params.map(parameterText)
  }
}

/** What a statement left open that a call cannot keep: its transaction is rolled back when the call ends. */
const SPANNING_TRANSACTION =
  "each execute_query call runs on its own and ends with no transaction open, so BEGIN, COMMIT and ROLLBACK cannot span calls; the transaction this statement opened was rolled back. Send the change as one statement (an UPDATE, INSERT … SELECT or a data-modifying WITH)"

/**
 * PostgreSQL driver on `pg` (D-72, D-73): a pool per database of the connection, one round trip per read
 * (PgPipeline.ts) with at most max_rows + 1 rows fetched, answers under the byte caps (PgResults.ts), and every
 * session given back clean or destroyed (PostgresRunner.ts).
 */
export const makePostgresDriver = (settings: PostgresSettings): Effect.Effect<DatabaseDriver> =>
  Effect.sync(() => {
    const redact = makeRedactor(settings.secrets ?? [])
    const runner = makeRunner(settings, redact)

    const read = <A>(body: (db: Db) => Promise<A>, namespace?: Namespace, access: StatementAccess = "readonly") =>
      Effect.mapError(runner.run({ access, seconds: TOOL_SECONDS, namespace, body }), asToolFailure)

    /** A read that names no table: a TableNotFound cannot come from it. */
    const list = <A>(body: (db: Db) => Promise<A>, namespace?: Namespace) =>
      Effect.mapError(read(body, namespace), (error): ReachFailure => (error._tag === "TableNotFound"
        ? new DriverError({ message: `no table named ${error.table}` })
        : error))

    /**
     * Runs a statement and collects its answer; reads fetch at most max_rows + 1 rows and stop at the caps. Under a
     * guard (D-64) the catalog lookup goes first in the same round trip and the answer is decided on the
     * statement's RowDescription: refused (a write's rows withheld, its effect reported), or masked and hidden.
     */
    const statement = async (
      db: Db,
      access: StatementAccess,
      sql: string,
      values: ReadonlyArray<string | null>,
      options: {
        readonly maxRows: number
        readonly limits?: AnswerLimits | undefined
        readonly hints?: AnswerHints
        readonly guard?: AnswerGuard | undefined
        readonly columnTypes?: boolean | undefined
      }
    ): Promise<GuardedResultSet> => {
      const started = performance.now()
      const lookup = options.guard === undefined ? undefined : new PgGuardLookup(options.guard)
      const collector = new ResultCollector(
        options.maxRows,
        options.limits,
        access === "readonly",
        options.hints,
        lookup
      )
      const steps = [...(lookup?.steps ?? []), {
        text: sql,
        values,
        rows: { limit: collector.portalRows, sink: collector }
      }]
      let result: PipelineResult
      try {
        result = access === "readonly" ? await db.read(steps) : await db.plain(steps)
      } catch (error) {
        throw guardedFailure(error, collector, lookup)
      }
      const resultSet = collector.resultSet(result, result.outcomes[steps.length - 1], started)
      const confirmation = lookup?.confirmation
      if (confirmation !== undefined) {
        await (access === "readonly" ? db.read(confirmation) : db.plain(confirmation))
        collector.verdict = lookup!.decide(collector.columns)
      }
      const verdict = collector.verdict
      if (verdict?.kind === "refuse") {
        if (access === "readonly") throw new PolicyRefusal({ refusal: verdict.refusal })
        return withheldRows(resultSet, verdict.refusal)
      }
      if (verdict === undefined && options.columnTypes === true) {
        return {
          ...resultSet,
          columnTypes: collector.columns.map((field) => pgTypeName(field.typeOid))
        }
      }
      return verdict === undefined || verdict.applied.length === 0
        ? resultSet
        : { ...resultSet, applied: verdict.applied }
    }

    const status = (): Effect.Effect<ConnectionStatus> =>
      list((db) => db.rows<{ version: string }>("SELECT current_setting('server_version') AS version")).pipe(
        Effect.map((rows): ConnectionStatus => ({
          status: "connected",
          server_version: `PostgreSQL ${rows[0]?.version ?? ""}`.trim()
        })),
        Effect.catchAll((error) => Effect.succeed<ConnectionStatus>({ status: "error", error: error.message })),
        Effect.withSpan("PostgresDriver.status")
      )

    const insertInto = async (
      db: Db,
      table: string,
      columns: ReadonlyArray<string>,
      rows: ReadonlyArray<ReadonlyArray<unknown>>
    ): Promise<InsertResult> => {
      const found = await Catalog.findTable(db, table)
      const known = await Catalog.columnNames(db, found.oid)
      const unknown = columns.find((column) => !known.includes(column))
      if (unknown !== undefined) {
        throw new InvalidArgument({
          message: `unknown column "${unknown}"; the table has: ${known.join(", ")}`
        })
      }
      const sql = `INSERT INTO ${Catalog.qualifiedName(found)} (${columns.map(quoteIdentifier).join(", ")}) VALUES (${
        columns.map((_, i) => `$${i + 1}`).join(", ")
      })`
      const failed: Array<{ index: number; error: string }> = []
      let affected = 0
      await db.plain([{ text: "BEGIN" }])
      for (const [index, row] of rows.entries()) {
        if (row.length !== columns.length) {
          failed.push({ index, error: `expected ${columns.length} values, got ${row.length}` })
          continue
        }
        try {
          // One round trip per row; a failing row is undone to its savepoint and reported, the others kept.
          const result = await db.plain([{ text: "SAVEPOINT dbdesk_row" }, {
            text: sql,
            values: row.map(parameterText)
          }, { text: "RELEASE SAVEPOINT dbdesk_row" }])
          affected += result.outcomes[1]?.count ?? 0
        } catch (error) {
          const rejected = rowRejection(error)
          if (rejected === undefined) throw error
          await db.plain([{ text: "ROLLBACK TO SAVEPOINT dbdesk_row" }])
          failed.push({ index, error: redact(rejected) })
        }
      }
      await db.plain([{ text: "COMMIT" }])
      return { rows_affected: affected, failed_rows: failed }
    }

    /** The grid's Save (D-86): one transaction, a savepoint per statement so every failing one is reported. */
    const transact = async (db: Db, statements: ReadonlyArray<TransactionStatement>): Promise<TransactionOutcome> => {
      const results: Array<TransactionOutcome["results"][number]> = []
      await db.plain([{ text: "BEGIN" }])
      for (const statement of statements) {
        try {
          const result = await db.plain([{ text: "SAVEPOINT dbdesk_edit" }, { text: statement.sql }])
          const changes = result.outcomes[1]?.count ?? 0
          const mismatch = statement.expectRows !== undefined && changes !== statement.expectRows
          await db.plain([{ text: mismatch ? "ROLLBACK TO SAVEPOINT dbdesk_edit" : "RELEASE SAVEPOINT dbdesk_edit" }])
          results.push({
            rowsAffected: changes,
            error: mismatch ? rowCountMismatch(statement.expectRows, changes) : null
          })
        } catch (error) {
          const rejected = rowRejection(error)
          if (rejected === undefined) throw error
          await db.plain([{ text: "ROLLBACK TO SAVEPOINT dbdesk_edit" }])
          results.push({ rowsAffected: null, error: redact(rejected) })
        }
      }
      const committed = results.every((result) => result.error === null)
      await db.plain([{ text: committed ? "COMMIT" : "ROLLBACK" }])
      return { committed, results }
    }

    const driver: DatabaseDriver = {
      dialect: "postgresql",
      status,
      listDatabases: () =>
        list((db) => db.rows<{ name: string }>(Catalog.DATABASES_SQL)).pipe(
          Effect.map((rows) => rows.map((row) => row.name)),
          Effect.withSpan("PostgresDriver.listDatabases")
        ),
      listSchemas: (namespace) =>
        list(Catalog.listSchemas, namespace).pipe(Effect.withSpan("PostgresDriver.listSchemas")),
      listTables: (options) =>
        list((db) => Catalog.listTables(db, options.includeRowCounts, options.schema), options).pipe(
          Effect.withSpan("PostgresDriver.listTables")
        ),
      resolveTable: (table, namespace) =>
        read(async (db) => {
          const found = await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)
          return { schema: found.schema, name: found.name }
        }, namespace).pipe(Effect.withSpan("PostgresDriver.resolveTable")),
      describeTable: (table, namespace) =>
        read(
          async (db) =>
            Catalog.describeTable(db, await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)),
          namespace
        ).pipe(
          Effect.withSpan("PostgresDriver.describeTable")
        ),
      structureDetails: (table, namespace) =>
        read(
          async (db) => structureDetails(db, await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)),
          namespace
        ).pipe(
          Effect.withSpan("PostgresDriver.structureDetails")
        ),
      tableDdl: (table, namespace) =>
        read(
          async (db) => Catalog.tableDdl(db, await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)),
          namespace
        ).pipe(
          Effect.withSpan("PostgresDriver.tableDdl")
        ),
      searchSchema: (term, limit, namespace) =>
        list((db) => Catalog.searchSchema(db, term, limit, namespace?.schema), namespace).pipe(
          Effect.withSpan("PostgresDriver.searchSchema")
        ),
      browse: (table, query, namespace, limits, guard) =>
        read(async (db) => {
          const found = await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)
          const known = await Catalog.columnNames(db, found.oid)
          const { sql, values } = built(buildBrowse(TABLE_SLOT, known, query, PLACEHOLDER, POSTGRES_FLAVOR), found)
          return statement(db, "readonly", sql, values, {
            maxRows: query.limit ?? 500,
            limits,
            hints: BROWSE_HINTS,
            guard: guard === undefined ? undefined : { ...guard, facts: { ...guard.facts, names: [found.name] } }
          })
        }, namespace).pipe(Effect.withSpan("PostgresDriver.browse")),
      browseText: (table, query, namespace) =>
        read(async (db) => {
          const found = await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)
          return built(
            buildBrowseText(TABLE_SLOT, await Catalog.columnNames(db, found.oid), query, POSTGRES_FLAVOR),
            found
          ).sql
        }, namespace).pipe(Effect.withSpan("PostgresDriver.browseText")),
      count: (table, filters, logic, namespace, guard) =>
        read(async (db) => {
          const found = await Catalog.findTable(db, table, namespace?.schema, namespace?.exact)
          const known = await Catalog.columnNames(db, found.oid)
          const { sql, values } = built(
            buildCount(TABLE_SLOT, known, filters, logic, PLACEHOLDER, POSTGRES_FLAVOR),
            found
          )
          if (guard !== undefined) {
            const counted = await statement(db, "readonly", sql, values, {
              maxRows: 1,
              guard: { ...guard, facts: { ...guard.facts, names: [found.name] } }
            })
            return { row_count: Number(counted.rows[0]?.[0] ?? 0), is_approximate: false }
          }
          const [row] = await db.rows<Record<string, unknown>>(sql, values)
          return { row_count: Number(Object.values(row ?? {})[0] ?? 0), is_approximate: false }
        }, namespace).pipe(Effect.withSpan("PostgresDriver.count")),
      // No span here: every execute_query runs this, and a span (with its stack trace) costs ~10 µs (D-84).
      execute: (sql, options) =>
        runner.run({
          access: options.access,
          seconds: options.timeoutSeconds,
          namespace: options,
          searchPath: true,
          body: async (db): Promise<ResultSet> => {
            const resultSet = await statement(
              db,
              options.access,
              sql,
              (options.params ?? []).map(parameterText),
              options
            )
            if (options.access === "readwrite" && db.transactionStatus() !== "I") {
              throw new Unsupported({ message: SPANNING_TRANSACTION })
            }
            return resultSet
          }
        }).pipe(Effect.mapError(asExecuteFailure)),
      // fetch_more: a safe statement is read page by page from its portal, on a session held for it.
      openCursor: (sql, options) => {
        const prefix = options.schema === undefined ? [] : [searchPathStep(options.schema, true)]
        return openPgCursor(runner, sql, [], prefix, options)
      },
      // browse_table's rows with no LIMIT of their own (from the offset on), read page by page like a statement.
      openBrowseCursor: (table, query, options) =>
        Effect.flatMap(
          read(async (db) => {
            const found = await Catalog.findTable(db, table, options.schema)
            const known = await Catalog.columnNames(db, found.oid)
            return {
              found,
              ...built(buildBrowse(TABLE_SLOT, known, { ...query, limit: UNBOUNDED_ROWS }, PLACEHOLDER), found)
            }
          }, options),
          ({ found, sql, values }) =>
            openPgCursor(runner, sql, values, [], {
              ...options,
              guard: options.guard === undefined
                ? undefined
                : { ...options.guard, facts: { ...options.guard.facts, names: [found.name] } }
            }, BROWSE_HINTS)
        ),
      // D-21: the tools allow analyze only for a safe inner statement; it still runs read-only.
      explain: (sql, analyze, limits) =>
        list((db) =>
          statement(db, "readonly", `EXPLAIN ${analyze ? "(ANALYZE) " : ""}${sql}`, [], { maxRows: 10_000, limits })
        ).pipe(
          Effect.withSpan("PostgresDriver.explain")
        ),
      // D-96: EXPLAIN (FORMAT JSON) in the read-only transaction the statement would run in; nothing runs.
      estimate: (sql, options) =>
        runner.run({
          access: "readonly",
          seconds: options.seconds,
          namespace: options,
          searchPath: true,
          body: async (db) =>
            readPostgresPlan(
              Object.values((await db.rows<Record<string, unknown>>(`EXPLAIN (FORMAT JSON) ${sql}`))[0] ?? {})[0]
            )
        }).pipe(
          Effect.mapError(asExecuteFailure),
          Effect.catchTag("Unsupported", (error) => Effect.fail(new DriverError({ message: error.message }))),
          Effect.withSpan("PostgresDriver.estimate")
        ),
      check: (sql, options) =>
        runner.run({
          access: "readonly",
          seconds: CHECK_SECONDS,
          namespace: options,
          searchPath: true,
          body: (db) => checkStatement(db, sql)
        })
          .pipe(
            Effect.mapError(asExecuteFailure),
            Effect.catchTag("Unsupported", (error) => Effect.fail(new DriverError({ message: error.message }))),
            Effect.withSpan("PostgresDriver.check")
          ),
      // The same session rules as the approved write: a read-write session, its statement_timeout the time box.
      dryRun: (plan, options) =>
        runner.run({
          access: "readwrite",
          seconds: options.seconds,
          namespace: options,
          searchPath: true,
          body: (db) =>
            dryRunStatement(db, plan, options.seconds, (options.params ?? []).map(parameterText)).catch((
              error: unknown
            ) => (error instanceof PreviewRefused ? error : Promise.reject(error)))
        }).pipe(
          Effect.mapError(asExecuteFailure),
          Effect.catchTag("Unsupported", (error) => Effect.fail(new DriverError({ message: error.message }))),
          Effect.flatMap((
            outcome
          ): Effect.Effect<
            DryRun,
            PreviewRefused
          > => (outcome instanceof PreviewRefused ? Effect.fail(outcome) : Effect.succeed(outcome))),
          Effect.withSpan("PostgresDriver.dryRun")
        ),
      insertRows: (table, columns, rows) =>
        read((db) => insertInto(db, table, columns, rows), undefined, "readwrite").pipe(
          Effect.withSpan("PostgresDriver.insertRows")
        ),
      transaction: (statements, options) =>
        runner.run({
          access: "readwrite",
          seconds: options.timeoutSeconds,
          namespace: options,
          body: (db) => transact(db, statements)
        }).pipe(
          Effect.mapError((error) =>
            error._tag === "StatementTimeout"
              ? error
              : error._tag === "Unsupported" || error._tag === "TableNotFound"
              ? new DriverError({ message: redact(String(error)) })
              : error
          ),
          Effect.withSpan("PostgresDriver.transaction")
        ),
      close: runner.close
    }
    return driver
  })
