// The last line of defence of D-74, not the fix: an exception that escapes a driver's I/O (a socket or
// timer callback of a database client) is logged, redacted, fails the requests of that one connection and leaves
// every other connection and the MCP endpoint serving. Each driver runs its I/O inside its own scope; `dbdesk serve`
// installs the handlers (DBDESK_DRIVER_NET=off leaves them out, which the fault tests rely on).
import { AsyncLocalStorage } from "node:async_hooks"

export interface DriverScope {
  /** The connection's name, for the log line. */
  readonly connection: string
  readonly redact: (text: string) => string
  /** Fails the requests running on this connection and drops its sessions; the next call starts afresh. */
  readonly onFault: (error: Error) => void
}

const scopes = new AsyncLocalStorage<DriverScope>()

/** Runs `f` so that every callback its I/O schedules (sockets, timers, promises) belongs to `scope`. */
export const withinDriver = <A>(scope: DriverScope, f: () => A): A => scopes.run(scope, f)

const describe = (error: unknown): string => (error instanceof Error ? error.stack ?? error.message : String(error))

/**
 * Installs the process-level handlers. A failure raised inside a driver scope is logged and handed to its
 * connection; any other one ends the process with exit code 1, as Node does without handlers. Returns the removal.
 */
export const installDriverSafetyNet = (
  log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`)
) => {
  const onException = (error: unknown) => {
    const scope = scopes.getStore()
    if (scope === undefined) {
      log(`dbdesk: uncaught exception, stopping: ${describe(error)}`)
      process.exit(1)
    }
    const fault = error instanceof Error ? error : new Error(String(error))
    log(
      scope.redact(
        `dbdesk: unexpected failure in the driver of '${scope.connection}'; its running requests failed and its sessions were closed: ${
          describe(fault)
        }`
      )
    )
    try {
      scope.onFault(fault)
    } catch (inner) {
      log(scope.redact(`dbdesk: closing the sessions of '${scope.connection}' failed too: ${describe(inner)}`))
    }
  }
  const onRejection = (reason: unknown) => {
    if (scopes.getStore() === undefined) throw reason
    onException(reason)
  }
  process.on("uncaughtException", onException)
  process.on("unhandledRejection", onRejection)
  return () => {
    process.off("uncaughtException", onException)
    process.off("unhandledRejection", onRejection)
  }
}
