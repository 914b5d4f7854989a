import { Effect } from "effect"
import { AnswerBudget, BROWSE_HINTS } from "../../domain/AnswerBudget.ts"
import { readMysqlPlan } from "../../domain/CostGuard.ts"
import { type AnswerVerdict, keptNames, projectRow, withheldError, withheldRows } from "../../domain/AnswerGate.ts"
import { maskedCell } from "../../domain/ColumnGuard.ts"
import { type BuildResult, buildBrowse, buildBrowseText, buildCount, type SqlFlavor } from "./BrowseSql.ts"
import {
  type AnswerGuard,
  type ConnectionStatus,
  type DatabaseDriver,
  DriverError,
  type DryRun,
  PreviewRefused,
  type LockTimeout,
  type StatementTimeout,
  type ExecuteOptions,
  type GuardedResultSet,
  PolicyRefusal,
  type StatementAccess,
  type InsertResult,
  InvalidArgument,
  type Namespace,
  rowCountMismatch,
  TableNotFound,
  type TransactionOutcome,
  type TransactionStatement
} from "./Driver.ts"
import * as Catalog from "./mysql/MysqlCatalog.ts"
import { openMysqlCursor } from "./mysql/MysqlCursor.ts"
import { mysqlGuard } from "./mysql/MysqlGuard.ts"
import { dryRunStatement } from "./mysql/MysqlPreview.ts"
import { structureDetails } from "./mysql/MysqlStructure.ts"
import {
  makeRunner,
  type MysqlSettings,
  type RunFailure,
  type Session,
  type StreamOutcome
} from "./mysql/MysqlRunner.ts"
import type { FieldOrigin } from "./mysql/MysqlSession.ts"
import { makeRedactor } from "./Redactor.ts"

export type { MysqlSettings } from "./mysql/MysqlRunner.ts"

/** Deadline of the catalog reads, browse, count, explain and inserts, which take no timeout_seconds. */
const TOOL_SECONDS = 30
/** Preparing takes milliseconds; only a metadata lock another session holds makes it wait. */
const CHECK_SECONDS = 10
const PLACEHOLDER = () => "?"
/** browse_table's held cursor reads the table from the offset on, with no LIMIT of its own. */
const UNBOUNDED_ROWS = 2 ** 52
const MYSQL_FLAVOR: SqlFlavor = {
  quote: Catalog.quoteName,
  likeEscape: " ESCAPE '\\\\'",
  inlinePaging: true,
  backslashEscapes: true,
  textType: "CHAR"
}
/** Stands for the table in BrowseSql's output, which quotes one identifier; replaced by the database-qualified name. */
const TABLE_SLOT = "\u0000dbdesk-table\u0000"

/** A missing table, a bad argument or a refused answer found inside a session; it ends the work and becomes its own error. */
class Missing {
  constructor(readonly failure: TableNotFound | InvalidArgument | PolicyRefusal) {}
}

/** Only execute and browse keep a timeout's own meaning; elsewhere the tools show it as a driver error. */
const asReachFailure = <E extends { readonly _tag: string }>(
  error: E | StatementTimeout | LockTimeout
): E | DriverError =>
  error._tag === "StatementTimeout"
    ? new DriverError({ message: `the database did not answer within ${(error as StatementTimeout).seconds} s` })
    : error._tag === "LockTimeout"
    ? new DriverError({ message: (error as LockTimeout).message })
    : error as E

/** D-64: the guard of an MCP call, looked up before the statement in its session; the database for its names. */
interface ReadGuard {
  readonly guard: AnswerGuard
  readonly database: string | undefined
  readonly access: StatementAccess
}

/**
 * Reads a statement's rows into an answer under max_rows and the byte caps (AnswerBudget, raw values); reading stops
 * at the first row that does not fit and the statement is killed rather than drained (D-71). Under a
 * guard the answer is decided on the statement's field packets, before its first row is kept (D-64).
 */
