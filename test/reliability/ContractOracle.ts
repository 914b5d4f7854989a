// The fuzzer's oracle (D-89): is an answer one the contract allows? Written from wire contract §4.1, §7.1,
// §7.2 and D-31, never from the source under test.

/** Wire contract §7.1: every protocol error code and its HTTP status. */
const STATUS_OF_CODE: Readonly<Record<number, number>> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 404,
  [-32602]: 400,
  [-32603]: 500,
  [-32020]: 400,
  [-32021]: 400,
  [-32022]: 400,
  [-33000]: 503,
  [-33001]: 404,
  [-33002]: 200,
  [-33003]: 200,
  [-33005]: 413,
  [-33006]: 503,
  [-33007]: 403,
  [-33008]: 401,
  [-33009]: 401,
  [-33010]: 429
}

/** Wire contract §7.2: the codes a tool error's text starts with. */
const TOOL_ERROR_CODES = [
  "invalid_argument",
  "not_connected",
  "not_found",
  "denied",
  "timeout",
  "unsupported",
  "query_failed",
  "user_cancelled",
  "internal_failure"
]

/** Wire contract §4.1 / §7.1 text codes, and D-44 (431 for headers, 400 for a malformed request). */
const TRANSPORT_CODES: Readonly<Record<string, number>> = {
  forbidden_host: 403,
  forbidden_origin: 403,
  not_found: 404,
  headers_too_large: 431,
  bad_request: 400
}

export interface Answer {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
}

export interface Asked {
  readonly httpMethod: string
  /** Whether the request was a JSON-RPC notification the server should answer 202. */
  readonly notification?: boolean
  /** The caller closes an SSE stream itself once it saw its first frame (subscriptions/listen). */
  readonly streamCut?: boolean
}

const header = (answer: Answer, name: string): string | undefined => {
  const value = answer.headers[name]
  return Array.isArray(value) ? value.join(", ") : (value as string | undefined)
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A JSON-RPC response object of the contract (§2.1, §7): `jsonrpc` 2.0, an id, exactly one of result and error. */
const rpcViolation = (message: unknown, status: number | undefined): string | undefined => {
  if (!isObject(message) || message["jsonrpc"] !== "2.0") return "not a JSON-RPC 2.0 message"
  const id = message["id"]
  if (!(id === null || typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) {
    return `id ${JSON.stringify(id)} is neither null, a string nor an integer`
  }
  const hasResult = "result" in message
  const hasError = "error" in message
  if (hasResult === hasError) return "needs exactly one of result and error"
  if (hasError) {
    const error = message["error"]
    if (!isObject(error) || typeof error["code"] !== "number" || typeof error["message"] !== "string") {
      return "error without a numeric code and a message"
    }
    const expected = STATUS_OF_CODE[error["code"]]
    if (expected === undefined) return `error code ${error["code"]} is not in the §7.1 table`
    if (error["code"] === -32603) return "-32603 internal error"
    if (status !== undefined && status !== expected && !(status === 405 && error["code"] === -32600)) {
      return `error ${error["code"]} answered with HTTP ${status}, the table says ${expected}`
    }
    return undefined
  }
  if (status !== undefined && status !== 200) return `a result with HTTP ${status}`
  const result = message["result"]
  if (!isObject(result)) return "result is not an object"
  if (result["isError"] === true) {
    const content = result["content"]
    const text = Array.isArray(content) && isObject(content[0]) ? content[0]["text"] : undefined
    if (typeof text !== "string" || !TOOL_ERROR_CODES.some((code) => text.startsWith(`${code}: `))) {
      return `a tool error whose text starts with no §7.2 code: ${String(text).slice(0, 80)}`
    }
  }
  return undefined
}

/** Why an answer is not one the contract allows, or undefined when it is. */
export const contractViolation = (asked: Asked, answer: Answer): string | undefined => {
  const { status } = answer
  if (status >= 500) {
    const code = (parse(answer.body) as any)?.error?.code
    if (status === 503 && (code === -33000 || code === -33006)) return undefined
    return `HTTP ${status} (code ${String(code)})`
  }
  if (status === 204) return asked.httpMethod === "OPTIONS" ? undefined : "204 to something other than OPTIONS"
  if (status === 202) {
    return asked.notification === true && answer.body === ""
      ? undefined
      : `202 ${asked.notification === true ? "with a body" : "to a request that is not a notification"}`
  }
  if (status === 405 && header(answer, "allow") !== "POST, OPTIONS") return "405 without Allow: POST, OPTIONS"
  // A HEAD answer has no body to judge (RFC 9110 §9.3.2); its status was checked above. The header limit (431) is
  // checked before the method, so a HEAD whose headers pass 16 KB gets it too.
  if (asked.httpMethod === "HEAD") {
    return [403, 404, 405, 431, 503].includes(status)
      ? undefined
      : `HEAD answered ${status}`
  }
  const type = header(answer, "content-type") ?? ""
  if (type.startsWith("text/event-stream")) {
    if (status !== 200) return `an event stream with HTTP ${status}`
    const frames = answer.body.split("\n\n").map((frame) =>
      frame.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n")
    ).filter((data) => data !== "")
    if (frames.length === 0) return asked.streamCut === true ? undefined : "an event stream without a frame"
    for (const frame of frames) {
      const message = parse(frame)
      if (isObject(message) && message["method"] === "notifications/progress") continue
      const problem = isObject(message) && "method" in message ? undefined : rpcViolation(message, undefined)
      if (problem !== undefined) return `SSE frame: ${problem}`
    }
    const last = parse(frames[frames.length - 1]!)
    if (asked.streamCut !== true && !(isObject(last) && ("result" in last || "error" in last))) {
      return "the event stream does not end with the JSON-RPC response"
    }
    return undefined
  }
  if (!type.startsWith("application/json")) return `content type ${JSON.stringify(type)} for HTTP ${status}`
  const body = parse(answer.body)
  if (isObject(body) && !("jsonrpc" in body) && isObject(body["error"]) && typeof body["error"]["code"] === "string") {
    const expected = TRANSPORT_CODES[body["error"]["code"]]
    return expected === status ? undefined : `transport error ${body["error"]["code"]} with HTTP ${status}`
  }
  return rpcViolation(body, status)
}

/** The configured secrets found in an answer (its body and every header). */
export const secretsIn = (answer: Answer, secrets: ReadonlyArray<string>): ReadonlyArray<string> => {
  const text = `${answer.body}\n${Object.values(answer.headers).flat().join("\n")}`
  return secrets.filter((secret) => text.includes(secret))
}
