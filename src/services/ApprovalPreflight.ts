import { Duration, Effect } from "effect"
import { type ApprovalPreview, PREVIEW_SECONDS, TOOK_TOO_LONG } from "../domain/ApprovalPreview.ts"
import type { Connection, SearchConnection } from "../domain/Connection.ts"
import { planPreview } from "../domain/PreviewPlan.ts"
import type { ProtocolError } from "../domain/ProtocolErrors.ts"
import { toolFailure, type ToolFailure } from "../domain/ToolErrors.ts"
import type { CallOptions } from "../search/SearchClient.ts"
import type { Namespace, StatementAccess } from "./drivers/Driver.ts"
import { DriverRegistry } from "./DriverRegistry.ts"
import { Drivers } from "./Drivers.ts"
import { dialectOf } from "./policy/StatementPolicy.ts"
import { mapDriverFailure } from "./tools/DriverFailures.ts"

/**
 * What happens before a person is asked (D-69): `check` has the database compile the statement without running
 * it, so one that cannot run fails at once with the database's own message (item 5); `preview` is the dry run shown
 * with the question (item 1). `preview` never fails and ends within PREVIEW_SECONDS.
 */
export interface Preflight {
  readonly check: Effect.Effect<void, ToolFailure | ProtocolError>
  readonly preview: Effect.Effect<ApprovalPreview>
}

const CHECKED = "checked by the database before asking for approval; nothing ran"
const listed: Effect.Effect<ApprovalPreview> = Effect.succeed({
  _tag: "NoPreview",
  reason: "the rows it inserts are the ones listed"
})

/** The search client and its preview load with the first search-engine approval (D-76: serve loads what it needs). */
const searchParts = Effect.promise(() =>
  Promise.all([import("../search/SearchPreview.ts"), import("../search/SearchTools.ts")])
)

/** A refusal of the check names the database's own message; a check that could not finish in time lets the question go on. */
const checked = <R>(effect: Effect.Effect<void, ToolFailure | ProtocolError, R>) =>
  Effect.catchAll(effect, (error): Effect.Effect<void, ToolFailure | ProtocolError> => {
    if (error._tag === "ProtocolError") return error.code === -33003 ? Effect.void : Effect.fail(error)
    if (error.code === "timeout") return Effect.void
    return Effect.fail(
      error.code === "query_failed" ? toolFailure("query_failed", `${error.detail} (${CHECKED})`) : error
    )
  })

/** The time box (D-69): past PREVIEW_SECONDS the dry run is stopped (and rolled back) and the question goes on. */
const timeBoxed = <R>(effect: Effect.Effect<ApprovalPreview, unknown, R>) =>
  effect.pipe(
    Effect.timeoutTo({
      duration: Duration.seconds(PREVIEW_SECONDS),
      onSuccess: (preview) => preview,
      onTimeout: (): ApprovalPreview => ({ _tag: "Unavailable", reason: TOOK_TOO_LONG })
    }),
    Effect.catchAll((error) => Effect.succeed<ApprovalPreview>({ _tag: "Unavailable", reason: reasonOf(error) }))
  )

/** The database's check takes milliseconds; a lock or a stalled engine past this lets the question go on unchecked. */
const CHECK_SECONDS = 10

/** An engine that does not answer the check in time does not hold the question: it goes on unchecked. */
const engineBounded = <R>(effect: Effect.Effect<void, ToolFailure, R>) =>
  Effect.timeoutFail(effect, {
    duration: Duration.seconds(CHECK_SECONDS),
    onTimeout: () => toolFailure("timeout", "the engine did not answer the check in time")
  })

const reasonOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const tagged = error as {
    readonly _tag?: string
    readonly reason?: string
    readonly message?: string
    readonly detail?: string
  }
  if (tagged._tag === "StatementTimeout") return TOOK_TOO_LONG
  return `the dry run failed: ${tagged.detail ?? tagged.message ?? String(error)}`
}

