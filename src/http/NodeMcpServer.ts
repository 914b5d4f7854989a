import { Context, Effect, FiberId, Layer, Runtime, Stream } from "effect"
import * as http from "node:http"
import * as net from "node:net"
import type { Duplex } from "node:stream"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { SettingsStore } from "../services/Settings.ts"
import { MAX_BODY_BYTES, readBody } from "./BodyReader.ts"
import type { McpHttpResponse } from "./McpHttp.ts"
import { McpDispatcher } from "./McpDispatcher.ts"
import { errorBody, sseFrameOfJson } from "./ResponseEncoding.ts"
import { routeTransport } from "./TransportGuard.ts"

/** Wire contract §8 / D-44. */
export const MAX_HEADER_BYTES = 16_384
export const MAX_CONNECTIONS = 64
/** How long a socket we are closing keeps draining what the client still sends, so our reply is not lost to a reset. */
const CLOSING_LINGER_MS = 2_000

export class McpServerAddress extends Context.Tag("dbdesk/http/McpServerAddress")<McpServerAddress, {
  readonly port: number
  readonly url: string
  /** Number of open sockets, for tests of the connection limit. */
  readonly openConnections: () => number
}>() {}

const writeText = (res: http.ServerResponse, status: number, text: string, headers: Record<string, string>) => {
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const writeJson = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  writeText(res, status, JSON.stringify(body), headers)

/**
 * What a stream writes in one tick leaves in one write: the socket stays corked until the next tick (D-84: the
 * head and each SSE frame were a syscall each, 10–60 µs apiece on a VM). A frame is never held past its tick.
 */
const corkForTick = (res: http.ServerResponse) => {
  if (res.writableCorked > 0) return
  res.cork()
  process.nextTick(() => res.uncork())
}

/** Writes a chunk, waiting for the socket to drain only when its buffer is full. */
const writeChunk = (res: http.ServerResponse, chunk: string) =>
  Effect.suspend(() => {
    corkForTick(res)
    return res.write(chunk)
      ? Effect.void
      : Effect.async<void>((resume) => void res.once("drain", () => resume(Effect.void)))
  })

const writeResponse = (res: http.ServerResponse, response: McpHttpResponse) => {
  switch (response.kind) {
    case "json":
      return Effect.sync(() => writeJson(res, response.status, response.body, response.headers))
    case "encoded":
      return Effect.sync(() => writeText(res, response.status, response.text, response.headers))
    case "empty":
      return Effect.sync(() => {
        res.writeHead(response.status, response.headers)
        res.end()
      })
    case "sse":
      return Effect.gen(function*() {
        corkForTick(res)
        res.writeHead(200, response.headers)
        res.flushHeaders()
        yield* Stream.runForEach(response.frames, (frame) => writeChunk(res, frame))
        res.end()
      })
    case "events":
      return Effect.gen(function*() {
        corkForTick(res)
        res.writeHead(200, response.headers)
        res.flushHeaders()
        yield* response.run((json) => writeChunk(res, sseFrameOfJson(json)))
        res.end()
      })
  }
}

const rawResponse = (status: string, body: unknown, headers: Record<string, string>) => {
  const text = JSON.stringify(body)
  const lines = Object.entries({
    ...headers,
    "content-type": "application/json",
    connection: "close",
    "content-length": String(Buffer.byteLength(text))
  })
  return `HTTP/1.1 ${status}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${text}`
}

const TOO_MANY_CONNECTIONS = rawResponse(
  "503 Service Unavailable",
  errorBody(ProtocolError.of(-33000, `Too many open connections (${MAX_CONNECTIONS}): retry shortly`), null),
  { "retry-after": "1" }
)
const HEADERS_TOO_LARGE = rawResponse("431 Request Header Fields Too Large", {
  error: { code: "headers_too_large", message: `Request headers are limited to ${MAX_HEADER_BYTES} bytes` }
}, {})
const BAD_REQUEST = rawResponse("400 Bad Request", {
  error: { code: "bad_request", message: "Malformed HTTP request" }
}, {})

/** Sends a last reply and closes, reading and discarding what the client still sends (no TCP reset). */
const closeWithReply = (socket: Duplex, reply: string) => {
  socket.removeAllListeners("data")
  socket.on("data", () => {})
  socket.on("error", () => socket.destroy())
  const linger = setTimeout(() => socket.destroy(), CLOSING_LINGER_MS).unref()
  socket.once("close", () => clearTimeout(linger))
  socket.end(reply)
  socket.resume()
}

/**
 * Product-decisions §4 "Connections": a keep-alive socket with no request in flight for
 * `mcp.idleTimeoutSeconds` is closed (C8-d). The setting is read each time a socket turns idle.
 */
const makeIdleTracker = (idleMs: () => number) => {
  const states = new WeakMap<net.Socket, { active: number; timer: NodeJS.Timeout | undefined }>()
  const stateOf = (socket: net.Socket) => {
    let state = states.get(socket)
    if (state === undefined) {
      state = { active: 0, timer: undefined }
      states.set(socket, state)
    }
    return state
  }
  const stop = (socket: net.Socket) => clearTimeout(stateOf(socket).timer)
  const arm = (socket: net.Socket) => {
    const state = stateOf(socket)
    clearTimeout(state.timer)
    if (state.active === 0 && !socket.destroyed) state.timer = setTimeout(() => socket.destroy(), idleMs()).unref()
  }
  const busy = (socket: net.Socket, res: http.ServerResponse) => {
    const state = stateOf(socket)
    state.active += 1
    clearTimeout(state.timer)
    res.once("close", () => {
      state.active -= 1
      arm(socket)
    })
  }
  return { arm, busy, stop } as const
}

const listen = (server: net.Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening)
      reject(error)
    }
    const onListening = () => {
      server.off("error", onError)
      resolve((server.address() as net.AddressInfo).port)
    }
    server.once("error", onError)
    server.once("listening", onListening)
    server.listen(port, "127.0.0.1")
  })

