// What a PostgreSQL failure means for the caller (wire contract §7.2, D-21): every text is
// redacted (C7.2-b) and names the connection when the session, not the statement, failed.
import pg from "pg"
import {
  DriverError,
  InvalidArgument,
  LockTimeout,
  NamespaceNotFound,
  NotConnected,
  PolicyRefusal,
  StatementTimeout,
  TableNotFound,
  Unsupported
} from "../Driver.ts"
import type { Redactor } from "../Redactor.ts"
import { TooManyDatabases } from "./PgPools.ts"

export type RunFailure =
  | DriverError
  | NotConnected
  | NamespaceNotFound
  | InvalidArgument
  | TableNotFound
  | Unsupported
  | StatementTimeout
  | LockTimeout
  | PolicyRefusal

/** Failures a body throws on purpose; they pass through unchanged. */
export const isExpected = (error: unknown): error is RunFailure =>
  error instanceof TableNotFound || error instanceof InvalidArgument || error instanceof NamespaceNotFound ||
  error instanceof Unsupported || error instanceof DriverError || error instanceof NotConnected ||
  error instanceof PolicyRefusal

export interface ErrorContext {
  readonly connection: string
  readonly host: string
  readonly port: number
  /** The database the session was for, and whether it is the connection's own. */
  readonly database: string
  readonly ownDatabase: boolean
  /** The statement deadline in seconds, for a server-side statement_timeout. */
  readonly seconds: number
  /** Whether the call may have changed data (a lost session then leaves the outcome unknown). */
  readonly writes: boolean
  readonly redact: Redactor
}

interface ServerError {
  readonly code?: string | undefined
  readonly message: string
  readonly detail?: string | undefined
  readonly hint?: string | undefined
}

/** SQLSTATE classes and codes that mean the session, not the statement, failed. */
const SESSION_CODES = /^(08|28|53300|57P0[1-4])/

const serverError = (error: unknown): ServerError | undefined => (error instanceof pg.DatabaseError ? error : undefined)

const textOf = (error: ServerError): string =>
  [error.message, error.detail, error.hint].filter((part): part is string => typeof part === "string" && part !== "")
    .join("; ")

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** A failure to open a session (network, authentication, a database that does not exist). */
export const connectFailure = (error: unknown, context: ErrorContext): RunFailure => {
  if (error instanceof TooManyDatabases) {
    return new DriverError({ message: `'${context.connection}': ${error.message}` })
  }
  const server = serverError(error)
  if (server?.code === "3D000" && !context.ownDatabase) {
    return new NamespaceNotFound({
      message: context.redact(
        `the database "${context.database}" does not exist on '${context.connection}'; call list_databases for the names`
      )
    })
  }
  const reason = server === undefined ? messageOf(error) : textOf(server)
  const where = server === undefined ? ` at ${context.host}:${context.port}` : ""
  return new NotConnected({
    message: context.redact(
      `cannot connect to '${context.connection}'${where}${
        context.ownDatabase ? "" : ` (database "${context.database}")`
      }: ${reason}`
    )
  })
}

/** A failure while a session ran the call's statements. */
export const runFailure = (error: unknown, context: ErrorContext): RunFailure => {
  if (isExpected(error)) return error
  const server = serverError(error)
  if (server === undefined || SESSION_CODES.test(server.code ?? "")) {
    const reason = server === undefined ? messageOf(error) : textOf(server)
    const outcome = context.writes ? "; whether the change was made is unknown, check before running it again" : ""
    return new NotConnected({
      message: context.redact(
        `the session of '${context.connection}' was lost during the call (${reason})${outcome}; the next call opens a new session`
      )
    })
  }
  if (server.code === "57014" && /statement timeout/.test(server.message)) {
    return new StatementTimeout({ seconds: context.seconds })
  }
  if (server.code === "55P03") {
    return new LockTimeout({
      message: context.redact(`${textOf(server)} (the statement waited for a lock another session holds)`)
    })
  }
  if (server.code === "3F000") {
    return new NamespaceNotFound({
      message: context.redact(
        `${server.message} in database "${context.database}" of '${context.connection}'; call list_schemas for the names`
      )
    })
  }
  return new DriverError({ message: context.redact(textOf(server)) })
}

/** Whether a failure before any answer on a reused session means the session was already dead while idle. */
export const isSessionLoss = (error: unknown): boolean => {
  const server = serverError(error)
  return server === undefined || SESSION_CODES.test(server.code ?? "")
}

/** The text of a row the database refused (a constraint, a bad value); undefined for anything that ends the call. */
export const rowRejection = (error: unknown): string | undefined => {
  const server = serverError(error)
  if (server === undefined || SESSION_CODES.test(server.code ?? "") || server.code === "57014") return undefined
  return textOf(server)
}
