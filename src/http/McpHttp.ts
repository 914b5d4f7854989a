import type { Effect, Stream } from "effect"

/** One POST to /mcp as the pipeline sees it: header names lower-case, body as text. */
export interface McpHttpRequest {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly remoteAddress: string
}

export type McpHttpResponse =
  | { readonly kind: "json"; readonly status: number; readonly headers: Record<string, string>; readonly body: unknown }
  /** A JSON body serialized already (a cacheable answer encoded once, D-84). */
  | {
    readonly kind: "encoded"
    readonly status: number
    readonly headers: Record<string, string>
    readonly text: string
  }
  | { readonly kind: "empty"; readonly status: number; readonly headers: Record<string, string> }
  | { readonly kind: "sse"; readonly headers: Record<string, string>; readonly frames: Stream.Stream<string> }
  /**
   * An SSE answer whose messages the request writes itself while it runs (progress, then the response): `run` gets the
   * writer once the headers are sent, and ends when the last message is written. `send` takes a message's JSON; the
   * transport frames it (an SSE `data:` frame over HTTP, a line on the bridge's channel). No stream or queue in between.
   */
  | {
    readonly kind: "events"
    readonly headers: Record<string, string>
    readonly run: (send: (json: string) => Effect.Effect<void>) => Effect.Effect<void>
  }

export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}): McpHttpResponse => ({
  kind: "json",
  status,
  headers,
  body
})

export const emptyResponse = (status: number, headers: Record<string, string> = {}): McpHttpResponse => ({
  kind: "empty",
  status,
  headers
})

export const encodedResponse = (
  status: number,
  text: string,
  headers: Record<string, string> = {}
): McpHttpResponse => ({
  kind: "encoded",
  status,
  headers,
  text
})
