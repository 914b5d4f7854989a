import type { RequestId } from "../domain/JsonRpc.ts"
import type { ProtocolError } from "../domain/ProtocolErrors.ts"
import { jsonResponse, type McpHttpResponse } from "./McpHttp.ts"

/** The one place a ProtocolError becomes a JSON-RPC error object (wire contract §7.1). */
export const errorBody = (error: ProtocolError, id: RequestId | null) => ({
  jsonrpc: "2.0" as const,
  id,
  error: {
    code: error.code,
    message: error.message,
    ...(error.data === undefined ? {} : { data: error.data })
  }
})

export const errorResponse = (error: ProtocolError, id: RequestId | null): McpHttpResponse =>
  jsonResponse(error.status, errorBody(error, id), { ...error.headers })

/** Wire contract §4.1: each message is one `data:` frame without an event name (C4.1-j). */
export const sseFrame = (message: unknown): string => sseFrameOfJson(JSON.stringify(message))

/** The same frame for a message already encoded. */
export const sseFrameOfJson = (json: string): string => `data: ${json}\n\n`

export const sseHeaders: Record<string, string> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no"
}
