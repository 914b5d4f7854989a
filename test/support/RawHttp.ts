import * as http from "node:http"
import * as net from "node:net"

/** One HTTP/1.1 response read off a raw socket. */
export interface RawHttpResponse {
  readonly status: number
  /** Header names lower-case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly json: any
}

/** A raw loopback socket that collects every byte the server sends and remembers how it ended. */
export interface RawSocket {
  readonly socket: net.Socket
  /** Everything received so far. */
  readonly received: () => Buffer
  /** Resolves when the server has closed the socket (or it errored); the error code if any. */
  readonly closed: Promise<string | undefined>
  readonly isClosed: () => boolean
  readonly write: (data: string | Buffer) => Promise<void>
  /** Waits for one complete response (Content-Length framed, or ended by close) after `from` bytes. */
  readonly nextResponse: (from?: number) => Promise<RawHttpResponse & { readonly end: number }>
}

export const connectRaw = (port: number): Promise<RawSocket> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1")
    let buffer = Buffer.alloc(0)
    let closed = false
    const waiters = new Set<() => void>()
    const notify = () => {
      for (const waiter of [...waiters]) waiter()
    }
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      notify()
    })
    const closedPromise = new Promise<string | undefined>((done) => {
      let code: string | undefined
      socket.on("error", (error: NodeJS.ErrnoException) => {
        code = error.code ?? "error"
      })
      socket.on("close", () => {
        closed = true
        done(code)
        notify()
      })
    })
    const write = (data: string | Buffer) =>
      new Promise<void>((done, fail) => socket.write(data, (error) => (error ? fail(error) : done())))
    const nextResponse = (from = 0) =>
      new Promise<RawHttpResponse & { readonly end: number }>((done, fail) => {
        const attempt = () => {
          const parsed = parseResponse(buffer.subarray(from), closed)
          if (parsed !== undefined) {
            waiters.delete(attempt)
            done({ ...parsed, end: from + parsed.length })
          } else if (closed) {
            waiters.delete(attempt)
            fail(
              new Error(
                `socket closed before a full response; got ${
                  JSON.stringify(buffer.subarray(from).toString("latin1").slice(0, 200))
                }`
              )
            )
          }
        }
        waiters.add(attempt)
        attempt()
      })
    socket.once("connect", () =>
      resolve({
        socket,
        received: () => buffer,
        closed: closedPromise,
        isClosed: () => closed,
        write,
        nextResponse
      }))
    socket.once("error", reject)
  })

const parseResponse = (data: Buffer, closed: boolean): (RawHttpResponse & { readonly length: number }) | undefined => {
  const headerEnd = data.indexOf("\r\n\r\n")
  if (headerEnd < 0) return undefined
  const [statusLine = "", ...lines] = data.subarray(0, headerEnd).toString("latin1").split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const declared = headers["content-length"]
  const bodyStart = headerEnd + 4
  let bodyEnd: number
  if (declared !== undefined) bodyEnd = bodyStart + Number(declared)
  else if (/^HTTP\/1\.1 (204|304|1\d\d)/.test(statusLine)) bodyEnd = bodyStart
  else if (closed) bodyEnd = data.length
  else return undefined
  if (data.length < bodyEnd) return undefined
  const body = data.subarray(bodyStart, bodyEnd).toString("utf8")
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    json = undefined
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body, json, length: bodyEnd }
}

/** A request head for a raw socket: request line, then the headers given, CRLF-terminated. */
export const requestHead = (method: string, path: string, headers: Record<string, string | number>): string =>
  `${method} ${path} HTTP/1.1\r\n${
    Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")
  }\r\n`

/** Polls `condition` every few milliseconds until it holds, failing after `capMs` (a cap, not a timing assertion). */
export const eventually = async (condition: () => boolean, capMs = 10_000, what = "condition"): Promise<void> => {
  const deadline = Date.now() + capMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${capMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** One request through node:http with no agent: any method, any Host, any header (fetch forbids some). */
export const httpRequest = (
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string | number>; body?: string }
): Promise<RawHttpResponse> =>
  new Promise((resolve, reject) => {
    const request = http.request({
      host: "127.0.0.1",
      port,
      agent: false,
      method: options.method ?? "POST",
      path: options.path ?? "/mcp",
      headers: { host: `127.0.0.1:${port}`, ...options.headers }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        let json: unknown
        try {
          json = JSON.parse(body)
        } catch {
          json = undefined
        }
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers[name] = String(value)
        }
        resolve({ status: response.statusCode ?? 0, headers, body, json })
      })
    })
    request.on("error", reject)
    request.end(options.body)
  })
