import { Command, Options } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import { announce, makeServerLayer } from "../http/Server.ts"
import { terminalApprovalPrompt } from "../services/TerminalApprovalPrompt.ts"
import { announceDefaultToken } from "./TokenCommand.ts"

const port = Options.integer("port").pipe(
  Options.withDescription("MCP port (default: mcp.port from settings.json, 23750); 0 picks a free port"),
  Options.optional
)
const home = Options.text("home").pipe(
  Options.withDescription("support directory (default: DBDESK_HOME or the platform location)"),
  Options.optional
)

/** `dbdesk serve`: the standalone loopback server (product-decisions §1). */
export const serveCommand = Command.make("serve", { port, home }, ({ home, port }) =>
  Effect.gen(function*() {
    const layer = makeServerLayer({
      ...(Option.isSome(home) ? { home: home.value } : {}),
      ...(Option.isSome(port) ? { settings: { mcp: { port: port.value } } } : {}),
      // product-decisions §3.2: a terminal prompt answers approvals when the server runs in a TTY.
      ...(process.stdin.isTTY ? { approvalPrompt: terminalApprovalPrompt() } : {})
    })
    yield* Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(layer)
      yield* Effect.provide(announce, context)
      yield* Effect.provide(announceDefaultToken, context)
      yield* Effect.never
    }))
  }).pipe(
    Effect.catchTag("ServerAlreadyRunning", (error) =>
      Console.error(error.message).pipe(Effect.zipRight(Effect.sync(() => {
        process.exitCode = 1
      }))))
  )
).pipe(Command.withDescription("Start the dbdesk MCP server on 127.0.0.1"))
