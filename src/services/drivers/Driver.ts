import { Data, type Effect } from "effect"
import type { PlanReading } from "../../domain/CostGuard.ts"
import type { FilterLogic, GridFilter, GridQuery } from "../../domain/SqlBrowse.ts"
import type { SchemaMatch, TableDescription, TableEntry } from "../../domain/SqlTable.ts"
import type { ResultSet } from "../../domain/ResultSet.ts"
import type { SqlDialect } from "../../domain/StatementClassifier.ts"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"
import type { AppliedRule, Refusal } from "../../domain/AnswerGate.ts"
import type { PreviewRow } from "../../domain/ApprovalPreview.ts"
import type { GuardPolicy } from "../../domain/ColumnGuard.ts"
import type { PreviewPlan } from "../../domain/PreviewPlan.ts"
import type { StatementFacts } from "../../domain/StatementGate.ts"
import type { ResolvedRelation } from "../../domain/TableReference.ts"
import type { StructureDetails } from "../../domain/TableStructure.ts"

/** A failure reported by the database; `message` has already been through the connection's redactor (C7.2-b). */
export class DriverError extends Data.TaggedError("DriverError")<{ readonly message: string }> {}

/** dbdesk's statement deadline ended the call; the MCP layer answers -33003 with `data.deadline: "statement"`. */
export class StatementTimeout extends Data.TaggedError("StatementTimeout")<{ readonly seconds: number }> {}

/** The database gave up waiting for a lock (PostgreSQL SQLSTATE 55P03); the tools answer `timeout:` (D-18). */
export class LockTimeout extends Data.TaggedError("LockTimeout")<{ readonly message: string }> {}

export class TableNotFound extends Data.TaggedError("TableNotFound")<{ readonly table: string }> {}

/**
 * D-65: the answer of an MCP call is refused by the connection's AI settings (a secret catalog, or output that
 * cannot be traced while masking rules apply). The message names the rule and the setting.
 */
export class PolicyRefusal extends Data.TaggedError("PolicyRefusal")<{ readonly refusal: Refusal }> {}

/** An argument the database cannot accept as given (unknown column, missing filter value…). */
export class InvalidArgument extends Data.TaggedError("InvalidArgument")<{ readonly message: string }> {}

export class Unsupported extends Data.TaggedError("Unsupported")<{ readonly message: string }> {}

/** The database server cannot be reached or the session was lost; the message names the connection (`not_connected:`). */
export class NotConnected extends Data.TaggedError("NotConnected")<{ readonly message: string }> {}

/** A database or schema named in the arguments does not exist (`not_found:`); the message says where to look. */
export class NamespaceNotFound extends Data.TaggedError("NamespaceNotFound")<{ readonly message: string }> {}

/**
 * What any call may fail with besides its own errors: the database, the connection, a missing database or schema, a
 * lock another session or process holds past the database's own timeout, the AI settings of an MCP caller's guard.
 */
export type ReachFailure =
  | DriverError
  | NotConnected
  | NamespaceNotFound
  | InvalidArgument
  | LockTimeout
  | PolicyRefusal

/**
 * Where a call reaches (D-72): `database` is another database of the connection's server, reached with the
 * same credentials (default: the connection's own); `schema` is the schema of the tables named or listed (default:
 * every schema for listings, the search path for table names). A driver refuses a value it cannot honour with
 * InvalidArgument (SQLite has only `main`), never ignores it.
 */
export interface Namespace {
  readonly database?: string | undefined
  readonly schema?: string | undefined
  /**
   * The table argument is a stored name `resolveTable` returned, inside `schema` (PostgreSQL) or `database` (MySQL):
   * it is looked up as it is, no other reading tried, so a call reads the very object its table gate decided on.
   */
  readonly exact?: boolean | undefined
}

export interface ConnectionStatus {
  readonly status: "connected" | "disconnected" | "error"
  readonly server_version?: string
  readonly error?: string
}

/** `readonly` runs on a handle that cannot write (SQLite) or inside `BEGIN READ ONLY` (PostgreSQL). */
export type StatementAccess = "readonly" | "readwrite"

/**
 * D-64: what guards an MCP caller's answer (the UI, the user's own client, passes none): the connection's AI
 * settings and what the statement gate found in the text. The driver decides from its column origins.
 */
export interface AnswerGuard {
  readonly policy: GuardPolicy
  readonly facts: StatementFacts
}

/** A result set built under a guard: `applied` names the masking rules that changed it (for the activity log). */
export type GuardedResultSet = ResultSet & {
  readonly applied?: ReadonlyArray<AppliedRule>
  /** Each column's type name from the driver's field metadata ("" when it has none), when `columnTypes` asked. */
  readonly columnTypes?: ReadonlyArray<string>
}

