import { Effect } from "effect"
import * as http from "node:http"
import { resolveSupportDirectory, supportFiles } from "../services/SupportDirectory.ts"
import { type BridgeIo, forwardStdio } from "./BridgeForwarder.ts"
import { answerWhileNotRunning } from "./NotRunning.ts"
import { acquireUpstream } from "./UpstreamHandshake.ts"

export interface BridgeOptions extends BridgeIo {
  /** Support directory; default DBDESK_HOME or the platform location (D-6). */
  readonly home?: string
}

/**
 * `dbdesk bridge` / `dbdesk-mcp` (D-53). Returns the exit code: 1 after a refusal,
 * which is one JSON-RPC error line (id null) on stdout and a plain explanation on stderr; 0 when
 * the host closes stdin. With no server running, the explanation goes to stderr at once and each
 * request is answered -33000 with it until the host closes stdin, then 1.
 */
export const runBridge = (options: BridgeOptions) =>
  Effect.acquireUseRelease(
    Effect.sync(() => new http.Agent({ keepAlive: true })),
    (agent) =>
      Effect.gen(function*() {
        const env = options.home === undefined ? process.env : { ...process.env, DBDESK_HOME: options.home }
        const handshakePath = supportFiles(resolveSupportDirectory(env)).handshake
        const upstream = yield* acquireUpstream(handshakePath, agent)
        options.errors.write(
          `dbdesk-mcp: forwarding stdio to dbdesk at http://127.0.0.1:${upstream.handshake.port}/mcp ` +
            `(instance ${upstream.handshake.instanceId})\n`
        )
        yield* forwardStdio(options, handshakePath, agent, upstream)
        return 0
      }).pipe(
        Effect.catchTag("BridgeRefusal", (refusal) =>
          Effect.suspend(() => {
            options.errors.write(`dbdesk-mcp: ${refusal.message}\n`)
            if (refusal.reason === "not_running") return Effect.as(answerWhileNotRunning(options, refusal), 1)
            options.output.write(`${refusal.line}\n`)
            return Effect.succeed(1)
          }))
      ),
    (agent) => Effect.sync(() => agent.destroy())
  )
