import { Data, type Effect } from "effect"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../../domain/SqlBrowse.ts"
import type { SchemaMatch, TableDescription, TableEntry } from "../../domain/SqlTable.ts"
import type { ResultSet } from "../../domain/ResultSet.ts"
import type { SqlDialect } from "../../domain/StatementClassifier.ts"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"

/** A failure reported by the database; `message` has already been through the connection's redactor (C7.2-b). */
export class DriverError extends Data.TaggedError("DriverError")<{ readonly message: string }> {}

/** dbdesk's statement deadline ended the call; the MCP layer answers -33003 with `data.deadline: "statement"`. */
export class StatementTimeout extends Data.TaggedError("StatementTimeout")<{ readonly seconds: number }> {}

/** The database gave up waiting for a lock (PostgreSQL SQLSTATE 55P03); the tools answer `timeout:` (product-decisions §3). */
export class LockTimeout extends Data.TaggedError("LockTimeout")<{ readonly message: string }> {}

export class TableNotFound extends Data.TaggedError("TableNotFound")<{ readonly table: string }> {}

/** An argument the database cannot accept as given (unknown column, missing filter value…). */
export class InvalidArgument extends Data.TaggedError("InvalidArgument")<{ readonly message: string }> {}

export class Unsupported extends Data.TaggedError("Unsupported")<{ readonly message: string }> {}

export interface ConnectionStatus {
  readonly status: "connected" | "disconnected" | "error"
  readonly server_version?: string
  readonly error?: string
}

/** `readonly` runs on a handle that cannot write (SQLite) or inside `BEGIN READ ONLY` (PostgreSQL). */
export type StatementAccess = "readonly" | "readwrite"

export interface ExecuteOptions {
  readonly maxRows: number
  readonly timeoutSeconds: number
  readonly access: StatementAccess
  readonly params?: ReadonlyArray<unknown>
  /** Byte caps of the answer (settings limits.maxCellBytes / maxAnswerBytes); defaults when absent. */
  readonly limits?: AnswerLimits
}

export interface InsertResult {
  readonly rows_affected: number
  readonly failed_rows: ReadonlyArray<{ readonly index: number; readonly error: string }>
}

export interface RowCount {
  readonly row_count: number
  readonly is_approximate: boolean
}

/**
 * The port every database driver implements. Interrupting any returned Effect really stops the work on
 * the database (product-decisions §2); none of them blocks the event loop.
 */
export interface DatabaseDriver {
  readonly dialect: SqlDialect
  readonly status: () => Effect.Effect<ConnectionStatus>
  readonly listTables: (options: { readonly includeRowCounts: boolean }) => Effect.Effect<
    ReadonlyArray<TableEntry>,
    DriverError
  >
  readonly describeTable: (table: string) => Effect.Effect<TableDescription, DriverError | TableNotFound>
  readonly tableDdl: (table: string) => Effect.Effect<string, DriverError | TableNotFound>
  readonly searchSchema: (term: string, limit: number) => Effect.Effect<ReadonlyArray<SchemaMatch>, DriverError>
  readonly browse: (
    table: string,
    query: BrowseQuery
  ) => Effect.Effect<ResultSet, DriverError | TableNotFound | InvalidArgument>
  readonly count: (
    table: string,
    filters: ReadonlyArray<BrowseFilter>,
    logic: FilterLogic
  ) => Effect.Effect<RowCount, DriverError | TableNotFound | InvalidArgument>
  readonly execute: (sql: string, options: ExecuteOptions) => Effect.Effect<ResultSet, DriverError | StatementTimeout | LockTimeout>
  readonly explain: (sql: string, analyze: boolean) => Effect.Effect<ResultSet, DriverError | Unsupported>
  readonly insertRows: (
    table: string,
    columns: ReadonlyArray<string>,
    rows: ReadonlyArray<ReadonlyArray<unknown>>
  ) => Effect.Effect<InsertResult, DriverError | TableNotFound | InvalidArgument>
  /** Schemas of the connection's database; only drivers that have schemas (PostgreSQL) implement it. */
  readonly listSchemas?: () => Effect.Effect<ReadonlyArray<string>, DriverError>
  readonly close: () => Effect.Effect<void>
}
