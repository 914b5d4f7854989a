import { Effect, Either } from "effect"
import { planSqlEdits } from "../../domain/SqlEdits.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import type { UiSqlApplyResult, UiSqlEdits, UiSqlPreview } from "../../domain/UiWorkSchemas.ts"
import type { DatabaseDriver, Namespace } from "../../services/drivers/Driver.ts"
import { sqlStructure } from "./SqlViews.ts"

/** The statements a grid Save of a SQL table runs, built from the table's live structure (D-86). */
const plan = (driver: DatabaseDriver, table: string, edits: UiSqlEdits, namespace?: Namespace) =>
  Effect.flatMap(
    sqlStructure(driver, table, namespace),
    (structure) =>
      Either.match(planSqlEdits({ dialect: driver.dialect, table, columns: structure.columns }, edits), {
        onLeft: (message) => Effect.fail(new UiError({ message })),
        onRight: Effect.succeed
      })
  )

export const sqlPreview = (driver: DatabaseDriver, table: string, edits: UiSqlEdits, namespace?: Namespace) =>
  Effect.map(
    plan(driver, table, edits, namespace),
    (statements): UiSqlPreview => ({ statements: statements.map((statement) => statement.sql) })
  )

/**
 * Runs the Save in one transaction through the driver. It runs only the statements the dialog showed: when the edits
 * now build other ones (the table changed meanwhile), nothing runs and the user reviews again.
 */
export const sqlApply = (
  driver: DatabaseDriver,
  table: string,
  edits: UiSqlEdits,
  shown: ReadonlyArray<string>,
  timeoutSeconds: number,
  namespace?: Namespace
) =>
  Effect.gen(function*() {
    const statements = yield* plan(driver, table, edits, namespace)
    if (statements.length !== shown.length || statements.some((statement, index) => statement.sql !== shown[index])) {
      return yield* new UiError({
        message:
          `The statements for ${table} are no longer the ones shown (its structure changed); review the Save again.`
      })
    }
    if (statements.length === 0) return yield* new UiError({ message: "There is nothing to save." })
    const outcome = yield* driver.transaction(statements, { timeoutSeconds, ...namespace })
    const result: UiSqlApplyResult = {
      committed: outcome.committed,
      results: statements.map((statement, index) => ({
        statement: statement.sql,
        rowsAffected: outcome.results[index]?.rowsAffected ?? null,
        error: outcome.results[index]?.error ?? null
      }))
    }
    return result
  })
