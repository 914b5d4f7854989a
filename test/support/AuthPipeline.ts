import { Effect, Layer } from "effect"
import type { ApprovalDecision } from "../../src/domain/Approval.ts"
import type { SettingsPatch } from "../../src/domain/Settings.ts"
import type { McpHttpRequest, McpHttpResponse } from "../../src/http/McpHttp.ts"
import { makeServerLayer } from "../../src/http/Server.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { MODERN_META } from "./TestServer.ts"

/**
 * The whole server as wired by Server.ts, driven through `McpDispatcher.handle` so rate windows
 * and lockouts run on TestClock. The app's approval dialog answers `decision` once `latch` opens,
 * which lets a test hold write calls open.
 */
export const authPipeline = (
  home: string,
  options: { readonly settings?: SettingsPatch; readonly latch?: Effect.Latch; readonly decision?: ApprovalDecision } =
    {}
) =>
  makeServerLayer({
    home,
    settings: { ...options.settings, mcp: { port: 0, ...options.settings?.mcp } },
    approvalPrompt: Layer.succeed(ApprovalPrompt, {
      ask: () =>
        Effect.as(options.latch === undefined ? Effect.void : options.latch.await, options.decision ?? "denied")
    })
  })

export const pipelineRequest = (
  method: string,
  options: {
    readonly token?: string
    readonly id?: string | number
    readonly address?: string
    readonly params?: Record<string, unknown>
  } = {}
): McpHttpRequest => ({
  headers: {
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(typeof options.params?.["name"] === "string" ? { "mcp-name": options.params["name"] } : {}),
    ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
  },
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: options.id ?? 1,
    method,
    params: { ...options.params, _meta: MODERN_META }
  }),
  remoteAddress: options.address ?? "127.0.0.1"
})

export const cancelNotification = (
  requestId: string | number,
  options: { readonly token?: string; readonly address?: string } = {}
): McpHttpRequest => ({
  headers: {
    "content-type": "application/json",
    ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
  },
  body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "test" } }),
  remoteAddress: options.address ?? "127.0.0.1"
})

/** Status, headers and JSON-RPC error code of a non-streamed answer. */
export const outcome = (response: McpHttpResponse) => {
  if (response.kind === "sse" || response.kind === "events") throw new Error("unexpected SSE response")
  const body = response.kind === "json"
    ? (response.body as { error?: { code: number; data?: Record<string, unknown> } })
    : undefined
  return { status: response.status, headers: response.headers, code: body?.error?.code, data: body?.error?.data }
}
