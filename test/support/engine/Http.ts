import { dump } from "./Json.ts"

export interface EngineResponse {
  readonly status: number
  readonly body: string
  readonly contentType: string
}

const JSON_TYPE = "application/json; charset=utf-8"
const TEXT_TYPE = "text/plain; charset=utf-8"

/** Reason phrases of reference §0.1. */
export const reasonPhrase = (status: number): string =>
  ({
    200: "OK",
    201: "Created",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable"
  })[status] ?? "Unknown"

export const json = (status: number, value: unknown): EngineResponse => ({
  status,
  body: dump(value),
  contentType: JSON_TYPE
})

export const raw = (status: number, body: string): EngineResponse => ({ status, body, contentType: JSON_TYPE })

export const text = (status: number, body: string): EngineResponse => ({ status, body, contentType: TEXT_TYPE })

/** Error shape 1 (reference §0.1): a space after the colon and the message concatenated without escaping. */
export const handlerError = (status: number, message: string): EngineResponse =>
  raw(status, `{"message": "${message}"}`)

/** Error shapes 2 and 3 (reference §0.1): nlohmann, escaped, compact. */
export const escapedError = (status: number, message: string): EngineResponse => json(status, { message })

export const FORBIDDEN_MESSAGE = "Forbidden - a valid `x-typesense-api-key` header must be sent."

/** Transport-level bodies of reference §0.1, shape 4. */
export const forbidden = (): EngineResponse => raw(401, `{"message": "${FORBIDDEN_MESSAGE}"}`)
export const routeNotFound = (): EngineResponse => raw(404, `{ "message": "Not Found"}`)

/** A failure carried out of a handler: code plus message; the caller picks the byte shape. */
export class EngineFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

export const failure = (code: number, message: string): never => {
  throw new EngineFailure(code, message)
}
