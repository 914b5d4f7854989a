// One statement on one mysql2 session, read whole or as a stream of rows (D-71).
import type mysql from "mysql2"
import { mysqlTypeName } from "./MysqlTypeNames.ts"

const QUERY_INTERRUPTED = 1317

export interface QueryOutcome {
  readonly columns: ReadonlyArray<string>
  /** The rows when the statement returned a result set; empty for a statement that changed rows. */
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  readonly affectedRows: number
  readonly hasResultSet: boolean
}

/** A result column with its origin as the server reports it (D-65): database, original table and column. */
export interface FieldOrigin {
  readonly name: string
  readonly db: string
  readonly orgTable: string
  readonly orgName: string
  /** The field's type name for the console's headers (mysqlTypeName). */
  readonly typeName?: string
}

export interface StreamOutcome {
  readonly columns: ReadonlyArray<string>
  readonly affectedRows: number
  readonly hasResultSet: boolean
  /** Whether reading stopped because `onRow` said so (the statement was killed, not drained). */
  readonly stopped: boolean
}

/** A small statement read whole (catalog reads); `values` are bound server-side (a prepared statement). */
export const queryWhole = (
  db: mysql.PoolConnection,
  sql: string,
  values: ReadonlyArray<unknown> | undefined
): Promise<QueryOutcome> =>
  new Promise<QueryOutcome>((resolve, reject) => {
    const done = (
      error: mysql.QueryError | null,
      result: unknown,
      fields: ReadonlyArray<mysql.FieldPacket> | undefined
    ) => {
      if (error !== null) return reject(error)
      const isRows = Array.isArray(result)
      resolve({
        columns: (fields ?? []).map((field) => field.name),
        rows: isRows ? result as Array<Array<unknown>> : [],
        affectedRows: isRows ? 0 : Number((result as mysql.ResultSetHeader).affectedRows ?? 0),
        hasResultSet: isRows
      })
    }
    const options = { sql, rowsAsArray: true }
    if (values === undefined) db.query(options, done as never)
    else db.execute(options, [...values] as never, done as never)
  })

/**
 * Rows one at a time; when `onRow` answers false the rest is not read: `kill` ends the statement on the server and
 * the rows already in flight are discarded (D-71).
 */
export const streamRows = (
  db: mysql.PoolConnection,
  sql: string,
  values: ReadonlyArray<unknown> | undefined,
  onRow: (row: ReadonlyArray<unknown>) => boolean,
  onColumns: (fields: ReadonlyArray<FieldOrigin>) => void,
  kill: () => Promise<void>
): Promise<StreamOutcome> =>
  new Promise<StreamOutcome>((resolve, reject) => {
    let columns: ReadonlyArray<string> = []
    let affectedRows = 0
    let hasResultSet = false
    let stoppedEarly = false
    const options = { sql, rowsAsArray: true }
    // mysql2 tells a lost socket to the session only, not to a statement read as events: listen there too.
    const lost = (error: unknown) =>
      reject(
        error ??
          Object.assign(new Error("the server closed the connection"), {
            fatal: true,
            code: "PROTOCOL_CONNECTION_LOST"
          })
      )
    db.once("error", lost)
    db.once("end", lost)
    const settle = <T>(done: (value: T) => void) => (value: T) => {
      db.removeListener("error", lost)
      db.removeListener("end", lost)
      done(value)
    }
    resolve = settle(resolve)
    reject = settle(reject)
    const emitter = values === undefined ? db.query(options) : db.execute(options, [...values] as never)
    // Only the first result set counts (a CALL may answer several); mysql2 gives an OK packet no index.
    emitter.on("fields", (fields: ReadonlyArray<mysql.FieldPacket> | undefined) => {
      if (!hasResultSet && fields !== undefined) {
        columns = fields.map((field) => field.name)
        hasResultSet = true
        onColumns(
          fields.map((field) => ({
            name: field.name,
            db: field.db ?? "",
            orgTable: field.orgTable ?? "",
            orgName: field.orgName ?? "",
            typeName: mysqlTypeName(field)
          }))
        )
      }
    })
    emitter.on("result", (row: unknown, index: number | undefined) => {
      if ((index ?? 0) !== 0 || stoppedEarly) return
      if (!Array.isArray(row)) {
        if (!hasResultSet) affectedRows = Number((row as mysql.ResultSetHeader).affectedRows ?? 0)
        return
      }
      if (!onRow(row)) {
        stoppedEarly = true
        void kill() // the rows already in flight are discarded; the server stops producing more
      }
    })
    emitter.on("error", (error: { readonly errno?: number }) => {
      if (stoppedEarly && error.errno === QUERY_INTERRUPTED) {
        resolve({ columns, affectedRows, hasResultSet, stopped: true })
      } else reject(error)
    })
    emitter.on("end", () => resolve({ columns, affectedRows, hasResultSet, stopped: stoppedEarly }))
  })

/** ER_UNSUPPORTED_PS: the statement cannot be prepared (some administration statements); nothing is learned. */
const UNSUPPORTED_PS = 1295

/**
 * D-68: the server prepares the statement (COM_STMT_PREPARE: parsed, names resolved) and the statement
 * is closed again; nothing runs. A statement MySQL cannot prepare passes unchecked.
 */
export const prepareOnly = (db: mysql.PoolConnection, sql: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    db.prepare(sql, (error) => {
      if (error === null) {
        db.unprepare(sql)
        resolve()
      } else if (error.errno === UNSUPPORTED_PS) resolve()
      else reject(error)
    })
  })