const readInto = async (
  session: Session,
  sql: string,
  values: ReadonlyArray<unknown> | undefined,
  budget: AnswerBudget,
  started: number,
  read?: ReadGuard,
  withTypes = false
): Promise<GuardedResultSet> => {
  const decision = read === undefined ? undefined : await mysqlGuard(session, read.guard, read.database)
  let columns: ReadonlyArray<string> = []
  let types: ReadonlyArray<string> = []
  let verdict: AnswerVerdict | undefined
  let described = false
  const onRow = (row: ReadonlyArray<unknown>) => {
    if (verdict?.kind === "refuse") return read?.access === "readwrite"
    return budget.add(verdict === undefined ? row : projectRow(row, verdict.actions, maskedCell))
  }
  const onColumns = (fields: ReadonlyArray<FieldOrigin>) => {
    described = true
    verdict = decision?.decide(fields)
    const names = fields.map((field) => field.name)
    types = fields.map((field) => field.typeName ?? "")
    columns = verdict?.kind === "refuse"
      ? []
      : budget.header(verdict === undefined ? names : keptNames(names, verdict.actions))
  }
  let outcome: StreamOutcome
  try {
    outcome = await session.stream(sql, values, onRow, onColumns)
  } catch (error) {
    if (verdict?.kind === "refuse") throw new Missing(new PolicyRefusal({ refusal: verdict.refusal }))
    const failure = error as { readonly errno?: unknown; readonly fatal?: unknown }
    if (described && decision?.readsGuarded === true && typeof failure.errno === "number" && failure.fatal !== true) {
      throw new DriverError({ message: withheldError(String(failure.errno)) })
    }
    throw error
  }
  const affected = outcome.affectedRows
  const resultSet = budget.resultSet(columns, {
    executionMs: performance.now() - started,
    rowsAffected: outcome.hasResultSet ? 0 : affected,
    statusMessage: outcome.hasResultSet ? undefined : `${affected} row${affected === 1 ? "" : "s"} affected`
  })
  if (verdict?.kind === "refuse") {
    if (read?.access !== "readwrite") throw new Missing(new PolicyRefusal({ refusal: verdict.refusal }))
    return withheldRows(resultSet, verdict.refusal)
  }
  if (verdict === undefined && withTypes) return { ...resultSet, columnTypes: types }
  return verdict === undefined || verdict.applied.length === 0 ? resultSet : { ...resultSet, applied: verdict.applied }
}

/**
 * MySQL 8.0+ and MariaDB 10.6+ driver (D-75): a lazily opened pool per connection; safe statements inside
 * `START TRANSACTION READ ONLY`; interruption and the statement deadline send `KILL QUERY` on a separate session.
 */
