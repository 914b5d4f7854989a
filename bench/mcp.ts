/**
 * The requests every server receives, byte for byte: one JSON-RPC body and one header set per scenario, built
 * the way the 2.4.0 client shapes a modern request (interop §11).
 */
import * as http from "node:http"

export const PROTOCOL_VERSION = "2026-07-28"

export type ServerName = "dbdesk" | "sdk" | "ceiling"
export const SERVER_NAMES: ReadonlyArray<ServerName> = ["dbdesk", "sdk", "ceiling"]

export interface Scenario {
  readonly name: string
  /** Servers that run this scenario (the SDK reference has no SQL behind it, so it skips the row scenarios). */
  readonly servers: ReadonlyArray<ServerName>
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

const envelope = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "dbdesk-bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {}
}

export interface RequestSpec {
  readonly method: string
  readonly name?: string
  readonly arguments?: Record<string, unknown>
  readonly progressToken?: string
  readonly id: number
}

export const requestBody = (spec: RequestSpec): string => {
  const meta = spec.progressToken === undefined ? envelope : { ...envelope, progressToken: spec.progressToken }
  const params = spec.name === undefined
    ? { _meta: meta }
    : { name: spec.name, arguments: spec.arguments ?? {}, _meta: meta }
  return JSON.stringify({ jsonrpc: "2.0", id: spec.id, method: spec.method, params })
}

export const requestHeaders = (spec: RequestSpec, token: string, body: string): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": PROTOCOL_VERSION,
  "mcp-method": spec.method,
  ...(spec.name === undefined ? {} : { "mcp-name": spec.name }),
  authorization: `Bearer ${token}`,
  "content-length": String(Buffer.byteLength(body))
})

export interface ScenarioQueries {
  readonly connectionId: string
  readonly token: string
}

/** The scenarios of D-63. */
export const scenarios = ({ connectionId, token }: ScenarioQueries): ReadonlyArray<Scenario> => {
  const make = (name: string, servers: ReadonlyArray<ServerName>, spec: RequestSpec): Scenario => {
    const body = requestBody(spec)
    return { name, servers, body, headers: requestHeaders(spec, token, body) }
  }
  const query = (sql: string) => ({ connection_id: connectionId, query: sql })
  return [
    make("tools/list", SERVER_NAMES, { method: "tools/list", id: 1 }),
    make("list_connections", SERVER_NAMES, { method: "tools/call", name: "list_connections", id: 2 }),
    make("execute_query 1 row", ["dbdesk", "ceiling"], {
      method: "tools/call",
      name: "execute_query",
      arguments: query("SELECT * FROM orders LIMIT 1"),
      id: 3
    }),
    make("execute_query 1000 rows", ["dbdesk", "ceiling"], {
      method: "tools/call",
      name: "execute_query",
      arguments: query("SELECT * FROM orders LIMIT 1000"),
      id: 4
    }),
    make("progress (SSE)", SERVER_NAMES, {
      method: "tools/call",
      name: "execute_query",
      arguments: query("SELECT * FROM orders LIMIT 1"),
      progressToken: "bench-progress",
      id: 5
    })
  ]
}

export interface Reply {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/** One request on a fresh connection, reading the whole answer (used for probing, never for load). */
export const send = (url: string, body: string, headers: Readonly<Record<string, string>>): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks).toString("utf8")
        }))
      response.on("error", reject)
    })
    request.setTimeout(30_000, () => request.destroy(new Error(`no answer from ${url} within 30 s`)))
    request.on("error", reject)
    request.end(body)
  })

/** The JSON-RPC response of a reply: the JSON body, or the `data:` line of the SSE frame carrying the response. */
export const responseOf = (reply: Reply): Record<string, unknown> => {
  if (reply.contentType.startsWith("text/event-stream")) {
    const frames = reply.body.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
      JSON.parse(line.slice(6)) as Record<string, unknown>
    )
    const response = frames.find((frame) => "result" in frame || "error" in frame)
    if (response === undefined) throw new Error(`SSE stream without a response: ${reply.body.slice(0, 300)}`)
    return response
  }
  return JSON.parse(reply.body) as Record<string, unknown>
}

/** Fails loudly when a probe did not get a successful result (a bench of error answers would be meaningless). */
export const expectResult = (what: string, reply: Reply): Record<string, unknown> => {
  if (reply.status !== 200) throw new Error(`${what}: HTTP ${reply.status} ${reply.body.slice(0, 400)}`)
  const response = responseOf(reply)
  const result = response["result"]
  if (typeof result !== "object" || result === null) throw new Error(`${what}: no result: ${reply.body.slice(0, 400)}`)
  if ((result as Record<string, unknown>)["isError"] === true) {
    throw new Error(`${what}: tool error: ${reply.body.slice(0, 400)}`)
  }
  return result as Record<string, unknown>
}
