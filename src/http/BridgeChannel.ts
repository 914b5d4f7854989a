// The stdio bridge's local channel (D-53): a Unix socket in the support directory carrying one JSON-RPC
// message per line, so a bridge call costs no HTTP request on either side. Every line goes through the same
// McpDispatcher as a POST to /mcp, with the header copies of wire contract §4.2 derived from the message as the
// bridge derives them for HTTP, and the credential the bridge presented when it opened the channel: authentication,
// scopes, rate limits, the activity log and cancellation are the endpoint's own.
import { Effect, type Fiber, FiberId, Layer, Runtime, Stream } from "effect"
import { chmodSync, rmSync } from "node:fs"
import * as net from "node:net"
import { isJsonObject } from "../domain/Json.ts"
import type { RequestId } from "../domain/JsonRpc.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { SettingsStore } from "../services/Settings.ts"
import { SupportPaths } from "../services/SupportPaths.ts"
import { MAX_BODY_BYTES } from "./BodyReader.ts"
import { McpDispatcher } from "./McpDispatcher.ts"
import { headersFor } from "./McpHeaders.ts"
import type { McpHttpResponse } from "./McpHttp.ts"
import {
  CHANNEL_HELLO,
  channelPathOf,
  frameLine,
  LineReader,
  MAX_CHANNEL_IN_FLIGHT,
  MAX_CHANNELS
} from "./ChannelProtocol.ts"
import { errorBody } from "./ResponseEncoding.ts"

/** The JSON of a `subscriptions/listen` frame's data (its keep-alive comments have none). */
const dataOf = (frame: string): string | undefined => {
  const data = frame.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
    line.slice(5).replace(/^ /, "")
  )
  return data.length === 0 ? undefined : data.join("\n")
}

/** A line's request id (its answer's tag) and the header copies a POST of it would carry, from one parse. */
const readLine = (
  line: string,
  authorization: string | undefined
): { readonly id: RequestId | null; readonly headers: Record<string, string> } => {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    message = undefined
  }
  const id = isJsonObject(message) ? message["id"] : undefined
  const headers = isJsonObject(message) ? headersFor(message, undefined) : { "content-type": "application/json" }
  return {
    id: typeof id === "string" || typeof id === "number" ? id : null,
    headers: authorization === undefined ? headers : { ...headers, authorization }
  }
}

export const BridgeChannelLive = Layer.scopedDiscard(Effect.gen(function*() {
  const paths = yield* SupportPaths
  const path = channelPathOf(paths.directory)
  if (path === undefined) return
  const dispatcher = yield* McpDispatcher
  const settings = yield* SettingsStore
  const runFork = Runtime.runFork(yield* Effect.runtime<never>())
  const sockets = new Set<net.Socket>()

  const serve = (socket: net.Socket) => {
    const reader = new LineReader()
    let authorization: string | undefined
    let greeted = false
    const running = new Set<Fiber.RuntimeFiber<void>>()
    const write = (line: string) =>
      Effect.async<void>((resume) => {
        if (socket.destroyed) return resume(Effect.void)
        if (socket.write(line)) resume(Effect.void)
        else socket.once("drain", () => resume(Effect.void))
      })
    const respond = (id: RequestId | null, response: McpHttpResponse): Effect.Effect<void> => {
      switch (response.kind) {
        case "json":
          return write(frameLine(id, JSON.stringify(response.body)))
        case "encoded":
          return write(frameLine(id, response.text))
        case "empty":
          return Effect.void
        case "events":
          return response.run((json) => write(frameLine(id, json)))
        case "sse":
          return Stream.runForEach(response.frames, (frame) => {
            const json = dataOf(frame)
            return json === undefined ? Effect.void : write(frameLine(id, json))
          })
      }
    }
    const onLine = (line: string) => {
      if (!greeted) {
        const hello: unknown = (() => {
          try {
            return JSON.parse(line)
          } catch {
            return undefined
          }
        })()
        if (!isJsonObject(hello) || hello["dbdesk"] !== CHANNEL_HELLO) return socket.destroy()
        greeted = true
        authorization = typeof hello["authorization"] === "string" ? hello["authorization"] : undefined
        return void socket.write(`${JSON.stringify({ dbdesk: CHANNEL_HELLO })}\n`)
      }
      const { headers, id } = readLine(line, authorization)
      // A channel runs at most MAX_CHANNEL_IN_FLIGHT requests; past it a request is refused at once, as the 65th HTTP
      // connection is (-33000, retry after a second). Notifications (a cancel) always go through.
      const full = id !== null && running.size >= MAX_CHANNEL_IN_FLIGHT
      // Product-decisions §4 "Disabled": the endpoint answers -33006 to everything while MCP is off.
      const work = full
        ? write(
          frameLine(
            id,
            JSON.stringify(
              errorBody(
                ProtocolError.of(
                  -33000,
                  `Too many requests running on this channel (${MAX_CHANNEL_IN_FLIGHT}): retry when one finishes`,
                  { retryAfterSeconds: 1 }
                ),
                id
              )
            )
          )
        )
        : settings.now().mcp.enabled
        ? Effect.flatMap(
          dispatcher.handle({ headers, body: line, remoteAddress: "local" }),
          (response) => respond(id, response)
        )
        : write(frameLine(id, JSON.stringify(errorBody(ProtocolError.of(-33006), id))))
      const fiber = runFork(Effect.catchAllDefect(work, () => Effect.void))
      running.add(fiber)
      fiber.addObserver(() => running.delete(fiber))
    }
    socket.setEncoding("utf8")
    socket.on("data", (chunk: string) => {
      for (const line of reader.push(chunk)) if (line.trim() !== "") onLine(line)
      // Wire contract §8: a message is limited like a request body (-33005), and the channel closes.
      if (reader.restBytes > MAX_BODY_BYTES) {
        const error = ProtocolError.of(-33005, `The request body is larger than ${MAX_BODY_BYTES} bytes`, {
          limitBytes: MAX_BODY_BYTES
        })
        socket.end(frameLine(null, JSON.stringify(errorBody(error, null))))
        socket.removeAllListeners("data")
        socket.resume()
      }
    })
    socket.on("error", () => socket.destroy())
    // Wire contract §3.2: a bridge that goes away cancels what it was running, as a dropped HTTP client does.
    socket.once("close", () => {
      sockets.delete(socket)
      for (const fiber of running) fiber.unsafeInterruptAsFork(FiberId.none)
    })
  }

  const server = net.createServer((socket) => {
    if (sockets.size >= MAX_CHANNELS) return socket.destroy()
    sockets.add(socket)
    serve(socket)
  })
  rmSync(path, { force: true })
  yield* Effect.async<void>((resume) => {
    server.once("error", () => resume(Effect.void))
    server.listen(path, () => {
      chmodSync(path, 0o600)
      resume(Effect.void)
    })
  })
  yield* Effect.addFinalizer(() =>
    Effect.async<void>((resume) => {
      for (const socket of sockets) socket.destroy()
      if (!server.listening) return resume(Effect.void)
      server.close(() => {
        rmSync(path, { force: true })
        resume(Effect.void)
      })
    })
  )
}))
