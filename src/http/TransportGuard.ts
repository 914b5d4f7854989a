import { ProtocolError, TransportRejection } from "../domain/ProtocolErrors.ts"
import { errorBody } from "./ResponseEncoding.ts"

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

const splitHost = (value: string): { name: string; port: string | undefined } | undefined => {
  if (value === "::1") return { name: value, port: undefined }
  if (value.startsWith("[")) {
    const end = value.indexOf("]")
    if (end < 0) return undefined
    const rest = value.slice(end + 1)
    if (rest !== "" && !rest.startsWith(":")) return undefined
    return { name: value.slice(0, end + 1), port: rest === "" ? undefined : rest.slice(1) }
  }
  const colon = value.indexOf(":")
  return colon < 0 ? { name: value, port: undefined } : { name: value.slice(0, colon), port: value.slice(colon + 1) }
}

/**
 * Wire contract §4.1 "Host" and D-42: localhost, 127.0.0.1 or [::1] (the
 * contract's `::1`), with or without the bound port, case-insensitive; anything else (other
 * ports, trailing dots, other names) is `forbidden_host` (C4.1-e).
 */
export const checkHost = (host: string | undefined, boundPort: number): TransportRejection | undefined => {
  const parts = host === undefined ? undefined : splitHost(host.toLowerCase())
  const portOk = parts?.port === undefined || parts.port === String(boundPort)
  if (parts !== undefined && LOOPBACK_NAMES.has(parts.name) && portOk) return undefined
  return new TransportRejection({
    code: "forbidden_host",
    message: `Host ${JSON.stringify(host ?? "")} is not this loopback server`
  })
}

/** Wire contract §4.1 "Origin": optional; when present it must be one of the allowed origins (C4.1-f). */
export const checkOrigin = (
  origin: string | undefined,
  allowedOrigins: ReadonlyArray<string>
): TransportRejection | undefined => {
  if (origin === undefined || allowedOrigins.includes(origin)) return undefined
  return new TransportRejection({
    code: "forbidden_origin",
    message: `Origin ${JSON.stringify(origin)} is not allowed to call this server`
  })
}

export const transportRejectionBody = (rejection: TransportRejection) => ({
  error: { code: rejection.code, message: rejection.message }
})

const STANDARD_REQUEST_HEADERS =
  "content-type, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id"
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/

/** CORS headers, only ever built for an origin that passed `checkOrigin`. */
export const corsHeaders = (origin: string | undefined): Record<string, string> =>
  origin === undefined
    ? {}
    : {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": "www-authenticate, retry-after, mcp-session-id",
      vary: "Origin"
    }

const preflightHeaders = (origin: string | undefined, requestedHeaders: string | undefined): Record<string, string> => {
  const base = { allow: "POST, OPTIONS" }
  if (origin === undefined) return base
  // `Mcp-Param-<field>` names are open-ended (§4.2), so a well-formed requested list is echoed.
  const allowHeaders = requestedHeaders !== undefined && HEADER_LIST.test(requestedHeaders.trim())
    ? requestedHeaders.trim()
    : STANDARD_REQUEST_HEADERS
  return {
    ...base,
    ...corsHeaders(origin),
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": allowHeaders,
    "access-control-max-age": "600"
  }
}

export interface TransportRequest {
  readonly method: string | undefined
  readonly url: string | undefined
  readonly host: string | undefined
  readonly origin: string | undefined
  readonly requestedHeaders: string | undefined
}

export interface TransportState {
  readonly boundPort: number
  readonly allowedOrigins: ReadonlyArray<string>
  readonly enabled: boolean
}

export type TransportDecision =
  | {
    readonly kind: "reply"
    readonly status: number
    readonly body: unknown
    readonly headers: Record<string, string>
  }
  | { readonly kind: "preflight"; readonly headers: Record<string, string> }
  | { readonly kind: "post"; readonly headers: Record<string, string> }

const reply = (status: number, body: unknown, headers: Record<string, string> = {}): TransportDecision => ({
  kind: "reply",
  status,
  body,
  headers
})

/**
 * Wire contract §4.1, row by row, before any body is read: Host, then Origin (403), then
 * `mcp.enabled` (D-46: 503 -33006 for every request), then the path
 * (404) and the HTTP method (OPTIONS 204, anything but POST 405 with `Allow: POST, OPTIONS`).
 */
export const routeTransport = (request: TransportRequest, state: TransportState): TransportDecision => {
  const rejection = checkHost(request.host, state.boundPort) ?? checkOrigin(request.origin, state.allowedOrigins)
  if (rejection !== undefined) return reply(rejection.status, transportRejectionBody(rejection))
  const cors = corsHeaders(request.origin)
  if (!state.enabled) return reply(503, errorBody(ProtocolError.of(-33006), null), cors)
  const path = (request.url ?? "/").split("?")[0]
  if (path !== "/mcp") {
    return reply(404, { error: { code: "not_found", message: "Only /mcp exists on this port" } }, cors)
  }
  if (request.method === "OPTIONS") {
    return { kind: "preflight", headers: preflightHeaders(request.origin, request.requestedHeaders) }
  }
  if (request.method !== "POST") {
    const error = ProtocolError.invalidRequest(
      `${request.method ?? "?"} is not allowed on /mcp: send each JSON-RPC message as a POST`
    )
    return reply(405, errorBody(error, null), { ...cors, allow: "POST, OPTIONS" })
  }
  return { kind: "post", headers: cors }
}
