import { type ChildProcess, fork } from "node:child_process"
import { statSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Duration, Effect, Option } from "effect"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"
import type { ResultSet } from "../../domain/ResultSet.ts"
import type { ResolvedRelation } from "../../domain/TableReference.ts"
import type { SchemaMatch, TableDescription, TableEntry } from "../../domain/SqlTable.ts"
import type { StructureDetails } from "../../domain/TableStructure.ts"
import {
  type ConnectionStatus,
  type DatabaseDriver,
  DriverError,
  type DryRun,
  type GuardedResultSet,
  type CursorOptions,
  type HeldCursor,
  type InsertResult,
  type OpenedCursor,
  InvalidArgument,
  LockTimeout,
  type Namespace,
  NotConnected,
  PolicyRefusal,
  type RowCount,
  StatementTimeout,
  type TransactionOutcome,
  TableNotFound,
  Unsupported
} from "./Driver.ts"
import { makeRedactor, redactOutcome } from "./Redactor.ts"
import type { ChildRequest, ChildResponse, ChildRows } from "./sqlite/Protocol.ts"
import { READY } from "./sqlite/Protocol.ts"

export interface SqliteSettings {
  /** Path of the database file; it must exist. */
  readonly path: string
  /** Secrets of the connection to redact from every error text (C7.2-b). */
  readonly secrets?: ReadonlyArray<string>
  /** The connection's name, so a lost process or file says which connection (D-73). */
  readonly name?: string
}

export interface SqliteDriver extends DatabaseDriver {
  /** The pid of the current child process, if one is running (for tests and diagnostics). */
  readonly childPid: () => number | undefined
}

/**
 * The child's script (D-76). In the package this module is part of a bundle chunk in `dist/`, beside the built
 * `sqlite-child.js` (an entry of scripts/build.mjs), which loads better-sqlite3 and the message protocol only. Run
 * from the sources (vitest, tsx) it forks `sqlite/child.ts` through the tsx loader, resolved only then: the
 * installed package has no tsx.
 */
