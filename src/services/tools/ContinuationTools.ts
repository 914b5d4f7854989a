import { Effect, Schema } from "effect"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Continuations } from "../Continuations.ts"
import type { AnswerGuard, DatabaseDriver, GuardedResultSet, Namespace, OpenedCursor } from "../drivers/Driver.ts"
import { SettingsStore } from "../Settings.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { guardedResult } from "./Guards.ts"
import { defineTool } from "./Tool.ts"
import { integer, text } from "./ToolArguments.ts"

/** A page of a held cursor as an answer: while rows remain, `continuation.handle` reads the next page with fetch_more. */
export const continuedResult = (resultSet: GuardedResultSet, handle: string | undefined) =>
  guardedResult(handle === undefined ? resultSet : { ...resultSet, continuation: { handle } } as GuardedResultSet)

export interface ContinuedRead extends Namespace {
  readonly caller: string
  readonly connectionId: string
  readonly maxRows: number
  readonly timeoutSeconds: number
  readonly limits: AnswerLimits
  readonly guard: AnswerGuard | undefined
  readonly onRows?: ((rows: number) => void) | undefined
}

/**
 * A safe statement read from a held cursor: its first page, and a handle while rows remain (the cursor stays open
 * for fetch_more, which reads on without running the statement again). `undefined`: the driver cannot hold this
 * statement open (nothing ran); the caller runs it as before.
 */
export const readContinued = (
  continuations: Continuations,
  driver: DatabaseDriver,
  sql: string,
  read: ContinuedRead,
  idleSeconds: number,
  lifeSeconds?: number
) =>
  Effect.gen(function*() {
    if (driver.openCursor === undefined) return undefined
    const { caller, connectionId, maxRows, timeoutSeconds, limits, guard, onRows, ...namespace } = read
    const opened = yield* driver.openCursor(sql, {
      ...namespace,
      timeoutSeconds,
      idleSeconds,
      lifeSeconds,
      guard,
      onRows,
      maxRows,
      limits
    }).pipe(
      Effect.catchTag("Unsupported", () => Effect.succeed(undefined))
    )
    if (opened === undefined) return undefined
    return yield* keepOpened(continuations, opened, {
      caller,
      connectionId,
      database: namespace.database,
      maxRows,
      statement: sql
    })
  })

/** The first page of an opened cursor; while rows remain the cursor is kept under a new handle of the caller's. */
export const keepOpened = (
  continuations: Continuations,
  { cursor, first }: OpenedCursor,
  owner: {
    readonly caller: string
    readonly connectionId: string
    readonly database: string | undefined
    readonly maxRows: number
    readonly statement: string
  }
): Effect.Effect<{ readonly resultSet: GuardedResultSet; readonly handle: string | undefined }> =>
  first.more
    ? Effect.map(
      continuations.register(owner.caller, owner.connectionId, owner.database, cursor, owner.maxRows, {
        statement: owner.statement,
        rows: first.resultSet.rows.length
      }),
      (handle) => ({ resultSet: first.resultSet, handle })
    )
    : Effect.succeed({ resultSet: first.resultSet, handle: undefined })

/** The answer of a first page: while rows remain, `continuation.handle` reads on with fetch_more. */
export const withContinuation = (
  answer: { readonly resultSet: GuardedResultSet; readonly handle: string | undefined }
): GuardedResultSet =>
  answer.handle === undefined
    ? answer.resultSet
    : { ...answer.resultSet, continuation: { handle: answer.handle } } as GuardedResultSet

export const ContinuationTools = Effect.gen(function*() {
  const continuations = yield* Continuations
  const settings = yield* SettingsStore
  const access = yield* ConnectionAccess

  const fetchMore = defineTool({
    name: "fetch_more",
    description: "Returns the next rows of a continuation.handle.",
    arguments: Schema.Struct({
      handle: text(),
      max_rows: Schema.optionalWith(integer(), { exact: true })
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        const { limits } = yield* settings.current
        if (
          args.max_rows !== undefined &&
          (!Number.isInteger(args.max_rows) || args.max_rows < 1 || args.max_rows > limits.maxRows)
        ) {
          return yield* toolFailure("invalid_argument", `max_rows must be a whole number from 1 to ${limits.maxRows}`)
        }
        return mapDriverFailure(Effect.gen(function*() {
          const { page, handle } = yield* continuations.next(context.principal.key, args.handle, (entry) =>
            // The caller must still reach the connection (a grant withdrawn since closes the read).
            Effect.zipRight(
              access.resolve(context.principal, entry.connectionId, context.clientInfo?.name),
              Effect.tap(entry.cursor.page(args.max_rows ?? entry.maxRows, limits), (page) =>
                Effect.sync(() => {
                  entry.rows += page.resultSet.rows.length
                }))
            ))
          return continuedResult(page.resultSet, handle)
        }))
      })
  })

  return [fetchMore] as const
})