export class ApprovalPreflight extends Effect.Service<ApprovalPreflight>()("dbdesk/services/ApprovalPreflight", {
  effect: Effect.gen(function*() {
    const drivers = yield* Drivers
    const registry = yield* DriverRegistry

    /**
     * A SQL statement, checked on the handle it will run on and dry-run as the write it is (same handle rules).
     * `params`: the values of its parameter markers (a curated tool's arguments): the check compiles the statement with
     * its markers, as the run's Parse / PREPARE / prepare does; the dry run binds the values as the run will.
     */
    const sql = (
      connection: Connection,
      statement: string,
      access: StatementAccess,
      namespace: Namespace = {},
      params?: ReadonlyArray<unknown>
    ): Preflight => ({
      check: checked(
        mapDriverFailure(
          Effect.flatMap(
            drivers.forConnection(connection),
            (driver) => driver.check(statement, { access, ...namespace })
          )
        )
      ),
      preview: access === "readonly"
        ? Effect.succeed({ _tag: "NoPreview", reason: "this statement only reads, so it changes nothing" })
        : Effect.suspend(() => {
          const plan = planPreview(statement, dialectOf(connection))
          if (plan._tag === "NoPreview") return Effect.succeed<ApprovalPreview>(plan)
          return timeBoxed(
            Effect.flatMap(drivers.forConnection(connection), (driver) =>
              driver.dryRun(plan, {
                seconds: PREVIEW_SECONDS,
                ...namespace,
                ...(params === undefined ? {} : { params })
              })).pipe(
                Effect.map((run): ApprovalPreview => ({
                  _tag: "Changes",
                  action: plan.action,
                  target: plan.display,
                  unit: "row",
                  count: run.count,
                  columns: run.columns,
                  rows: run.rows,
                  ...(run.note === undefined ? {} : { note: run.note })
                })),
                Effect.catchTag(
                  "PreviewRefused",
                  (refused) => Effect.succeed<ApprovalPreview>({ _tag: "NoPreview", reason: refused.reason })
                )
              )
          )
        })
    })

    /** `insert_rows` into a SQL table: the table and its columns are looked up as the insert will; the rows are the ones shown. */
    const sqlInsert = (connection: Connection, table: string, columns: ReadonlyArray<string>): Preflight => ({
      check: checked(mapDriverFailure(Effect.gen(function*() {
        const driver = yield* drivers.forConnection(connection)
        const known = (yield* driver.describeTable(table)).columns.map((column) => column.name)
        const unknown = columns.find((column) => !known.includes(column))
        if (unknown !== undefined) {
          return yield* toolFailure(
            "invalid_argument",
            `unknown column "${unknown}"; the table has: ${known.join(", ")}`
          )
        }
      }))),
      preview: listed
    })

    /** A search-engine write (console text): validated and counted by the engine, nothing written. */
    const search = (connection: SearchConnection, text: string, options?: CallOptions): Preflight => ({
      check: checked(
        engineBounded(
          Effect.flatMap(
            Effect.zip(searchParts, registry.openSearch(connection)),
            ([[{ checkConsoleWrite }, { toToolFailure }], { session }]) =>
              Effect.mapError(checkConsoleWrite(session.client, text, options), toToolFailure)
          )
        )
      ),
      preview: timeBoxed(
        Effect.flatMap(
          Effect.zip(searchParts, registry.openSearch(connection)),
          ([[{ previewConsoleWrite }], { session }]) => previewConsoleWrite(session.client, text, options)
        )
      )
    })

    /** `insert_rows` into a collection: the collection must exist; the documents are the ones shown. */
    const searchInsert = (connection: SearchConnection, collection: string, options?: CallOptions): Preflight => ({
      check: checked(
        engineBounded(
          Effect.flatMap(
            Effect.zip(searchParts, registry.openSearch(connection)),
            ([[, { toToolFailure }], { session }]) =>
              Effect.mapError(Effect.asVoid(session.client.getCollection(collection, options)), toToolFailure)
          )
        )
      ),
      preview: listed
    })

    return { sql, sqlInsert, search, searchInsert } as const
  })
}) {}