export interface ExecuteOptions extends Namespace {
  /** The UI console's headers: add `columnTypes` to an unguarded answer (MCP answers never carry it). */
  readonly columnTypes?: boolean
  readonly maxRows: number
  readonly timeoutSeconds: number
  readonly access: StatementAccess
  readonly params?: ReadonlyArray<unknown>
  /** Byte caps of the answer (settings limits.maxCellBytes / maxAnswerBytes); defaults when absent. */
  readonly limits?: AnswerLimits
  readonly guard?: AnswerGuard | undefined
}

/** What a dry run found (D-69): every changed row counted, the first few kept; all of it rolled back. */
export interface DryRun {
  readonly count: number
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<PreviewRow>
  readonly note?: string
}

/** The database showed a side effect a rollback cannot undo (a sequence, a trigger, a volatile function…): no dry run. */
export class PreviewRefused extends Data.TaggedError("PreviewRefused")<{ readonly reason: string }> {}

export type RunPlan = Extract<PreviewPlan, { readonly _tag: "Run" }>

export interface InsertResult {
  readonly rows_affected: number
  readonly failed_rows: ReadonlyArray<{ readonly index: number; readonly error: string }>
}

/** One statement of a transaction the UI built; `expectRows`: any other count of changed rows fails it. */
export interface TransactionStatement {
  readonly sql: string
  readonly expectRows?: number
}

/** Each statement's changed rows or its error; nothing is kept unless every statement succeeded. */
export interface TransactionOutcome {
  readonly committed: boolean
  readonly results: ReadonlyArray<{ readonly rowsAffected: number | null; readonly error: string | null }>
}

/** Said for a statement whose changed-row count is not the one expected (a row changed or deleted meanwhile). */
export { rowCountMismatch } from "./RowCountMismatch.ts"

export interface RowCount {
  readonly row_count: number
  readonly is_approximate: boolean
}

/**
 * The port every database driver implements. Interrupting any returned Effect really stops the work on
 * the database (D-12); none of them blocks the event loop.
 */
/**
 * A read kept open for fetch_more: the statement ran once, its rows are read page by page from the same cursor.
 * `page` answers at most `maxRows` rows under the caps and says whether rows remain; `close` gives the session back.
 */
export interface HeldCursor {
  readonly page: (
    maxRows: number,
    limits: AnswerLimits | undefined
  ) => Effect.Effect<{ readonly resultSet: GuardedResultSet; readonly more: boolean }, ReachFailure | StatementTimeout>
  readonly close: () => Effect.Effect<void>
}

/** A safe statement opened as a held cursor; `idleSeconds`: the database may end the session idle this long. */
export interface CursorOptions extends Namespace {
  readonly timeoutSeconds: number
  readonly idleSeconds: number
  /** The handle's whole life (settings limits.continuationMaxSeconds): a driver's backstop for the held statement. */
  readonly lifeSeconds?: number | undefined
  readonly guard?: AnswerGuard | undefined
  /** D-94: told the count of rows read from the database so far, as they arrive (for progress). */
  readonly onRows?: ((rows: number) => void) | undefined
  /** The first page's size and caps. */
  readonly maxRows: number
  readonly limits: AnswerLimits | undefined
}

/** A held cursor and its first page; when that page is the last (`more` false) the cursor is already closed. */
export interface OpenedCursor {
  readonly cursor: HeldCursor
  readonly first: { readonly resultSet: GuardedResultSet; readonly more: boolean }
}

