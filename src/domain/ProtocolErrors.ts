import { Schema } from "effect"
import { JsonObject } from "./Json.ts"

/**
 * Wire contract §7.1, defined once: every protocol error code with its HTTP status and
 * a default message. Nothing else in the code base may pair a code with a status.
 */
export const protocolErrorTable = {
  [-32700]: { status: 400, message: "Parse error: the request body is not valid JSON" },
  [-32600]: { status: 400, message: "Invalid request" },
  [-32601]: { status: 404, message: "Method not found" },
  [-32602]: { status: 400, message: "Invalid params" },
  [-32603]: { status: 500, message: "Internal error" },
  [-32020]: { status: 400, message: "Header mismatch" },
  [-32021]: { status: 400, message: "Missing required client capability" },
  [-32022]: { status: 400, message: "Unsupported protocol version" },
  [-33000]: { status: 503, message: "Server unavailable" },
  [-33001]: { status: 404, message: "Session not found" },
  [-33002]: { status: 200, message: "Request cancelled" },
  [-33003]: { status: 200, message: "Request timed out" },
  [-33005]: { status: 413, message: "Payload too large" },
  [-33006]: { status: 503, message: "The MCP server is disabled in dbdesk's settings" },
  [-33007]: { status: 403, message: "Forbidden" },
  [-33008]: { status: 401, message: "Token expired" },
  [-33009]: { status: 401, message: "Unauthenticated" },
  [-33010]: { status: 429, message: "Rate limited" }
} as const

export type ProtocolErrorCode = keyof typeof protocolErrorTable
export const protocolErrorCodes = Object.keys(protocolErrorTable).map(Number) as ReadonlyArray<ProtocolErrorCode>

export const ProtocolErrorCode = Schema.Literal(
  ...(protocolErrorCodes as [ProtocolErrorCode, ...Array<ProtocolErrorCode>])
)

export const httpStatusOf = (code: ProtocolErrorCode): number => protocolErrorTable[code].status

/**
 * A JSON-RPC protocol error (wire contract §7.1). `headers` carries response headers the
 * contract ties to the error (`WWW-Authenticate`, `Retry-After`, `Connection: close`).
 */
export class ProtocolError extends Schema.TaggedError<ProtocolError>()("ProtocolError", {
  code: ProtocolErrorCode,
  message: Schema.String,
  data: Schema.optionalWith(JsonObject, { exact: true }),
  headers: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { exact: true })
}) {
  get status(): number {
    return httpStatusOf(this.code)
  }

  static of(code: ProtocolErrorCode, message?: string, data?: JsonObject): ProtocolError {
    return new ProtocolError({
      code,
      message: message ?? protocolErrorTable[code].message,
      ...(data === undefined ? {} : { data })
    })
  }

  static invalidRequest = (message: string, data?: JsonObject) => ProtocolError.of(-32600, message, data)
  static invalidParams = (message: string, data?: JsonObject) => ProtocolError.of(-32602, message, data)
  static headerMismatch = (message: string, data?: JsonObject) => ProtocolError.of(-32020, message, data)
  static methodNotFound = (method: string) => ProtocolError.of(-32601, `Method not found: ${method}`, { method })
}

/** Wire contract §4.1 / §7.1: forbidden hosts and origins answer 403 with a text code. */
export class TransportRejection extends Schema.TaggedError<TransportRejection>()("TransportRejection", {
  code: Schema.Literal("forbidden_host", "forbidden_origin"),
  message: Schema.String
}) {
  get status(): number {
    return 403
  }
}
