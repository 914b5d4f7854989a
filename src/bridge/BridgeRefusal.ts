import { Data } from "effect"

/** Why the bridge will not start, or could not reach the server again (D-53). */
export type RefusalReason =
  | "not_running"
  | "untrusted_handshake"
  | "expired_handshake"
  | "unsupported_version"
  | "instance_mismatch"

/** Said to someone who installed dbdesk: the installed command, not a development checkout's `npm start`. */
export const HOW_TO_START = "Start the dbdesk server with `dbdesk serve` and try again."

export class BridgeRefusal extends Data.TaggedError("BridgeRefusal")<{
  readonly reason: RefusalReason
  readonly explanation: string
}> {
  override get message(): string {
    return this.explanation
  }

  /** The single JSON-RPC error line the bridge prints on stdout before exiting 1. */
  get line(): string {
    return JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: -33000, message: this.explanation, data: { reason: this.reason } }
    })
  }
}

export const notRunning = (why: string) =>
  new BridgeRefusal({ reason: "not_running", explanation: `dbdesk is not running: ${why}. ${HOW_TO_START}` })

export const untrusted = (handshakePath: string, why: string) =>
  new BridgeRefusal({
    reason: "untrusted_handshake",
    explanation: `Refusing the handshake file ${handshakePath}: ${why}. ` +
      "Only a file written by your own dbdesk server is trusted; restart dbdesk to rewrite it."
  })
