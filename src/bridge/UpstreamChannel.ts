import { Effect } from "effect"
import type * as http from "node:http"
import * as net from "node:net"
import { isJsonObject, type JsonObject } from "../domain/Json.ts"
import { CHANNEL_HELLO, LineReader } from "../http/ChannelProtocol.ts"
import type { IdRestorer } from "./IdMap.ts"
import { postUpstream, type UpstreamReply, type UpstreamTarget, UpstreamUnreachable } from "./Upstream.ts"

/** How long the bridge waits for the server's hello before it uses HTTP instead. */
const HELLO_TIMEOUT_MS = 2000
/** A channel with nothing in flight for this long is closed by the bridge (the next call opens another). */
const IDLE_CLOSE_MS = 30_000

interface Pending {
  readonly onFrame: (frame: unknown) => void
  readonly restore: IdRestorer
  readonly settle: (reply: UpstreamReply | UpstreamUnreachable) => void
  notified: boolean
}

const isResponse = (message: JsonObject) => !("method" in message) && ("result" in message || "error" in message)

/**
 * The bridge's side of the local channel (src/http/BridgeChannel.ts): one socket per upstream credential, opened on
 * the first call, each line a message. Replies have the shape `postUpstream` gives, so the forwarder does not know
 * which way a call went; a server without the channel (an older dbdesk, Windows, a refused or failed open) is called
 * over HTTP as before.
 */
export class UpstreamChannel {
  private socket: net.Socket | undefined
  private opening: Promise<boolean> | undefined
  private unavailable = false
  private readonly pending = new Map<string, Pending>()
  private idle: NodeJS.Timeout | undefined
  private retired = false

  constructor(
    private readonly path: string | undefined,
    private readonly target: UpstreamTarget,
    private readonly agent: http.Agent
  ) {}

  /** Sends one message and resolves with its reply, as `postUpstream` would; interrupting it cancels the request upstream. */
  exchange(
    message: JsonObject,
    onFrame: (frame: unknown) => void,
    restore: IdRestorer = (text) => text
  ): Effect.Effect<UpstreamReply, UpstreamUnreachable> {
    if (this.path === undefined || this.unavailable) {
      return postUpstream(this.agent, this.target, message, onFrame, restore)
    }
    if (this.socket !== undefined && !this.socket.destroyed) return this.send(message, onFrame, restore)
    return Effect.flatMap(
      Effect.promise(() => this.open()),
      (
        open
      ) => (open
        ? this.send(message, onFrame, restore)
        : postUpstream(this.agent, this.target, message, onFrame, restore))
    )
  }

  close(): void {
    this.unavailable = true
    this.socket?.destroy()
  }

  /** Closes the channel once nothing is in flight on it, and uses it for nothing new. */
  retire(): void {
    this.retired = true
    this.armIdle()
  }

  private send(
    message: JsonObject,
    onFrame: (frame: unknown) => void,
    restore: IdRestorer
  ): Effect.Effect<UpstreamReply, UpstreamUnreachable> {
    return Effect.async<UpstreamReply, UpstreamUnreachable>((resume) => {
      const socket = this.socket
      if (socket === undefined) {
        return resume(
          Effect.fail(new UpstreamUnreachable({ port: this.target.port, cause: new Error("the channel closed") }))
        )
      }
      const id = message["id"]
      // A notification (a cancel) has no answer.
      if (id === undefined) {
        socket.write(`${JSON.stringify(message)}\n`)
        return resume(Effect.succeed({ kind: "json", status: 202, message: undefined }))
      }
      const key = JSON.stringify(id)
      clearTimeout(this.idle)
      this.pending.set(key, {
        onFrame,
        restore,
        notified: false,
        settle: (reply) => {
          this.pending.delete(key)
          this.armIdle()
          resume(reply instanceof UpstreamUnreachable ? Effect.fail(reply) : Effect.succeed(reply))
        }
      })
      socket.write(`${JSON.stringify(message)}\n`)
      // Wire contract §3.2: a call the host abandons is cancelled upstream, as a dropped HTTP request would be.
      return Effect.sync(() => {
        if (!this.pending.delete(key)) return
        this.armIdle()
        socket.write(
          `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })}\n`
        )
      })
    })
  }

  private open(): Promise<boolean> {
    this.opening ??= new Promise<boolean>((resolve) => {
      const socket = net.connect(this.path!)
      const reader = new LineReader()
      let greeted = false
      const give = (open: boolean) => {
        clearTimeout(timer)
        this.opening = undefined
        if (!open) {
          this.unavailable = true
          socket.destroy()
        }
        resolve(open)
      }
      const timer = setTimeout(() => give(false), HELLO_TIMEOUT_MS)
      socket.setEncoding("utf8")
      socket.on(
        "connect",
        () =>
          socket.write(
            `${
              JSON.stringify({
                dbdesk: CHANNEL_HELLO,
                authorization: this.target.token === undefined ? undefined : `Bearer ${this.target.token}`
              })
            }\n`
          )
      )
      socket.on("data", (chunk: string) => {
        for (const line of reader.push(chunk)) {
          if (greeted) this.onLine(line)
          else if (line === JSON.stringify({ dbdesk: CHANNEL_HELLO })) {
            greeted = true
            this.socket = socket
            this.armIdle()
            give(true)
          } else return give(false)
        }
      })
      socket.on("error", () => socket.destroy())
      socket.on("close", () => {
        if (!greeted) return give(false)
        if (this.socket === socket) this.socket = undefined
        clearTimeout(this.idle)
        for (const pending of [...this.pending.values()]) {
          pending.settle(
            new UpstreamUnreachable({
              port: this.target.port,
              cause: new Error("the dbdesk server closed the channel before the answer")
            })
          )
        }
      })
    })
    return this.opening
  }

  private armIdle(): void {
    clearTimeout(this.idle)
    if (this.pending.size > 0) return
    if (this.retired) this.socket?.end()
    else this.idle = setTimeout(() => this.socket?.end(), IDLE_CLOSE_MS).unref()
  }

  private onLine(line: string): void {
    const tab = line.indexOf("\t")
    const pending = this.pending.get(line.slice(0, tab))
    if (pending === undefined) return
    let message: unknown
    try {
      message = JSON.parse(pending.restore(line.slice(tab + 1)))
    } catch {
      return
    }
    if (!isJsonObject(message)) return
    if (!isResponse(message)) {
      pending.notified = true
      return pending.onFrame(message)
    }
    if (!pending.notified) return pending.settle({ kind: "json", status: 200, message })
    pending.onFrame(message)
    pending.settle({ kind: "stream", status: 200, answered: true })
  }
}
