import { Cause, Console, Effect, Layer, Option, Stream } from "effect"
import { setFlagsFromString } from "node:v8"
import { announce, makeServerLayer } from "../../http/Server.ts"
import { installDriverSafetyNet } from "../../services/drivers/DriverFaults.ts"
import { SettingsStore } from "../../services/Settings.ts"
import { terminalApprovalPrompt } from "../../services/TerminalApprovalPrompt.ts"
import { Tokens } from "../../services/Tokens.ts"

/** D-33: first start with auth on and no token prints a "Default" token once. */
const announceDefaultToken = Effect.gen(function*() {
  const { mcp } = yield* Effect.flatMap(SettingsStore, (store) => store.current)
  if (!mcp.requireAuth) return
  const created = yield* Effect.flatMap(Tokens, (tokens) => tokens.ensureDefault())
  if (created === undefined) return
  yield* Console.log(
    `Created the access token "Default" (readWrite, all connections, id ${created.token.id}). Give it to your MCP client as a bearer token; it is shown only this once:`
  )
  yield* Console.log(created.value)
})

/** D-11: an edit of settings.json while serve runs is applied or refused, and the terminal says which. */
const reportSettingsEdits = Effect.gen(function*() {
  const events = yield* Effect.flatMap(SettingsStore, (store) => store.subscribeEvents)
  yield* Effect.forkScoped(Stream.runForEach(events, (event) =>
    event.kind === "applied"
      ? Console.error(`${event.path} changed: ${event.changed.join(", ")} applied${
        event.changed.some((key) => key.endsWith(".port"))
          ? " (a port applies at the next start)"
          : ""
      }`)
      : Console.error(
        `${event.path} was edited but is not valid, so the previous settings stay in force: ${event.reason}`
      )))
})

/**
 * D-81 (bench/README.md "Memory"). By default the old generation may grow by a tenth over what survived the
 * last full collection, not V8's factor of up to four: under load the heap stays near its live size (RSS +4 % from
 * 1,000 to 50,000 requests instead of +50 %) for up to a tenth fewer requests a second at 16 clients.
 * `DBDESK_HEAP=throughput` keeps V8's own sizing; `small` also sizes everything else for memory.
 */
const setHeapSizing = (choice: string | undefined) => {
  if (choice !== "throughput") setFlagsFromString("--heap-growing-percent=10")
  if (choice === "small") setFlagsFromString("--optimize-for-size")
}

/** `dbdesk serve` (D-1). */
export const serve = ({ home, port }: { readonly home: Option.Option<string>; readonly port: Option.Option<number> }) =>
  Effect.gen(function*() {
    const layer = makeServerLayer({
      ...(Option.isSome(home) ? { home: home.value } : {}),
      ...(Option.isSome(port) ? { settings: { mcp: { port: port.value } } } : {}),
      // D-28: a terminal prompt answers approvals when the server runs in a TTY.
      ...(process.stdin.isTTY ? { approvalPrompt: terminalApprovalPrompt() } : {})
    })
    setHeapSizing(process.env["DBDESK_HEAP"])
    yield* Effect.scoped(Effect.gen(function*() {
      // D-74: a failure escaping a driver's I/O fails that connection's calls, not the process.
      if (process.env["DBDESK_DRIVER_NET"] !== "off") {
        yield* Effect.acquireRelease(Effect.sync(() => installDriverSafetyNet()), (remove) => Effect.sync(remove))
      }
      const context = yield* Layer.build(layer)
      yield* Effect.provide(announce, context)
      yield* Effect.provide(reportSettingsEdits, context)
      yield* Effect.provide(announceDefaultToken, context)
      yield* Effect.never
    }))
  }).pipe(
    Effect.catchTag(
      "ServerAlreadyRunning",
      (error) =>
        Console.error(error.message).pipe(Effect.zipRight(Effect.sync(() => {
          process.exitCode = 1
        })))
    ),
    // D-88: a start that fails (a full disk, a file that cannot be written) says so in one line, not a stack trace.
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
      const error = Cause.squash(cause)
      return Console.error(`dbdesk serve could not start: ${error instanceof Error ? error.message : String(error)}`)
        .pipe(Effect.zipRight(Effect.sync(() => {
          process.exitCode = 1
        })))
    })
  )