export interface DatabaseDriver {
  readonly dialect: SqlDialect
  readonly status: () => Effect.Effect<ConnectionStatus>
  /** The databases of the connection's server the role can reach (SQLite: `main`). */
  readonly listDatabases: () => Effect.Effect<ReadonlyArray<string>, ReachFailure>
  readonly listTables: (
    options: { readonly includeRowCounts: boolean } & Namespace
  ) => Effect.Effect<ReadonlyArray<TableEntry>, ReachFailure>
  /**
   * The object a table argument names, looked up as every table-taking call looks it up (`tableReadings`): its schema
   * (MySQL: database; SQLite: main) and stored name. The table gate decides on it; the call then passes it back with
   * `exact`.
   */
  readonly resolveTable: (
    table: string,
    namespace?: Namespace
  ) => Effect.Effect<ResolvedRelation, ReachFailure | TableNotFound>
  readonly describeTable: (
    table: string,
    namespace?: Namespace
  ) => Effect.Effect<TableDescription, ReachFailure | TableNotFound>
  readonly tableDdl: (table: string, namespace?: Namespace) => Effect.Effect<string, ReachFailure | TableNotFound>
  /** CHECK constraints, triggers and incoming foreign keys, for the UI's structure view (never an MCP answer). */
  readonly structureDetails: (
    table: string,
    namespace?: Namespace
  ) => Effect.Effect<StructureDetails, ReachFailure | TableNotFound>
  readonly searchSchema: (
    term: string,
    limit: number,
    namespace?: Namespace
  ) => Effect.Effect<ReadonlyArray<SchemaMatch>, ReachFailure>
  /** `limits`: byte caps of the answer (settings limits.maxCellBytes / maxAnswerBytes); defaults when absent. */
  readonly browse: (
    table: string,
    query: GridQuery,
    namespace?: Namespace,
    limits?: AnswerLimits,
    guard?: AnswerGuard
  ) => Effect.Effect<GuardedResultSet, ReachFailure | TableNotFound | StatementTimeout | PolicyRefusal>
  /** D-87: the `browse` page as console SQL (same builder, values as literals, exactly `limit` rows). */
  readonly browseText: (
    table: string,
    query: GridQuery,
    namespace?: Namespace
  ) => Effect.Effect<string, ReachFailure | TableNotFound>
  /**
   * `guard`: the count is decided like an answer (a filter on a view over a secret catalog would otherwise tell its
   * values apart one count at a time); absent for the UI.
   */
  readonly count: (
    table: string,
    filters: ReadonlyArray<GridFilter>,
    logic: FilterLogic,
    namespace?: Namespace,
    guard?: AnswerGuard
  ) => Effect.Effect<RowCount, ReachFailure | TableNotFound | PolicyRefusal>
  readonly execute: (
    sql: string,
    options: ExecuteOptions
  ) => Effect.Effect<GuardedResultSet, ReachFailure | StatementTimeout | LockTimeout | Unsupported | PolicyRefusal>
  readonly explain: (
    sql: string,
    analyze: boolean,
    limits?: AnswerLimits
  ) => Effect.Effect<ResultSet, ReachFailure | Unsupported>
  readonly insertRows: (
    table: string,
    columns: ReadonlyArray<string>,
    rows: ReadonlyArray<ReadonlyArray<unknown>>
  ) => Effect.Effect<InsertResult, ReachFailure | TableNotFound>
  /**
   * Runs `statements` in one transaction, each under its own savepoint so every failing one is reported; commits only
   * when all succeeded, else rolls everything back (the grid's Save, D-86).
   */
  readonly transaction: (
    statements: ReadonlyArray<TransactionStatement>,
    options: { readonly timeoutSeconds: number } & Namespace
  ) => Effect.Effect<TransactionOutcome, ReachFailure | StatementTimeout>
  /**
   * D-68: the database compiles the statement without running it (SQLite prepare, PostgreSQL Parse inside a
   * read-only transaction, MySQL PREPARE), so one that does not parse or names a missing table fails with its message.
   */
  readonly check: (
    sql: string,
    options: { readonly access: StatementAccess } & Namespace
  ) => Effect.Effect<void, ReachFailure | StatementTimeout>
  /**
   * D-69: the write run inside a transaction that is always rolled back, within `seconds`. `params`: the values of the
   * plan's parameter markers (a curated tool's arguments), bound by the driver exactly as `execute` binds them.
   */
  readonly dryRun: (
    plan: RunPlan,
    options: { readonly seconds: number; readonly params?: ReadonlyArray<unknown> } & Namespace
  ) => Effect.Effect<DryRun, ReachFailure | StatementTimeout | PreviewRefused>
  /**
   * Opens a safe statement as a held cursor (fetch_more): it runs once, read-only. Unsupported (before anything ran)
   * for a statement the driver cannot hold open; drivers without held cursors leave it out.
   */
  readonly openCursor?: (
    sql: string,
    options: CursorOptions
  ) => Effect.Effect<OpenedCursor, ReachFailure | StatementTimeout | Unsupported>
  /** browse_table's rows of `table` as a held cursor, from `query.offset` on, in pages of `query.limit` rows. */
  readonly openBrowseCursor?: (
    table: string,
    query: GridQuery,
    options: CursorOptions
  ) => Effect.Effect<OpenedCursor, ReachFailure | TableNotFound | StatementTimeout>
  /**
   * D-95/D-96: the planner's estimate of a read, from `EXPLAIN` (never ANALYZE) inside a read-only transaction on the
   * namespace the statement would run in; nothing runs. `reading.ok` false: a plan dbdesk could not read. Only the
   * drivers whose planner gives one (PostgreSQL, MySQL/MariaDB) implement it.
   */
  readonly estimate?: (
    sql: string,
    options: { readonly seconds: number } & Namespace
  ) => Effect.Effect<PlanReading, ReachFailure | StatementTimeout>
  /** Schemas of a database of the connection; only drivers that have schemas (PostgreSQL) implement it. */
  readonly listSchemas?: (namespace?: Namespace) => Effect.Effect<ReadonlyArray<string>, ReachFailure>
  readonly close: () => Effect.Effect<void>
}
