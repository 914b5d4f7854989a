import { Context, Effect, FiberId, Layer, Runtime, Stream } from "effect"
import * as http from "node:http"
import type { Socket } from "node:net"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { SettingsStore } from "../services/Settings.ts"
import { readBody } from "./BodyReader.ts"
import type { McpHttpResponse } from "./McpHttp.ts"
import { McpDispatcher } from "./McpDispatcher.ts"
import { errorBody } from "./ResponseEncoding.ts"
import { checkHost, checkOrigin, transportRejectionBody } from "./TransportGuard.ts"

/** Wire contract §8 / product-decisions §4 "Headers" and "Connections". */
export const MAX_HEADER_BYTES = 16_384
export const MAX_CONNECTIONS = 64

export class McpServerAddress extends Context.Tag("dbdesk/http/McpServerAddress")<McpServerAddress, {
  readonly port: number
  readonly url: string
  /** Number of open sockets, for tests of the connection limit. */
  readonly openConnections: () => number
}>() {}

const writeJson = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const writeChunk = (res: http.ServerResponse, chunk: string) =>
  Effect.async<void>((resume) => {
    if (res.write(chunk)) resume(Effect.void)
    else res.once("drain", () => resume(Effect.void))
  })

const writeResponse = (res: http.ServerResponse, response: McpHttpResponse) => {
  switch (response.kind) {
    case "json":
      return Effect.sync(() => writeJson(res, response.status, response.body, response.headers))
    case "empty":
      return Effect.sync(() => {
        res.writeHead(response.status, response.headers)
        res.end()
      })
    case "sse":
      return Effect.gen(function*() {
        res.writeHead(200, response.headers)
        res.flushHeaders()
        yield* Stream.runForEach(response.frames, (frame) => writeChunk(res, frame))
        res.end()
      })
  }
}

const listen = (server: http.Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening)
      reject(error)
    }
    const onListening = () => {
      server.off("error", onError)
      resolve((server.address() as { port: number }).port)
    }
    server.once("error", onError)
    server.once("listening", onListening)
    server.listen(port, "127.0.0.1")
  })

/**
 * The only file that knows node:http for the MCP port: loopback bind (C1-a), transport checks
 * of wire contract §4.1, limits of §8, and the bridge from a socket to the Effect pipeline.
 */
export const NodeMcpServerLive = Layer.scoped(
  McpServerAddress,
  Effect.gen(function*() {
    const dispatcher = yield* McpDispatcher
    const settingsStore = yield* SettingsStore
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const initial = yield* settingsStore.current
    const sockets = new Set<Socket>()
    let boundPort = 0

    const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      void Effect.runPromise(settingsStore.current).then((settings) => {
        const origin = req.headers.origin
        const rejection = checkHost(req.headers.host, boundPort) ?? checkOrigin(origin, settings.mcp.allowedOrigins)
        if (rejection !== undefined) return writeJson(res, 403, transportRejectionBody(rejection))
        const path = (req.url ?? "/").split("?")[0]
        if (path !== "/mcp") return writeJson(res, 404, { error: { code: "not_found", message: "Only /mcp exists on this port" } })
        const cors: Record<string, string> = origin === undefined ? {} : { "access-control-allow-origin": origin, vary: "Origin" }
        if (req.method === "OPTIONS") {
          res.writeHead(204, {
            ...cors,
            "access-control-allow-methods": "POST, OPTIONS",
            "access-control-allow-headers": "content-type, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, mcp-param-*, last-event-id",
            "access-control-expose-headers": "mcp-session-id, www-authenticate, retry-after",
            "access-control-max-age": "600"
          })
          return res.end()
        }
        if (req.method !== "POST") {
          return writeJson(res, 405, errorBody(ProtocolError.invalidRequest(`${req.method ?? "?"} is not allowed on /mcp: use POST`), null), { allow: "POST, OPTIONS" })
        }
        void readBody(req).then((body) => {
          if (!body.ok) {
            if (body.reason === "aborted") return
            return writeJson(res, 413, errorBody(ProtocolError.of(-33005, "The request body is larger than 10,485,760 bytes", { limitBytes: 10_485_760 }), null), { ...cors, connection: "close" })
          }
          if (!settings.mcp.enabled) return writeJson(res, 503, errorBody(ProtocolError.of(-33006), null), cors)
          const fiber = runFork(dispatcher.handle({
            headers: req.headers as Record<string, string | undefined>,
            body: body.body,
            remoteAddress: req.socket.remoteAddress ?? "unknown"
          }).pipe(Effect.flatMap((response) => writeResponse(res, { ...response, headers: { ...cors, ...response.headers } }))))
          // Wire contract §3.2: a client that drops its connection cancels its request.
          res.once("close", () => {
            if (!res.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
          })
        })
      })
    })
    server.keepAliveTimeout = initial.mcp.idleTimeoutSeconds * 1000
    server.headersTimeout = Math.max(server.keepAliveTimeout + 1000, 10_000)
    server.requestTimeout = 0
    server.on("connection", (socket: Socket) => {
      if (sockets.size >= MAX_CONNECTIONS) {
        const body = JSON.stringify(errorBody(ProtocolError.of(-33000, "Too many open connections (64): retry shortly"), null))
        socket.end(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
        return
      }
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
    })

    boundPort = yield* Effect.tryPromise(() => listen(server, initial.mcp.port)).pipe(
      Effect.catchAll(() => Effect.tryPromise(() => listen(server, 0))),
      Effect.orDie
    )
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        for (const socket of sockets) socket.destroy()
      })
    )
    return { port: boundPort, url: `http://127.0.0.1:${boundPort}/mcp`, openConnections: () => sockets.size }
  })
)
