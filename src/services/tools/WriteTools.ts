import { Effect, Schema } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { ScalarValue } from "../../domain/SqlBrowse.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ApprovalPreflight } from "../ApprovalPreflight.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Drivers } from "../Drivers.ts"
import { StatementApproval } from "../StatementApproval.ts"
import { StatementRecorder } from "../StatementRecorder.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { TOOL_SCOPES } from "../policy/StatementPolicy.ts"
import { checkWriteGates, statementVerb } from "./StatementGates.ts"
import { requireName } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, toolResult, type ToolRun } from "./Tool.ts"
import { connectionId, integer, text } from "./ToolArguments.ts"
const quote = (name: string) => `"${name.replace(/"/g, "\"\"")}"`
const literal = (
  value: unknown
) => (typeof value === "string" ? `'${value.replace(/'/g, "''")}'` : value === null ? "NULL" : String(value))

/** D-26: for insert_rows the statement shown is the parameterised SQL followed by the first rows' values. */
export const insertApprovalText = (
  table: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
) => {
  const sql = `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES (${
    columns.map(() => "?").join(", ")
  })`
  const shown = rows.slice(0, 10).map((row) => `(${row.map(literal).join(", ")})`)
  const more = rows.length > shown.length ? [`… and ${rows.length - shown.length} more rows`] : []
  return [sql, `-- ${rows.length} row${rows.length === 1 ? "" : "s"}:`, ...shown, ...more].join("\n")
}

export const WriteTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const drivers = yield* Drivers
  const approval = yield* StatementApproval
  const preflight = yield* ApprovalPreflight
  const recorder = yield* StatementRecorder
  const search = yield* SearchToolRoutes

  const insertRows = defineTool({
    name: "insert_rows",
    description: "Inserts 1-1,000 rows once approved. Returns rows_affected, failed_rows.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      table: text(),
      columns: Schema.Array(Schema.String),
      rows: Schema.Array(Schema.Array(ScalarValue)).annotations({
        jsonSchema: { type: "array", items: { type: "array" }, description: "In columns order" }
      })
    }),
    scopes: ["tools:write"],
    readOnly: false,
    prepare: (args, context) =>
      Effect.gen(function*() {
        yield* requireName(args.table, "table")
        if (args.columns.length === 0) {
          return yield* toolFailure("invalid_argument", "columns must name at least one column")
        }
        if (args.rows.length < 1 || args.rows.length > 1000) {
          return yield* toolFailure("invalid_argument", "rows must hold 1 to 1,000 rows")
        }
        const connection = yield* access.resolve(context.principal, args.connection_id, context.clientInfo?.name)
        if (connection.type === "search") {
          return yield* search.insertRows(connection, args, context)
        }
        yield* checkWriteGates("write", connection, context)
        const gate = yield* approval.gate(context, {
          connection,
          what: `an insert of ${args.rows.length} row${args.rows.length === 1 ? "" : "s"} into ${args.table}`,
          statement: insertApprovalText(args.table, args.columns, args.rows),
          preflight: preflight.sqlInsert(connection, args.table, args.columns)
        })
        if (gate.kind === "input_required") return Effect.succeed(gate.result)
        const run: ToolRun = mapDriverFailure(Effect.gen(function*() {
          yield* gate.askApp
          const driver = yield* drivers.forConnection(connection)
          const result = yield* driver.insertRows(args.table, args.columns, args.rows)
          return toolResult({
            rows_affected: result.rows_affected,
            failed_rows: result.failed_rows.map((row) => ({ ...row }))
          })
        }))
        return run
      })
  })

  const confirmDestructive = defineTool({
    name: "confirm_destructive_operation",
    description: "Runs a DROP/TRUNCATE (search: DELETE) the user consents to. Returns a result set.",
    arguments: Schema.Struct({
      connection_id: connectionId,
      query: text(),
      timeout_seconds: Schema.optionalWith(integer(), { exact: true })
    }),
    scopes: TOOL_SCOPES.confirm_destructive_operation,
    readOnly: false,
    prepare: (args, context) =>
      Effect.gen(function*() {
        const timeoutSeconds = args.timeout_seconds ?? 30
        if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 300) {
          return yield* toolFailure("invalid_argument", "timeout_seconds must be a whole number from 1 to 300")
        }
        // D-70: the statement policy decides (gates in order, the access dialog asked where it says).
        const { connection } = yield* access.statement(
          context,
          args.connection_id,
          "confirm_destructive_operation",
          args.query
        )
        if (connection.type === "search") {
          return yield* search.confirmDestructive(connection, { query: args.query, timeoutSeconds }, context)
        }
        // D-21: consent is always required and never skipped by a policy.
        const gate = yield* approval.gate(context, {
          connection,
          what: statementVerb(args.query),
          statement: args.query,
          warning: "destroys data and cannot be undone",
          destructive: true,
          preflight: preflight.sql(connection, args.query, "readwrite")
        })
        if (gate.kind === "input_required") {
          return Effect.succeed(gate.result)
        }
        const run = mapDriverFailure(Effect.gen(function*() {
          yield* gate.askApp
          const driver = yield* drivers.forConnection(connection)
          return yield* driver.execute(args.query, { maxRows: 1, timeoutSeconds, access: "readwrite" })
        }))
        return Effect.map(recorder.observe(connection.id, args.query, run), (resultSet) =>
          toolResult(resultSet as unknown as JsonObject))
      })
  })

  return [insertRows, confirmDestructive] as const
})
