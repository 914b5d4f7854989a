import { Effect } from "effect"
import * as readline from "node:readline"
import { isJsonObject } from "../domain/Json.ts"
import type { BridgeIo } from "./BridgeForwarder.ts"
import type { BridgeRefusal } from "./BridgeRefusal.ts"

/**
 * With no server to forward to, the bridge stays on the host's stdio until stdin ends and answers every request that
 * arrives with -33000 and the refusal's advice: a host reads an answer to its own request, never a line with id null
 * that matches nothing. Notifications and lines that are not requests get no answer.
 */
export const answerWhileNotRunning = (io: BridgeIo, refusal: BridgeRefusal) =>
  Effect.async<void>((resume) => {
    const lines = readline.createInterface({ input: io.input, crlfDelay: Infinity })
    const error = { code: -33000, message: refusal.message, data: { reason: refusal.reason } }
    lines.on("line", (line) => {
      let message: unknown
      try {
        message = JSON.parse(line)
      } catch {
        return
      }
      if (!isJsonObject(message) || typeof message["method"] !== "string") return
      const id = message["id"]
      if (typeof id !== "string" && typeof id !== "number") return
      io.output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`)
    })
    io.output.on("error", () => lines.close())
    lines.once("close", () => resume(Effect.void))
    return Effect.sync(() => lines.close())
  })
