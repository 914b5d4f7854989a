import Database from "better-sqlite3"
import { BROWSE_HINTS } from "../../../domain/AnswerBudget.ts"
import type { ChildFailure, ChildRequest, ChildResponse, ChildRows } from "./Protocol.ts"
import { READY } from "./Protocol.ts"
import { OpFailure, SqliteOps } from "./SqliteOps.ts"
import { SqliteCursors } from "./SqliteCursors.ts"
import { checkStatement, dryRunStatement } from "./SqlitePreview.ts"

/** The SQLite child process: runs one request at a time, synchronously, off the server's event loop. */
const path = process.argv[2] ?? ""
let readonlyHandle: Database.Database | undefined
let readwriteHandle: Database.Database | undefined

const handles = {
  readonly: (): Database.Database => {
    if (readonlyHandle === undefined) {
      readonlyHandle = new Database(path, { readonly: true, fileMustExist: true })
      readonlyHandle.pragma("query_only = ON")
    }
    return readonlyHandle
  },
  readwrite: (): Database.Database => {
    if (readwriteHandle === undefined) {
      readwriteHandle = new Database(path, { fileMustExist: true })
      readwriteHandle.pragma("foreign_keys = ON")
    }
    return readwriteHandle
  }
}

const ops = new SqliteOps(handles)
const cursors = new SqliteCursors(path)
const EXPLAIN_PREFIX = /^\s*EXPLAIN(\s+QUERY\s+PLAN)?\s+/i

const run = (request: { readonly id: number } & ChildRequest): unknown => {
  switch (request.op) {
    case "status":
      return ops.status()
    case "listTables":
      return ops.listTables(request.includeRowCounts)
    case "resolveTable":
      return { schema: "main", name: ops.resolveTable(request.table) }
    case "describeTable":
      return ops.describeTable(request.table)
    case "structureDetails":
      return ops.structureDetails(request.table)
    case "tableDdl":
      return ops.describeTable(request.table).ddl ?? ""
    case "searchSchema":
      return ops.searchSchema(request.term, request.limit)
    case "browse":
      return ops.browse(request.table, request.query, request.limits, request.guard)
    case "browseText":
      return ops.browseText(request.table, request.query)
    case "count":
      return ops.count(request.table, request.filters, request.logic)
    case "execute":
      return ops.execute(
        request.sql,
        request.params,
        request.access,
        request.maxRows,
        request.limits,
        undefined,
        request.guard,
        request.columnTypes
      )
    case "explain":
      return ops.execute(
        `EXPLAIN QUERY PLAN ${request.sql.replace(EXPLAIN_PREFIX, "")}`,
        [],
        "readonly",
        10_000,
        request.limits
      )
    case "check":
      return checkStatement(handles, request.sql, request.access)
    case "dryRun":
      return dryRunStatement(handles, request.plan, request.params)
    case "insertRows":
      return ops.insertRows(request.table, request.columns, request.rows)
    case "transaction":
      return ops.transaction(request.statements)
    case "cursorOpen":
      return cursors.openCursor(
        request.cursor,
        request.sql,
        request.params,
        request.maxRows,
        request.limits,
        request.guard,
        undefined,
        request.tellRows === true ? tellRows(request.id) : undefined
      )
    case "cursorBrowse": {
      const built = ops.browseStatement(request.table, request.query)
      return cursors.openCursor(
        request.cursor,
        built.sql,
        built.params,
        request.maxRows,
        request.limits,
        request.guard,
        BROWSE_HINTS,
        request.tellRows === true ? tellRows(request.id) : undefined
      )
    }
    case "cursorPage":
      return cursors.page(request.cursor, request.maxRows, request.limits)
    case "cursorClose":
      return cursors.closeCursor(request.cursor)
    case "close":
      cursors.closeAll()
      readonlyHandle?.close()
      readwriteHandle?.close()
      return null
  }
}

/** D-94: the rows read so far, sent to the driver while the request still runs (IPC writes go out at once). */
const tellRows = (id: number) => (rows: number): void => {
  process.send?.({ id, rows } satisfies ChildRows)
}

const failureOf = (error: unknown): ChildFailure =>
  error instanceof OpFailure
    ? error.failure
    : { kind: "Sql", message: error instanceof Error ? error.message : String(error) }

process.on("message", (message: { readonly id: number } & ChildRequest) => {
  let response: ChildResponse
  try {
    response = { id: message.id, ok: true, value: run(message) }
  } catch (error) {
    response = { id: message.id, ok: false, failure: failureOf(error) }
  }
  process.send?.(response, () => {
    if (message.op === "close") process.exit(0)
  })
})
process.on("disconnect", () => process.exit(0))
process.send?.(READY)
