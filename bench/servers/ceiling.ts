/**
 * (c) The ceiling: a bare `node:http` server that reads and parses the same JSON body and answers with a fixed
 * result of the same size as dbdesk's answer (dbdesk's own result, captured once), as JSON or, for a request with a
 * progressToken, as the same SSE frames. Nothing else: no auth, no header checks, no handler work.
 *
 * Usage: tsx bench/servers/ceiling.ts <fixture.json>; prints `READY <url>` on stdout.
 */
import { readFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface CeilingAnswer {
  /** `method|tool|query|p` (see `ceilingKey`). */
  readonly key: string
  readonly sse: boolean
  /** SSE only: the frames sent before the response frame (dbdesk's progress notifications). */
  readonly preamble: string
  /** The `result` member, already serialized. */
  readonly resultText: string
}

type Json = Record<string, unknown>
const objectOr = (value: unknown): Json => (typeof value === "object" && value !== null ? value as Json : {})

/** Which fixed answer a request gets: by method, tool name, SQL text and whether it asked for progress. */
export const ceilingKey = (message: unknown): string => {
  const body = objectOr(message)
  const params = objectOr(body["params"])
  const args = objectOr(params["arguments"])
  const meta = objectOr(params["_meta"])
  return [
    String(body["method"] ?? ""),
    String(params["name"] ?? ""),
    String(args["query"] ?? ""),
    meta["progressToken"] === undefined ? "" : "p"
  ].join("|")
}

const main = () => {
  const fixturePath = process.argv[2]
  if (fixturePath === undefined) throw new Error("usage: ceiling.ts <fixture.json>")
  const answers = new Map(
    (JSON.parse(readFileSync(fixturePath, "utf8")) as ReadonlyArray<CeilingAnswer>).map((a) => [a.key, a])
  )

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      let message: unknown
      try {
        message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        res.writeHead(400, { "content-type": "application/json" })
        res.end(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
        return
      }
      const answer = answers.get(ceilingKey(message))
      const id = JSON.stringify(objectOr(message)["id"] ?? null)
      if (answer === undefined) {
        const text = `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`
        res.writeHead(404, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
        res.end(text)
        return
      }
      const response = `{"jsonrpc":"2.0","id":${id},"result":${answer.resultText}}`
      if (answer.sse) {
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache, no-transform",
          "x-accel-buffering": "no"
        })
        res.write(answer.preamble)
        res.end(`data: ${response}\n\n`)
      } else {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(response) })
        res.end(response)
      }
    })
  })
  server.keepAliveTimeout = 30_000
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    process.stdout.write(`READY http://127.0.0.1:${port}/mcp\n`)
  })
  const stop = () => server.close(() => process.exit(0))
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  process.on("disconnect", stop)
}

if (process.argv[1]?.endsWith("ceiling.ts") === true) main()
