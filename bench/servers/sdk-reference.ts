/**
 * (b) The reference: a stateless server built with the official `@modelcontextprotocol/server` 2.4.0 exactly as
 * interop §12.1 shows (a manual `node:http` → `handler.fetch` adapter, a new `McpServer` per request), exposing
 * dbdesk's tool list (names, titles, descriptions, input schemas, annotations) with trivial handlers that return a
 * fixed result of the size dbdesk returns. No auth: the bearer header is sent but not checked.
 *
 * Usage: tsx bench/servers/sdk-reference.ts <fixture.json>; prints `READY <url>` on stdout.
 */
import {
  McpServer,
  createMcpHandler,
  fromJsonSchema,
  type CallToolResult,
  type JsonSchemaType,
  type StandardSchemaWithJSON
} from "@modelcontextprotocol/server"
import { readFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface ReferenceTool {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: Record<string, unknown>
  readonly annotations?: Record<string, unknown>
}

export interface ReferenceFixture {
  readonly tools: ReadonlyArray<ReferenceTool>
  /** The result each tool returns (dbdesk's own answer to the bench request, minus `resultType`/`_meta`). */
  readonly results: Readonly<Record<string, CallToolResult>>
  /** dbdesk's `tools/list` cache hint, so both answers carry the same fields. */
  readonly toolsListHint: { readonly ttlMs: number; readonly cacheScope: "public" | "private" }
  /** Progress notifications a call sends when the request carries a progressToken (dbdesk's messages). */
  readonly progress: ReadonlyArray<{ readonly progress: number; readonly total: number; readonly message: string }>
}

const fixturePath = process.argv[2]
if (fixturePath === undefined) throw new Error("usage: sdk-reference.ts <fixture.json>")
const fixture = JSON.parse(readFileSync(fixturePath, "utf8")) as ReferenceFixture

// Schemas are converted once: the per-request factory below only registers them (the per-request McpServer build
// itself is the SDK's own design for stateless serving and is part of what we measure).
const schemas = new Map<string, StandardSchemaWithJSON>(
  fixture.tools.map((tool) => [tool.name, fromJsonSchema(tool.inputSchema as JsonSchemaType)])
)
const fallback: CallToolResult = { content: [{ type: "text", text: "ok" }] }

const factory = () => {
  const server = new McpServer({ name: "sdk-bench-server", version: "0.0.1" }, {
    capabilities: { tools: { listChanged: true } },
    cacheHints: { "tools/list": fixture.toolsListHint }
  })
  for (const tool of fixture.tools) {
    const result = fixture.results[tool.name] ?? fallback
    server.registerTool(tool.name, {
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      inputSchema: schemas.get(tool.name)!
    }, async (_args: unknown, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken
      if (token !== undefined) {
        for (const step of fixture.progress) {
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, ...step } })
        }
      }
      return result
    })
  }
  return server
}

const handler = createMcpHandler(factory)

const server = http.createServer((req, res) =>
  void (async () => {
    try {
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const abort = new AbortController()
      res.on("close", () => {
        if (!res.writableFinished) abort.abort()
      })
      const headers = new Headers()
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
      const method = req.method ?? "GET"
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url ?? "/"}`, {
          method,
          headers,
          ...(method === "GET" || method === "HEAD" ? {} : { body: Buffer.concat(chunks) }),
          signal: abort.signal
        })
      )
      res.writeHead(response.status, Object.fromEntries(response.headers))
      if (response.body !== null) {
        const reader = response.body.getReader()
        for (let next = await reader.read(); !next.done; next = await reader.read()) res.write(next.value)
      }
      res.end()
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end(String(error))
    }
  })()
)
server.keepAliveTimeout = 30_000
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo
  process.stdout.write(`READY http://127.0.0.1:${port}/mcp\n`)
})
const stop = () => server.close(() => process.exit(0))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
process.on("disconnect", stop)