/**
 * The only file that knows node:http for the MCP port: loopback bind (C1-a), transport checks
 * of wire contract §4.1, limits of §8, and the bridge from a socket to the Effect pipeline.
 * Sockets are accepted by a plain net.Server so the 65th connection is refused before the HTTP
 * parser ever sees it.
 */
export const NodeMcpServerLive = Layer.scoped(
  McpServerAddress,
  Effect.gen(function*() {
    const dispatcher = yield* McpDispatcher
    const settingsStore = yield* SettingsStore
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const settingsNow = settingsStore.now
    const sockets = new Set<net.Socket>()
    const closing = new Set<net.Socket>()
    const idle = makeIdleTracker(() => settingsNow().mcp.idleTimeoutSeconds * 1000)
    let boundPort = 0

    const onPost = (req: http.IncomingMessage, res: http.ServerResponse, cors: Record<string, string>) =>
      readBody(req, settingsNow().mcp.idleTimeoutSeconds * 1000).then((body) => {
        if (!body.ok) {
          if (body.reason === "aborted") return
          const error = ProtocolError.of(-33005, `The request body is larger than ${MAX_BODY_BYTES} bytes`, {
            limitBytes: MAX_BODY_BYTES
          })
          return writeJson(res, 413, errorBody(error, null), { ...cors, connection: "close" })
        }
        const fiber = runFork(
          dispatcher.handle({
            headers: req.headers as Record<string, string | undefined>,
            body: body.body,
            remoteAddress: req.socket.remoteAddress ?? "unknown"
          }).pipe(
            Effect.flatMap((response) =>
              writeResponse(res, { ...response, headers: { ...cors, ...response.headers } })
            ),
            Effect.catchAllDefect(() => Effect.sync(() => res.destroy()))
          )
        )
        // Wire contract §3.2: a client that drops its connection cancels its request.
        res.once("close", () => {
          if (!res.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
        })
      })

    // Node's own bare 400 for a request without Host is replaced by the contract's 403 forbidden_host (C4.1-e).
    const httpServer = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, (req, res) => {
      idle.busy(req.socket, res)
      const settings = settingsNow()
      httpServer.keepAliveTimeout = settings.mcp.idleTimeoutSeconds * 1000
      const decision = routeTransport({
        method: req.method,
        url: req.url,
        host: req.headers.host,
        origin: req.headers.origin,
        requestedHeaders: req.headers["access-control-request-headers"]
      }, { boundPort, allowedOrigins: settings.mcp.allowedOrigins, enabled: settings.mcp.enabled })
      switch (decision.kind) {
        case "reply":
          return writeJson(res, decision.status, decision.body, decision.headers)
        case "preflight":
          res.writeHead(204, decision.headers)
          return res.end()
        case "post":
          return void onPost(req, res, decision.headers).catch(() => res.destroy())
      }
    })
    httpServer.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
      if (!socket.writable || error.code === undefined || !error.code.startsWith("HPE_")) return socket.destroy()
      const reply = error.code === "HPE_HEADER_OVERFLOW" ? HEADERS_TOO_LARGE : BAD_REQUEST
      // The answer to HEAD carries no body (RFC 9110 §9.3.2): only its head is sent.
      const head = (error as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString("latin1") === "HEAD "
      closeWithReply(socket, head ? reply.slice(0, reply.indexOf("\r\n\r\n") + 4) : reply)
    })

    const listener = net.createServer((socket) => {
      // Small SSE frames must not wait on Nagle + delayed ACK (~40 ms each).
      socket.setNoDelay(true)
      // Product-decisions §4 "Connections": the 65th socket gets 503 -33000 with Retry-After: 1 and is closed.
      if (sockets.size >= MAX_CONNECTIONS) {
        closing.add(socket)
        socket.once("close", () => closing.delete(socket))
        return closeWithReply(socket, TOO_MANY_CONNECTIONS)
      }
      sockets.add(socket)
      socket.once("close", () => {
        sockets.delete(socket)
        idle.stop(socket)
      })
      idle.arm(socket)
      httpServer.emit("connection", socket)
    })

    const initial = settingsNow()
    boundPort = yield* Effect.tryPromise(() => listen(listener, initial.mcp.port)).pipe(
      Effect.catchAll(() => Effect.tryPromise(() => listen(listener, 0))),
      Effect.orDie
    )
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        listener.close(() => resume(Effect.void))
        for (const socket of [...sockets, ...closing]) socket.destroy()
      })
    )
    return { port: boundPort, url: `http://127.0.0.1:${boundPort}/mcp`, openConnections: () => sockets.size }
  })
)
