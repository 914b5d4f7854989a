import { Data, Effect } from "effect"
import * as http from "node:http"
import { isJsonObject, type JsonObject } from "../domain/Json.ts"
import { headersFor } from "../http/McpHeaders.ts"
import type { IdRestorer } from "./IdMap.ts"

export { headersFor } from "../http/McpHeaders.ts"

/** Where requests go and with which credential: both come from the trusted handshake file. */
export interface UpstreamTarget {
  readonly port: number
  readonly token: string | undefined
}

export type UpstreamReply =
  /** `message` is `undefined` when the body was empty (a 202) or not JSON. */
  | { readonly kind: "json"; readonly status: number; readonly message: unknown }
  /** An SSE answer: every frame was already handed on; `answered` says whether a response frame came. */
  | { readonly kind: "stream"; readonly status: number; readonly answered: boolean }

export class UpstreamUnreachable extends Data.TaggedError("UpstreamUnreachable")<{
  readonly port: number
  readonly cause: unknown
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    return `the dbdesk server at 127.0.0.1:${this.port} did not answer (${code ?? String(this.cause)})`
  }
}

/** Splits an SSE body into the JSON messages of its `data:` lines; comments and event names are skipped. */
export class SseFrames {
  private buffer = ""
  constructor(
    private readonly onFrame: (frame: unknown) => void,
    private readonly restore: IdRestorer = (text) => text
  ) {}

  push(chunk: string): void {
    this.buffer = (this.buffer + chunk).replace(/\r\n?/g, "\n")
    let end = this.buffer.indexOf("\n\n")
    while (end !== -1) {
      this.emit(this.buffer.slice(0, end))
      this.buffer = this.buffer.slice(end + 2)
      end = this.buffer.indexOf("\n\n")
    }
  }

  finish(): void {
    if (this.buffer.trim() !== "") this.emit(this.buffer)
    this.buffer = ""
  }

  private emit(block: string): void {
    const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
      line.slice(5).replace(/^ /, "")
    )
    if (data.length === 0) return
    try {
      this.onFrame(JSON.parse(this.restore(data.join("\n"))))
    } catch {
      // A frame that is not JSON cannot be turned into a stdout line; the missing response is reported instead.
    }
  }
}

const isResponse = (frame: unknown) => isJsonObject(frame) && ("result" in frame || "error" in frame) && "id" in frame

/**
 * POSTs one message to `/mcp`. node:http rather than fetch: a write waiting for the app's dialog may
 * hold the response for up to 330 s (wire contract §8), past undici's default header timeout.
 * Interrupting the effect destroys the request, which the server treats as a dropped client.
 */
export const postUpstream = (
  agent: http.Agent,
  target: UpstreamTarget,
  message: JsonObject,
  onFrame: (frame: unknown) => void,
  restore: IdRestorer = (text) => text
) =>
  Effect.async<UpstreamReply, UpstreamUnreachable>((resume) => {
    let settled = false
    const settle = (outcome: Effect.Effect<UpstreamReply, UpstreamUnreachable>) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const unreachable = (cause: unknown) => {
      if (!settled) settle(Effect.fail(new UpstreamUnreachable({ port: target.port, cause })))
    }
    const body = JSON.stringify(message)
    const request = http.request({
      agent,
      host: "127.0.0.1",
      port: target.port,
      path: "/mcp",
      method: "POST",
      headers: { ...headersFor(message, target.token), "content-length": Buffer.byteLength(body) }
    }, (response) => {
      const status = response.statusCode ?? 0
      const streamed = (response.headers["content-type"] ?? "").toLowerCase().startsWith("text/event-stream")
      let answered = false
      if (streamed) {
        const frames = new SseFrames((frame) => {
          if (isResponse(frame)) answered = true
          onFrame(frame)
        }, restore)
        const finish = () => {
          frames.finish()
          settle(Effect.succeed({ kind: "stream", status, answered }))
        }
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => frames.push(chunk))
        response.on("end", finish)
        response.on("error", unreachable)
        response.on("close", finish)
        return
      }
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        let parsed: unknown
        try {
          parsed = chunks.length === 0 ? undefined : JSON.parse(restore(Buffer.concat(chunks).toString("utf8")))
        } catch {
          parsed = undefined
        }
        settle(Effect.succeed({ kind: "json", status, message: parsed }))
      })
      response.on("error", unreachable)
      response.on("close", () => {
        if (!settled) unreachable(new Error("the connection closed before the answer was complete"))
      })
    })
    request.on("error", unreachable)
    request.end(body)
    return Effect.sync(() => request.destroy())
  })
