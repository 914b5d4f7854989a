import type { FilterLogic, GridFilter, GridQuery } from "../../../domain/SqlBrowse.ts"
import type { AnswerLimits } from "../../../domain/AnswerBudget.ts"
import type { Refusal } from "../../../domain/AnswerGate.ts"
import type { AnswerGuard, RunPlan, StatementAccess, TransactionStatement } from "../Driver.ts"

/** Messages between the SQLite driver and its child process (one child per connection, D-13). */
export type ChildRequest =
  | { readonly op: "status" }
  | { readonly op: "listTables"; readonly includeRowCounts: boolean }
  | { readonly op: "resolveTable"; readonly table: string }
  | { readonly op: "describeTable"; readonly table: string }
  | { readonly op: "tableDdl"; readonly table: string }
  | { readonly op: "structureDetails"; readonly table: string }
  | { readonly op: "searchSchema"; readonly term: string; readonly limit: number }
  | {
    readonly op: "browse"
    readonly table: string
    readonly query: GridQuery
    readonly limits?: AnswerLimits
    readonly guard?: AnswerGuard
  }
  | { readonly op: "browseText"; readonly table: string; readonly query: GridQuery }
  | {
    readonly op: "count"
    readonly table: string
    readonly filters: ReadonlyArray<GridFilter>
    readonly logic: FilterLogic
  }
  | {
    readonly op: "execute"
    readonly sql: string
    readonly columnTypes?: boolean
    readonly maxRows: number
    readonly access: StatementAccess
    readonly params: ReadonlyArray<unknown>
    readonly limits?: AnswerLimits
    readonly guard?: AnswerGuard
  }
  | { readonly op: "explain"; readonly sql: string; readonly limits?: AnswerLimits }
  | { readonly op: "check"; readonly sql: string; readonly access: StatementAccess }
  | { readonly op: "dryRun"; readonly plan: RunPlan; readonly params?: ReadonlyArray<unknown> }
  | {
    readonly op: "insertRows"
    readonly table: string
    readonly columns: ReadonlyArray<string>
    readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  }
  | { readonly op: "transaction"; readonly statements: ReadonlyArray<TransactionStatement> }
  | {
    readonly op: "cursorOpen"
    readonly cursor: number
    readonly sql: string
    readonly params: ReadonlyArray<unknown>
    readonly maxRows: number
    readonly limits?: AnswerLimits
    readonly guard?: AnswerGuard
    /** D-94: tell the rows read so far while the first page is read (`ChildRows` messages). */
    readonly tellRows?: boolean
  }
  | {
    readonly op: "cursorBrowse"
    readonly cursor: number
    readonly table: string
    readonly query: GridQuery
    readonly maxRows: number
    readonly limits?: AnswerLimits
    readonly guard?: AnswerGuard
    readonly tellRows?: boolean
  }
  | { readonly op: "cursorPage"; readonly cursor: number; readonly maxRows: number; readonly limits?: AnswerLimits }
  | { readonly op: "cursorClose"; readonly cursor: number }
  | { readonly op: "close" }

export type ChildFailure =
  | { readonly kind: "Sql"; readonly message: string }
  | { readonly kind: "TableNotFound"; readonly table: string }
  | { readonly kind: "InvalidArgument"; readonly message: string }
  | { readonly kind: "Policy"; readonly refusal: Refusal }

export type ChildResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly failure: ChildFailure }

/** D-94: sent while a request reads rows: the rows read so far (at most every ROWS_EVERY_MS). */
export interface ChildRows {
  readonly id: number
  readonly rows: number
}

export const ROWS_EVERY_MS = 100

export const READY = "ready"