const childCommand = (): { readonly script: string; readonly execArgv: Array<string> } => {
  if (!import.meta.url.endsWith(".ts")) {
    return { script: fileURLToPath(new URL("./sqlite-child.js", import.meta.url)), execArgv: [] }
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
  return { script: fileURLToPath(new URL("./sqlite/child.ts", import.meta.url)), execArgv: ["--import", tsx] }
}
let childCommandCached: ReturnType<typeof childCommand> | undefined
const STDERR_KEPT = 2000
const CLOSE_GRACE = Duration.seconds(2)
/** Compiling a statement takes milliseconds; a file locked by another process is the only wait (busy timeout). */
const CHECK_SECONDS = 10

type Failure = DriverError | TableNotFound | InvalidArgument | NotConnected | LockTimeout | PolicyRefusal

/** One child process and the requests waiting on it. */
interface ChildLink {
  readonly child: ChildProcess
  readonly ready: Promise<void>
  readonly pending: Map<number, (response: ChildResponse) => void>
  /** D-94: requests that want the rows read so far while they run. */
  readonly rows: Map<number, (rows: number) => void>
  readonly exited: Promise<void>
  /** The inode of the database file when the child started: another one means the file was replaced. */
  readonly inode: number
  stderr: string
  /** Why the process ended, once it has: its pending requests fail with this, naming the connection. */
  ended?: string
}

/**
 * SQLite driver: statements run in a child process per connection, one at a time. Cancellation and the
 * statement deadline SIGKILL the child (a worker thread cannot stop a running better-sqlite3 statement,
 * D-13); the next request forks a fresh child that reopens the file.
 */
export const makeSqliteDriver = (settings: SqliteSettings): Effect.Effect<SqliteDriver> =>
  Effect.gen(function*() {
    const redact = makeRedactor(settings.secrets ?? [])
    const lock = yield* Effect.makeSemaphore(1)
    let link: ChildLink | undefined
    let nextId = 1
    let nextCursor = 1
    const named = settings.name === undefined ? "the SQLite connection" : `'${settings.name}'`

    const spawn = (inode: number): ChildLink => {
      const command = (childCommandCached ??= childCommand())
      const child = fork(command.script, [settings.path], {
        execArgv: command.execArgv,
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        serialization: "advanced"
      })
      const pending = new Map<number, (response: ChildResponse) => void>()
      const rows = new Map<number, (rows: number) => void>()
      let markReady = (): void => {}
      const ready = new Promise<void>((resolve) => (markReady = resolve))
      const exited = new Promise<void>((resolve) => {
        child.once("exit", (code, signal) => {
          const message = `the SQLite process of ${named} ended (${signal ?? `exit code ${code}`})${
            created.stderr === "" ? "" : `: ${created.stderr.trim()}`
          }; the next call starts a new one`
          created.ended = message
          for (const [id, resume] of pending) resume({ id, ok: false, failure: { kind: "Sql", message } })
          pending.clear()
          if (link === created) link = undefined
          resolve()
        })
      })
      const created: ChildLink = { child, ready, pending, rows, exited, inode, stderr: "" }
      child.stderr?.on("data", (chunk: Buffer) => {
        created.stderr = (created.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT)
      })
      child.on("error", () => child.kill("SIGKILL"))
      child.on("message", (message: ChildResponse | ChildRows | typeof READY) => {
        if (message === READY) return markReady()
        if (!("ok" in message)) return rows.get(message.id)?.(message.rows)
        const resume = pending.get(message.id)
        pending.delete(message.id)
        rows.delete(message.id)
        resume?.(message)
      })
      return created
    }

    const kill = (target: ChildLink): void => {
      if (link === target) link = undefined
      target.child.kill("SIGKILL")
    }

    const failureOf = (response: ChildResponse & { ok: false }): Failure => {
      const failure = response.failure
      switch (failure.kind) {
        case "TableNotFound":
          return new TableNotFound({ table: failure.table })
        case "InvalidArgument":
          return new InvalidArgument({ message: redact(failure.message) })
        case "Policy":
          return new PolicyRefusal({ refusal: failure.refusal })
        case "Sql":
          // SQLITE_BUSY past the busy timeout, and a file SQLite cannot open, are the connection's, not the statement's.
          if (failure.message.startsWith("database is locked")) {
            return new LockTimeout({
              message: redact(
                `${named}: database is locked: another process holds a lock on ${settings.path}; try again when it ends`
              )
            })
          }
          if (failure.message.startsWith("unable to open database file")) {
            return new NotConnected({
              message: redact(`cannot open the database file of ${named} (${settings.path}): ${failure.message}`)
            })
          }
          return new DriverError({ message: redact(failure.message) })
      }
    }

    /** The database file's inode now; undefined when it is gone. */
    const currentInode = Effect.sync(() => {
      // Synchronous: it runs before every statement, and a stat is a few µs where the thread pool's round trip is not.
      try {
        return statSync(settings.path).ino
      } catch {
        return undefined
      }
    })

    /**
     * One request to the child; interrupting it kills the child that is running it. With `seconds`, the deadline is a
     * timer inside the exchange that ends it the same way (Effect.timeoutFail raced two fibers per statement).
     */
    const exchange = <A>(
      request: ChildRequest,
      seconds?: number,
      onRows?: (rows: number) => void
    ): Effect.Effect<A, Failure | StatementTimeout> =>
      Effect.flatMap(currentInode, (inode) => {
        // A deleted file is reported, never served from the handle a child still holds; a replaced one gets a new child.
        if (inode === undefined) {
          return Effect.fail(
            new NotConnected({
              message: redact(
                `the database file of ${named} is missing: ${settings.path}; restore it or edit the connection`
              )
            })
          )
        }
        if (link !== undefined && link.inode !== inode) kill(link)
        return Effect.async<A, Failure | StatementTimeout>((resume) => {
          const target = link ?? (link = spawn(inode))
          const id = nextId++
          if (onRows !== undefined) target.rows.set(id, onRows)
          const deadline = seconds === undefined ? undefined : setTimeout(() => {
            if (target.pending.delete(id)) kill(target)
            resume(Effect.fail(new StatementTimeout({ seconds })))
          }, seconds * 1000)
          target.pending.set(id, (response) => {
            clearTimeout(deadline)
            resume(
              response.ok
                ? Effect.succeed(response.value as A)
                : Effect.fail(
                  target.ended === undefined ? failureOf(response) : new NotConnected({ message: redact(target.ended) })
                )
            )
          })
          void target.ready.then(() => {
            if (!target.pending.has(id)) return
            try {
              target.child.send({ id, ...request }, (error) => error && kill(target))
            } catch (error) {
              clearTimeout(deadline)
              target.pending.delete(id)
              resume(Effect.fail(new DriverError({ message: redact(`cannot send the request: ${String(error)}`) })))
            }
          })
          return Effect.sync(() => {
            clearTimeout(deadline)
            target.rows.delete(id)
            if (target.pending.delete(id)) kill(target)
          })
        })
      })

    /** Sends one request after the ones before it on this connection. */
    const send = <A>(request: ChildRequest): Effect.Effect<A, Failure> =>
      lock.withPermits(1)(exchange<A>(request) as Effect.Effect<A, Failure>)

    /** Sends one request that must end within `seconds`, the wait behind another statement included. */
    const sendWithin = <A>(
      request: ChildRequest,
      seconds: number,
      onRows?: (rows: number) => void
    ): Effect.Effect<A, Failure | StatementTimeout> =>
      Effect.flatMap(
        lock.withPermitsIfAvailable(1)(exchange<A>(request, seconds, onRows)),
        Option.match({
          onSome: (value) => Effect.succeed(value),
          // Another statement holds the connection: the deadline has to cover the wait for it too.
          onNone: () =>
            Effect.timeoutFail(lock.withPermits(1)(exchange<A>(request, undefined, onRows)), {
              duration: Duration.seconds(seconds),
              onTimeout: () => new StatementTimeout({ seconds })
            })
        })
      )

    /** Opens a held cursor in the child and answers its first page (undefined: the statement returns no rows). */
    const openHeld = (
      request: (
        cursor: number
      ) => Extract<ChildRequest, { readonly op: "cursorOpen" | "cursorBrowse" }> extends infer R
        ? R extends unknown ? Omit<R, "maxRows" | "limits" | "guard"> : never
        : never,
      options: CursorOptions
    ) =>
      Effect.gen(function*() {
        const cursor = nextCursor++
        const opened = yield* sendWithin<{ readonly unsupported: true } | { readonly page: OpenedCursor["first"] }>(
          {
            ...request(cursor),
            maxRows: options.maxRows,
            ...(options.limits === undefined ? {} : { limits: options.limits }),
            ...(options.guard === undefined ? {} : { guard: options.guard }),
            ...(options.onRows === undefined ? {} : { tellRows: true })
          },
          options.timeoutSeconds,
          options.onRows
        )
        if ("unsupported" in opened) return undefined
        // The child that holds the iterator: after it ended (killed, replaced) there is nothing to close.
        const owner = link
        const held: HeldCursor = {
          page: (maxRows, limits) =>
            sendWithin<OpenedCursor["first"]>({
              op: "cursorPage",
              cursor,
              maxRows,
              ...(limits === undefined ? {} : { limits })
            }, options.timeoutSeconds).pipe(
              Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError)
            ),
          close: () => (link === owner && owner !== undefined
            ? Effect.ignore(send<null>({ op: "cursorClose", cursor }))
            : Effect.void)
        }
        return { cursor: held, first: opened.page }
      })

    const status = (): Effect.Effect<ConnectionStatus> =>
      send<{ status: "connected"; server_version: string }>({ op: "status" }).pipe(
        Effect.catchAll((error) =>
          Effect.succeed<ConnectionStatus>({
            status: "error",
            error: error._tag === "TableNotFound" ? "unexpected answer" : error.message
          })
        ),
        Effect.withSpan("SqliteDriver.status")
      )

    const close = (): Effect.Effect<void> =>
      Effect.suspend(() => {
        const target = link
        if (target === undefined) return Effect.void
        return send<null>({ op: "close" }).pipe(
          Effect.zipRight(Effect.promise(() => target.exited)),
          Effect.timeout(CLOSE_GRACE),
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => kill(target)))
        )
      })

    // Untraced: every call of a tool runs one of these, where a traced Effect.fn costs ~13 µs (bench/README.md).
    const driver: SqliteDriver = {
      dialect: "sqlite",
      childPid: () => link?.child.pid,
      status,
      listDatabases: () => Effect.succeed(["main"]),
      listTables: Effect.fnUntraced(function*(options: { readonly includeRowCounts: boolean } & Namespace) {
        yield* mainOnly(options)
        return yield* send<ReadonlyArray<TableEntry>>({ op: "listTables", includeRowCounts: options.includeRowCounts })
          .pipe(Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError))
      }),
      resolveTable: Effect.fnUntraced(function*(table: string, namespace?: Namespace) {
        yield* mainOnly(namespace)
        return yield* send<ResolvedRelation>({ op: "resolveTable", table: exactly(table, namespace) }).pipe(
          Effect.catchTag("InvalidArgument", toDriverError)
        )
      }),
      describeTable: Effect.fnUntraced(function*(table: string, namespace?: Namespace) {
        yield* mainOnly(namespace)
        return yield* send<TableDescription>({ op: "describeTable", table: exactly(table, namespace) }).pipe(
          Effect.catchTag("InvalidArgument", toDriverError)
        )
      }),
      structureDetails: Effect.fnUntraced(function*(table: string, namespace?: Namespace) {
        yield* mainOnly(namespace)
        return yield* send<StructureDetails>({ op: "structureDetails", table: exactly(table, namespace) }).pipe(
          Effect.catchTag("InvalidArgument", toDriverError)
        )
      }),
      tableDdl: Effect.fnUntraced(function*(table: string, namespace?: Namespace) {
        yield* mainOnly(namespace)
        return yield* send<string>({ op: "tableDdl", table: exactly(table, namespace) }).pipe(
          Effect.catchTag("InvalidArgument", toDriverError)
        )
      }),
      searchSchema: Effect.fnUntraced(function*(term: string, limit: number, namespace?: Namespace) {
        yield* mainOnly(namespace)
        return yield* send<ReadonlyArray<SchemaMatch>>({ op: "searchSchema", term, limit }).pipe(
          Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError)
        )
      }),
      browse: Effect.fnUntraced(function*(table, query, namespace, limits, guard) {
        yield* mainOnly(namespace)
        return yield* send<GuardedResultSet>({
          op: "browse",
          table: exactly(table, namespace),
          query,
          ...(limits === undefined ? {} : { limits }),
          ...(guard === undefined ? {} : { guard })
        })
      }),
      browseText: Effect.fn("SqliteDriver.browseText")(function*(table, query, namespace) {
        yield* mainOnly(namespace)
        return yield* send<string>({ op: "browseText", table: exactly(table, namespace), query })
      }),
      count: Effect.fnUntraced(function*(table, filters, logic, namespace) {
        yield* mainOnly(namespace)
        return yield* send<RowCount>({ op: "count", table: exactly(table, namespace), filters, logic })
      }),
      execute: Effect.fnUntraced(function*(sql, options) {
        yield* mainOnly(options)
        return yield* sendWithin<GuardedResultSet>({
          op: "execute",
          sql,
          ...(options.columnTypes === true ? { columnTypes: true } : {}),
          maxRows: options.maxRows,
          access: options.access,
          params: options.params ?? [],
          ...(options.limits === undefined ? {} : { limits: options.limits }),
          ...(options.guard === undefined ? {} : { guard: options.guard })
        }, options.timeoutSeconds).pipe(Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError))
      }),
      explain: Effect.fnUntraced(function*(sql: string, analyze: boolean, limits?: AnswerLimits) {
        if (analyze) {
          return yield* new Unsupported({
            message: "SQLite has no EXPLAIN ANALYZE; use analyze: false for the query plan"
          })
        }
        return yield* send<ResultSet>({ op: "explain", sql, ...(limits === undefined ? {} : { limits }) }).pipe(
          Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError)
        )
      }),
      check: Effect.fn("SqliteDriver.check")(function*(sql, options) {
        yield* mainOnly(options)
        return yield* sendWithin<null>({ op: "check", sql, access: options.access }, CHECK_SECONDS).pipe(
          Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError)
        )
      }),
      dryRun: Effect.fn("SqliteDriver.dryRun")(function*(plan, options) {
        yield* mainOnly(options)
        return yield* sendWithin<DryRun>({
          op: "dryRun",
          plan,
          ...(options.params === undefined ? {} : { params: options.params })
        }, options.seconds).pipe(Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError))
      }),
      insertRows: Effect.fnUntraced(function*(table, columns, rows) {
        return yield* send<InsertResult>({ op: "insertRows", table, columns, rows })
      }),
      transaction: Effect.fn("SqliteDriver.transaction")(function*(statements, options) {
        yield* mainOnly(options)
        return yield* sendWithin<TransactionOutcome>({ op: "transaction", statements }, options.timeoutSeconds).pipe(
          Effect.map((outcome) => redactOutcome(outcome, redact)),
          Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError)
        )
      }),
      // fetch_more: a statement that returns rows is read page by page from an iterator the child keeps open.
      openCursor: Effect.fnUntraced(function*(sql, options) {
        yield* mainOnly(options)
        const opened = yield* openHeld((cursor) => ({ op: "cursorOpen", cursor, sql, params: [] }), options).pipe(
          Effect.catchTag("TableNotFound", "InvalidArgument", toDriverError)
        )
        if (opened === undefined) {
          return yield* new Unsupported({ message: "this statement returns no rows to continue" })
        }
        return opened
      }),
      openBrowseCursor: Effect.fnUntraced(function*(table, query, options) {
        yield* mainOnly(options)
        const opened = yield* openHeld((cursor) => ({ op: "cursorBrowse", cursor, table, query }), options)
        if (opened === undefined) return yield* new DriverError({ message: "the table's rows could not be read" })
        return opened
      }),
      close
    }
    return driver
  })

/** A stored name resolved before, spelled so that its first reading is that very table of `main`. */
const exactly = (table: string, namespace: Namespace | undefined): string =>
  namespace?.exact === true ? `"main"."${table.replace(/"/g, "\"\"")}"` : table

/** A SQLite connection is one file: its only database and schema are `main` (D-72). */
const mainOnly = (namespace: Namespace | undefined): Effect.Effect<void, InvalidArgument> => {
  const other = [namespace?.database, namespace?.schema].find((name) => name !== undefined && name !== "main")
  return other === undefined
    ? Effect.void
    : Effect.fail(
      new InvalidArgument({
        message: `a SQLite connection has one database and schema, main; got ${JSON.stringify(other)}`
      })
    )
}

const toDriverError = (error: TableNotFound | InvalidArgument): Effect.Effect<never, DriverError> =>
  Effect.fail(
    new DriverError({ message: error._tag === "TableNotFound" ? `no table named ${error.table}` : error.message })
  )