export const makeMysqlDriver = (settings: MysqlSettings): Effect.Effect<DatabaseDriver> =>
  Effect.sync(() => {
    const redact = makeRedactor(settings.secrets ?? [])
    const runner = makeRunner(settings, redact)

    /** The database a call works in; `schema` has no meaning apart from it (a MySQL schema is a database). */
    const target = (namespace: Namespace | undefined, needed: boolean) => {
      if (namespace?.schema !== undefined) {
        return Effect.fail(
          new InvalidArgument({
            message: "on MySQL and MariaDB a schema is a database: pass it as database (list_databases names them)"
          })
        )
      }
      const database = namespace?.database ?? settings.database
      if (needed && database === undefined) {
        return Effect.fail(
          new InvalidArgument({
            message: `'${settings.name}' has no default database: pass database (list_databases names them)`
          })
        )
      }
      return Effect.succeed(database)
    }

    /** Calls that name no table cannot miss one. */
    const noTable = <A, E>(effect: Effect.Effect<A, E | TableNotFound>) =>
      Effect.catchIf(effect, (error): error is TableNotFound =>
        (error as { _tag?: string })._tag === "TableNotFound", (error) =>
        Effect.fail(new DriverError({ message: `no table ${error.table}` })))

    const settle = <A>(
      effect: Effect.Effect<
        { ok: true; value: A } | { ok: false; failure: TableNotFound | InvalidArgument | PolicyRefusal },
        RunFailure
      >
    ) =>
      Effect.flatMap(effect, (outcome) => (outcome.ok ? Effect.succeed(outcome.value) : Effect.fail(outcome.failure)))

    const inSession = <A>(
      access: "readonly" | "readwrite",
      seconds: number,
      database: string | undefined,
      body: (session: Session) => Promise<A>
    ) =>
      settle(runner.run(access, seconds, database, (session) =>
        body(session).then((value) => ({ ok: true as const, value }), (error: unknown) => {
          if (error instanceof Missing) {
            return { ok: false as const, failure: error.failure }
          }
          throw error
        })))

    const read = <A>(namespace: Namespace | undefined, body: (session: Session, database: string) => Promise<A>) =>
      Effect.flatMap(target(namespace, true), (database) =>
        inSession("readonly", TOOL_SECONDS, database, (session) =>
          body(session, database!))).pipe(
          noTable,
          Effect.mapError(asReachFailure)
        )

    const onTable = <A>(
      table: string,
      namespace: Namespace | undefined,
      access: "readonly" | "readwrite",
      body: (session: Session, found: Catalog.ResolvedTable, database: string) => Promise<A>
    ) =>
      Effect.flatMap(target(namespace, true), (database) =>
        inSession(access, TOOL_SECONDS, database, async (session) => {
          const found = await Catalog.findTable(session, table, database!, namespace?.exact)
          if (found === undefined) {
            throw new Missing(new TableNotFound({ table }))
          }
          return body(session, found, database!)
        })).pipe(Effect.mapError(asReachFailure))

    const built = (result: BuildResult, found: Catalog.ResolvedTable) => {
      if (!result.ok) {
        throw new Missing(new InvalidArgument({ message: result.message }))
      }
      return {
        sql: result.value.sql.replace(Catalog.quoteName(TABLE_SLOT), Catalog.qualifiedName(found)),
        params: result.value.params
      }
    }

    const status = (): Effect.Effect<ConnectionStatus> =>
      inSession("readonly", TOOL_SECONDS, undefined, async (session) =>
        (await session.query("SELECT VERSION()")).rows[0]?.[0]).pipe(
          Effect.map((version): ConnectionStatus => {
            const text = String(version ?? "")
            return {
              status: "connected",
              server_version: /mariadb/i.test(text) ? `MariaDB ${text.replace(/-MariaDB.*$/i, "")}` : `MySQL ${text}`
            }
          }),
          Effect.catchAll((error) =>
            Effect.succeed<ConnectionStatus>({ status: "error", error: error.message })
          ),
          Effect.withSpan("MysqlDriver.status")
        )

    const insertInto = async (
      session: Session,
      found: Catalog.ResolvedTable,
      columns: ReadonlyArray<string>,
      rows: ReadonlyArray<ReadonlyArray<unknown>>
    ): Promise<InsertResult> => {
      const known = await Catalog.columnNames(session, found)
      const unknown = columns.find((column) =>
        !known.includes(column)
      )
      if (unknown !== undefined) {
        throw new Missing(
          new InvalidArgument({ message: `unknown column "${unknown}"; the table has: ${known.join(", ")}` })
        )
      }
      const sql = `INSERT INTO ${Catalog.qualifiedName(found)} (${columns.map(Catalog.quoteName).join(", ")}) VALUES (${
        columns.map(() =>
          "?"
        ).join(", ")
      })`
      const failed: Array<{ index: number; error: string }> = []
      let affected = 0
      await session.query("START TRANSACTION")
      for (const [index, row] of rows.entries()) {
        if (row.length !== columns.length) {
          failed.push({ index, error: `expected ${columns.length} values, got ${row.length}` })
          continue
        }
        await session.query("SAVEPOINT dbdesk_row")
        try {
          affected +=
            (await session.query(sql, row.map((value) => (typeof value === "boolean" ? Number(value) : value))))
              .affectedRows
          await session.query("RELEASE SAVEPOINT dbdesk_row")
        } catch (error) {
          if ((error as { fatal?: boolean }).fatal === true) throw error
          await session.query("ROLLBACK TO SAVEPOINT dbdesk_row")
          failed.push({ index, error: redact((error as { sqlMessage?: string }).sqlMessage ?? String(error)) })
        }
      }
      await session.query("COMMIT")
      return { rows_affected: affected, failed_rows: failed }
    }

    /** The grid's Save (D-86): one transaction, a savepoint per statement so every failing one is reported. */
    const transact = async (
      session: Session,
      statements: ReadonlyArray<TransactionStatement>
    ): Promise<TransactionOutcome> => {
      const results: Array<TransactionOutcome["results"][number]> = []
      await session.query("START TRANSACTION")
      for (const statement of statements) {
        await session.query("SAVEPOINT dbdesk_edit")
        try {
          const changes = (await session.query(statement.sql)).affectedRows
          const mismatch = statement.expectRows !== undefined && changes !== statement.expectRows
          await session.query(mismatch ? "ROLLBACK TO SAVEPOINT dbdesk_edit" : "RELEASE SAVEPOINT dbdesk_edit")
          results.push({
            rowsAffected: changes,
            error: mismatch ? rowCountMismatch(statement.expectRows, changes) : null
          })
        } catch (error) {
          if ((error as { fatal?: boolean }).fatal === true) throw error
          await session.query("ROLLBACK TO SAVEPOINT dbdesk_edit")
          results.push({
            rowsAffected: null,
            error: redact((error as { sqlMessage?: string }).sqlMessage ?? String(error))
          })
        }
      }
      const committed = results.every((result) => result.error === null)
      await session.query(committed ? "COMMIT" : "ROLLBACK")
      return { committed, results }
    }

    const execute = (sql: string, options: ExecuteOptions) =>
      Effect.flatMap(target(options, false), (database) =>
        inSession(options.access, options.timeoutSeconds, database, (session) =>
          readInto(
            session,
            sql,
            options.params,
            new AnswerBudget(options.maxRows, options.limits),
            performance.now(),
            options.guard === undefined ? undefined : { guard: options.guard, database, access: options.access },
            options.columnTypes === true
          ))).pipe(noTable)

    const driver: DatabaseDriver = {
      dialect: "mysql",
      status,
      listDatabases: () =>
        inSession("readonly", TOOL_SECONDS, undefined, Catalog.listDatabases).pipe(
          noTable,
          Effect.mapError(asReachFailure),
          Effect.withSpan("MysqlDriver.listDatabases")
        ),
      listTables: (options) =>
        read(options, (session) =>
          Catalog.listTables(session, options.includeRowCounts)).pipe(Effect.withSpan("MysqlDriver.listTables")),
      resolveTable: (table, namespace) =>
        onTable(table, namespace, "readonly", async (_, found) => ({ schema: found.database, name: found.name })).pipe(
          Effect.withSpan("MysqlDriver.resolveTable")
        ),
      describeTable: (table, namespace) =>
        onTable(table, namespace, "readonly", (session, found, database) =>
          Catalog.describeTable(session, found, database)).pipe(Effect.withSpan("MysqlDriver.describeTable")),
      structureDetails: (table, namespace) =>
        onTable(table, namespace, "readonly", (session, found) =>
          structureDetails(session, found)).pipe(Effect.withSpan("MysqlDriver.structureDetails")),
      tableDdl: (table, namespace) =>
        onTable(table, namespace, "readonly", Catalog.tableDdl).pipe(Effect.withSpan("MysqlDriver.tableDdl")),
      searchSchema: (term, limit, namespace) =>
        read(namespace, (session, database) =>
          Catalog.searchSchema(session, term, limit, database)).pipe(Effect.withSpan("MysqlDriver.searchSchema")),
      browse: (table, query, namespace, limits, guard) =>
        onTable(table, namespace, "readonly", async (session, found, _database) => {
          const started = performance.now()
          const known = await Catalog.columnNames(session, found)
          const { sql, params } = built(buildBrowse(TABLE_SLOT, known, query, PLACEHOLDER, MYSQL_FLAVOR), found)
          const read = guard === undefined
            ? undefined
            : {
              guard: { ...guard, facts: { ...guard.facts, names: [found.name] } },
              database: found.database,
              access: "readonly" as const
            }
          return readInto(session, sql, params, new AnswerBudget(query.limit ?? 500, limits), started, read)
        }).pipe(Effect.withSpan("MysqlDriver.browse")),
      browseText: (table, query, namespace) =>
        onTable(table, namespace, "readonly", async (session, found) =>
          built(buildBrowseText(TABLE_SLOT, await Catalog.columnNames(session, found), query, MYSQL_FLAVOR), found).sql)
          .pipe(Effect.withSpan("MysqlDriver.browseText")),
      count: (table, filters, logic, namespace, guard) =>
        onTable(table, namespace, "readonly", async (session, found) => {
          const known = await Catalog.columnNames(session, found)
          const { sql, params } = built(buildCount(TABLE_SLOT, known, filters, logic, PLACEHOLDER, MYSQL_FLAVOR), found)
          if (guard !== undefined) {
            const read = {
              guard: { ...guard, facts: { ...guard.facts, names: [found.name] } },
              database: found.database,
              access: "readonly" as const
            }
            const counted = await readInto(session, sql, params, new AnswerBudget(1), performance.now(), read)
            return { row_count: Number(counted.rows[0]?.[0] ?? 0), is_approximate: false }
          }
          const outcome = await session.query(sql, params)
          return { row_count: Number(outcome.rows[0]?.[0] ?? 0), is_approximate: false }
        }).pipe(Effect.withSpan("MysqlDriver.count")),
      // No span here: every execute_query runs this, and a span (with its stack trace) costs ~10 µs (D-84).
      execute: (sql, options) =>
        execute(sql, options),
      // fetch_more: a safe statement's rows streamed on a session held for it, the socket paused between pages (D-93).
      openCursor: (sql, options) =>
        Effect.flatMap(target(options, false), (database) =>
          openMysqlCursor(runner, sql, undefined, database, options)),
      // browse_table's rows with no LIMIT of their own (from the offset on), read page by page like a statement.
      openBrowseCursor: (table, query, options) =>
        Effect.flatMap(
          onTable(table, options, "readonly", async (session, found) => ({
            found,
            ...built(
              buildBrowse(
                TABLE_SLOT,
                await Catalog.columnNames(session, found),
                { ...query, limit: UNBOUNDED_ROWS },
                PLACEHOLDER,
                MYSQL_FLAVOR
              ),
              found
            )
          })),
          ({ found, sql, params }) =>
            openMysqlCursor(runner, sql, params, found.database, {
              ...options,
              guard: options.guard === undefined
                ? undefined
                : { ...options.guard, facts: { ...options.guard.facts, names: [found.name] } }
            }, BROWSE_HINTS)
        ),
      // The tools allow analyze only for a safe inner statement (MariaDB's ANALYZE runs it); it still runs read-only.
      explain: (sql, analyze, limits) =>
        Effect.flatMap(runner.flavor(), (flavor) => {
          const prefix = !analyze
            ? "EXPLAIN FORMAT=JSON"
            : flavor === "mariadb"
            ? "ANALYZE FORMAT=JSON"
            : "EXPLAIN ANALYZE"
          return execute(`${prefix} ${sql}`, {
            maxRows: 10_000,
            timeoutSeconds: TOOL_SECONDS,
            access: "readonly",
            ...(limits === undefined ? {} : { limits })
          })
        }).pipe(Effect.mapError(asReachFailure), Effect.withSpan("MysqlDriver.explain")),
      // D-96: classic EXPLAIN (its rows column holds on MySQL 8 and MariaDB 10.6 to 11) in a read-only transaction.
      estimate: (sql, options) =>
        Effect.flatMap(target(options, false), (database) =>
          inSession("readonly", options.seconds, database, async (session) => {
            const plan = await session.query(`EXPLAIN ${sql}`)
            return readMysqlPlan(plan.columns, plan.rows)
          })).pipe(noTable, Effect.withSpan("MysqlDriver.estimate")),
      check: (sql, options) =>
        Effect.flatMap(target(options, false), (database) =>
          inSession(options.access, CHECK_SECONDS, database, (session) =>
            session.prepare(sql))).pipe(
            noTable,
            Effect.withSpan("MysqlDriver.check")
          ),
      dryRun: (plan, options) =>
        Effect.flatMap(target(options, false), (database) =>
          inSession("readwrite", options.seconds, database, (session) =>
            dryRunStatement(session, plan, options.params).catch((
              error: unknown
            ) => (error instanceof PreviewRefused ? error : Promise.reject(error))))).pipe(
            noTable,
            Effect.flatMap((
              outcome
            ): Effect.Effect<
              DryRun,
              PreviewRefused
            > => (outcome instanceof PreviewRefused ? Effect.fail(outcome) : Effect.succeed(outcome))),
            Effect.withSpan("MysqlDriver.dryRun")
          ),
      insertRows: (table, columns, rows) =>
        onTable(table, undefined, "readwrite", (session, found) =>
          insertInto(session, found, columns, rows)).pipe(Effect.withSpan("MysqlDriver.insertRows")),
      transaction: (statements, options) =>
        Effect.flatMap(target(options, false), (database) =>
          inSession("readwrite", options.timeoutSeconds, database, (session) =>
            transact(session, statements))).pipe(
            noTable,
            Effect.mapError((
              error
            ) => (error._tag === "LockTimeout" ? new DriverError({ message: error.message }) : error)),
            Effect.withSpan("MysqlDriver.transaction")
          ),
      close: runner.close
    }
    return driver
  })
