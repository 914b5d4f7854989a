// The fuzzer's cases (D-89): a well-formed request of FuzzRequests, then none to a few mutations of its
// JSON-RPC envelope, its headers (case, duplicates, base64 wrappers, 16 KB edges, control characters), its body
// (truncated, deeply nested, huge, wrong content types, chunked, broken UTF-8) and its HTTP method and path; a few
// percent go out on a raw socket, for what node:http refuses to send.
import { type FuzzTarget, type Random, wellFormed } from "./FuzzRequests.ts"

export interface FuzzCase {
  /** The mutations applied, e.g. `tools/call+h:dup+b:truncate`, for the statistics and the report. */
  readonly label: string
  readonly method: string
  readonly path: string
  /** Sent as given (arrays as repeated lines); `host` always present. */
  readonly headers: Record<string, string | Array<string>>
  readonly body: Buffer
  readonly chunked: boolean
  /** A raw request (bytes as sent) when node:http cannot send it. */
  readonly raw?: Buffer
  /** The body is a JSON-RPC notification (the only thing answered 202). */
  readonly notification: boolean
  /** The server must answer 202 (a notification POSTed to /mcp from an allowed Host and Origin). */
  readonly expect202: boolean
  /** subscriptions/listen: the caller reads the first frame and closes. */
  readonly streamCut: boolean
  readonly tokenKind: string
  readonly rpcMethod: string
  readonly args?: Record<string, unknown>
  readonly toolName?: string
}

const wrap = (value: string) => `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`
const isAscii = (value: string) => /^[\x20-\x7e]*$/.test(value) && value.trim() === value

/** Header value as §4.2 wants it: plain printable ASCII, else the base64 wrapper. */
const headerValue = (value: string) => (isAscii(value) ? value : wrap(value))

const nested = (depth: number, leaf: string) => `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`

type Json = Record<string, any>

const envelopeMutations: ReadonlyArray<readonly [string, (random: Random, message: Json) => unknown]> = [
  [
    "e:jsonrpc",
    (random, m) => (random.chance(0.5)
      ? { ...m, jsonrpc: random.pick(["1.0", 2, null, ""]) }
      : (({ jsonrpc: _, ...rest }) => rest)(m))
  ],
  [
    "e:id",
    (random, m) => ({ ...m, id: random.pick([null, 1.5, {}, [], "x".repeat(10_000), 2 ** 60, -1, true, "", 0]) })
  ],
  [
    "e:method",
    (random, m) => ({
      ...m,
      method: random.pick([
        "",
        "tools/cal",
        "TOOLS/LIST",
        "tools/list ",
        "rpc.discover",
        "ünïcødé",
        "tools/call\u0000",
        random.text(40),
        7
      ])
    })
  ],
  ["e:params", (random, m) => ({ ...m, params: random.pick([[], "x", null, 42, true]) })],
  ["e:meta", (random, m) => {
    const meta = { ...(m.params?._meta ?? {}) }
    const key = random.pick([
      "io.modelcontextprotocol/protocolVersion",
      "io.modelcontextprotocol/clientCapabilities",
      "io.modelcontextprotocol/clientInfo",
      "progressToken"
    ])
    meta[key] = random.pick(["", "2025-03-26", "2099-12-31", 5, "yes", [], null, {}, 1.5, { name: 1 }])
    if (random.chance(0.2)) delete meta[key]
    return { ...m, params: { ...(typeof m.params === "object" && m.params !== null ? m.params : {}), _meta: meta } }
  }],
  ["e:args", (random, m) => {
    const params = typeof m.params === "object" && m.params !== null ? m.params : {}
    const args = typeof params.arguments === "object" && params.arguments !== null ? { ...params.arguments } : {}
    const choice = random.int(0, 7)
    const next = choice === 0 ? random.pick([[], "x", 3, null]) : choice === 1 ?
      { ...args, extra: random.text(5) }
      : choice === 2 ?
      JSON.parse(
        `{"__proto__": {"polluted": true}, "constructor": {"prototype": {"bad": 1}}, "connection_id": ${
          JSON.stringify(args.connection_id ?? "x")
        }}`
      )
      : choice === 3 ?
      { ...args, connection_id: random.pick([1, [], {}, null, "", " "]) }
      : choice === 4 ?
      { ...args, query: "x".repeat(random.int(1_000, 200_000)) }
      : choice === 5 ?
      { ...args, table: JSON.parse(nested(random.int(100, 3_000), "\"t\"")) }
      : choice === 6 ?
      { ...args, query: "SELECT '\u202e\ud83d\ude00\u0000 é'" }
      : {
        ...args,
        filters: Array.from({ length: random.int(1, 300) }, () => ({ column: "id", operator: "=", value: "1" }))
      }
    return { ...m, params: { ...params, arguments: next } }
  }],
  [
    "e:response",
    (random, m) => (random.chance(0.5)
      ? { jsonrpc: "2.0", id: m.id ?? 1, result: {} }
      : { ...m, error: { code: 1, message: "x" } })
  ],
  ["e:batch", (_random, m) => [m, m]]
]

const bodyMutations: ReadonlyArray<readonly [string, (random: Random, text: string) => Buffer]> = [
  ["b:truncate", (random, text) => Buffer.from(text.slice(0, random.int(0, Math.max(0, text.length - 1))))],
  ["b:deep", (random) => Buffer.from(nested(random.int(1_000, 200_000), "1"))],
  [
    "b:deep-params",
    (random, text) =>
      Buffer.from(text.replace(/"params":/, `"deep":${nested(random.int(1_000, 50_000), "0")},"params":`))
  ],
  ["b:empty", () => Buffer.alloc(0)],
  ["b:utf8", (random, text) => {
    const at = random.int(0, text.length)
    return Buffer.concat([
      Buffer.from(text.slice(0, at)),
      Buffer.from([random.pick([0xc3, 0xff, 0xed, 0xf8]), 0x28]),
      Buffer.from(text.slice(at))
    ])
  }],
  [
    "b:bom",
    (random, text) =>
      Buffer.from(`${random.pick(["\ufeff", " \n\t", ""])}${text}${random.pick(["", "}}", "garbage", "\n"])}`)
  ],
  ["b:dupkeys", (_random, text) => Buffer.from(text.replace(/^\{/, "{\"method\":\"tools/call\","))],
  [
    "b:numbers",
    (random, text) =>
      Buffer.from(text.replace(/"id":[^,}]*/, `"id":${random.pick(["1e400", "-0", "00", "0x10", "NaN", "1.0"])}`))
  ],
  ["b:binary", (random) => Buffer.from(Array.from({ length: random.int(1, 2_000) }, () => random.int(0, 255)))]
]

const HOSTS_OK = (
  port: number
) => [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, "127.0.0.1", "localhost"]
const HOSTS_BAD = (
  port: number
) => [
  `127.0.0.1:${port + 1}`,
  "localhost.",
  `evil.example:${port}`,
  `127.0.0.1.nip.io:${port}`,
  "[::ffff:127.0.0.1]",
  `127.1:${port}`,
  "2130706433",
  "",
  `127.0.0.1:${port}:${port}`,
  "[::1"
]
const ORIGINS = [
  "https://claude.ai",
  "https://app.cursor.com",
  "https://evil.example",
  "null",
  "https://claude.ai.evil.example",
  "http://127.0.0.1",
  "HTTPS://CLAUDE.AI",
  "https://claude.ai/"
]

export interface CaseContext {
  readonly port: number
  readonly target: FuzzTarget
}

/** Builds case number `index` of a run from its own random stream. */
export const makeCase = (random: Random, context: CaseContext): FuzzCase => {
  const { port, target } = context
  const rpc = wellFormed(random, target)
  const labels: Array<string> = [rpc.method]
  const tokenKinds = Object.keys(target.tokens)
  const tokenKind = random.pick(tokenKinds)
  const token = target.tokens[tokenKind]
  let message: unknown = {
    jsonrpc: "2.0",
    ...(rpc.notification === true
      ? {}
      : { id: random.chance(0.5) ? random.int(1, 1_000_000) : `id-${random.text(6)}` }),
    method: rpc.method,
    params: rpc.params
  }
  const headers: Record<string, string | Array<string>> = {
    host: `127.0.0.1:${port}`,
    "content-type": "application/json"
  }
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`
  if (rpc.era === "modern") {
    headers["mcp-protocol-version"] = "2026-07-28"
    headers["mcp-method"] = rpc.method
    const name = rpc.params["name"] ?? rpc.params["uri"]
    if (typeof name === "string" && ["tools/call", "prompts/get", "resources/read"].includes(rpc.method)) {
      headers["mcp-name"] = headerValue(name)
    }
  } else if (rpc.method !== "initialize") {
    const session = target.sessions.length > 0 && random.chance(0.7) ? random.pick(target.sessions) : undefined
    headers["mcp-session-id"] = session?.id ?? random.text(43)
    if (session !== undefined && random.chance(0.8)) {
      if (session.token === undefined) delete headers["authorization"]
      else headers["authorization"] = `Bearer ${session.token}`
    }
  }
  // Envelope mutations.
  if (random.chance(0.3)) {
    const [label, mutate] = random.pick(envelopeMutations)
    labels.push(label)
    message = mutate(random, message as Json)
  }
  // Header mutations.
  for (let count = random.chance(0.45) ? random.int(1, 3) : 0; count > 0; count--) {
    const choice = random.int(0, 12)
    const names = Object.keys(headers).filter((name) => name !== "host")
    if (choice === 0 && names.length > 0) {
      const name = random.pick(names)
      labels.push(`h:drop-${name}`)
      delete headers[name]
    } else if (choice === 1) {
      const name = random.pick(["mcp-method", "mcp-protocol-version", "mcp-name"])
      labels.push(`h:mismatch-${name}`)
      headers[name] = random.pick(["tools/list", "2025-11-25", "other", "", " tools/list", "2026-07-28 "])
    } else if (choice === 2) {
      labels.push("h:case")
      for (const name of names) {
        const value = headers[name]!
        delete headers[name]
        headers[
          random.chance(0.5)
            ? name.toUpperCase()
            : name.replace(/(^|-)([a-z])/g, (_all, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`)
        ] = value
      }
    } else if (choice === 3) {
      const name = random.pick([
        "mcp-method",
        "mcp-protocol-version",
        "content-type",
        "authorization",
        "mcp-name",
        "mcp-session-id"
      ])
      labels.push(`h:dup-${name}`)
      const value = headers[name]
      headers[name] = [
        typeof value === "string" ? value : "x",
        random.chance(0.5) && typeof value === "string" ? value : random.text(8)
      ]
    } else if (choice === 4) {
      const name = random.pick(["mcp-method", "mcp-name", "mcp-protocol-version"])
      const value = headers[name]
      labels.push(`h:base64-${name}`)
      headers[name] = random.pick([
        wrap(typeof value === "string" ? value : "x"),
        "=?base64?@@@?=",
        "=?base64?",
        `=?base64?${Buffer.from("\u0001").toString("base64")}?=`,
        wrap(" padded "),
        wrap("tööls/list")
      ])
    } else if (choice === 5) {
      labels.push("h:param")
      const field = random.pick([
        "connection_id",
        "query",
        "table",
        "max_rows",
        "CONNECTION_ID",
        "filters",
        "nope",
        "name"
      ])
      headers[`mcp-param-${field}`] = random.pick([
        target.sampleId,
        "1",
        "500",
        "true",
        wrap("é"),
        "=?base64?%%?=",
        "orders",
        ""
      ])
    } else if (choice === 6) {
      const total = random.int(16_384 - 400, 16_384 + 400)
      labels.push("h:16k-edge")
      headers["x-padding"] = "a".repeat(Math.max(1, total - 300))
    } else if (choice === 7) {
      labels.push("h:auth")
      headers["authorization"] = random.pick([
        `Bearer dbd_${random.text(43, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")}`,
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer ",
        `bearer ${token ?? "x"}`,
        `Bearer  ${token ?? "x"} extra`,
        `Bearer ${token ?? "x"}x`,
        "x".repeat(8_000)
      ])
    } else if (choice === 8) {
      labels.push("h:content-type")
      headers["content-type"] = random.pick([
        "text/plain",
        "application/json; charset=utf-8",
        "application/vnd.fuzz+json",
        "application/jsonx",
        "",
        "multipart/form-data; boundary=x",
        "APPLICATION/JSON",
        "application/json;;;"
      ])
    } else if (choice === 9) {
      labels.push("h:origin")
      headers["origin"] = random.pick([...ORIGINS, `http://localhost:${port}`])
    } else if (choice === 10) {
      labels.push("h:host")
      headers["host"] = random.pick([...HOSTS_OK(port), ...HOSTS_BAD(port)])
    } else if (choice === 11) {
      labels.push("h:session")
      headers["mcp-session-id"] = random.pick([random.text(43), "", " ", "../../etc"])
    } else {
      labels.push("h:accept")
      headers["accept"] = random.pick(["text/html", "*/*", "text/event-stream", ""])
    }
  }
  let body: Buffer = Buffer.from(JSON.stringify(message))
  if (random.chance(0.12)) {
    const [label, mutate] = random.pick(bodyMutations)
    labels.push(label)
    body = mutate(random, body.toString("utf8"))
  } else if (random.chance(0.0015)) {
    const size = random.chance(0.6) ? random.int(1_000_000, 10_485_000) : random.int(10_485_761, 11_000_000)
    labels.push(size > 10_485_760 ? "b:over-10MB" : "b:huge")
    const text = JSON.stringify(message)
    body = Buffer.from(
      text.startsWith("{\"jsonrpc\"")
        ? `{"pad":"${"x".repeat(Math.max(0, size - text.length - 10))}",${text.slice(1)}`
        : text.padEnd(size, " ")
    )
  }
  let method = "POST"
  let path = "/mcp"
  if (random.chance(0.04)) {
    method = random.pick(["GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "OPTIONS", "TRACE", "FUZZ"])
    labels.push(`m:${method}`)
    if (method === "OPTIONS" && random.chance(0.5)) {
      headers["access-control-request-headers"] = random.pick(["content-type, mcp-param-x", "bad header!", "a,,b"])
    }
  }
  if (random.chance(0.03)) {
    path = random.pick([
      "/",
      "/mcp/",
      "/MCP",
      "/mcp?x=1",
      "//mcp",
      "/%6dcp",
      "/mcp/../mcp",
      `/${"a".repeat(8_000)}`,
      "/mcp#x",
      "*"
    ])
    labels.push("p:path")
  }
  const chunked = random.chance(0.05)
  if (chunked) labels.push("t:chunked")
  const parsed = (() => {
    try {
      return JSON.parse(body.toString("utf8")) as unknown
    } catch {
      return undefined
    }
  })()
  const isNotification = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && !("id" in parsed) &&
    typeof (parsed as Json)["method"] === "string"
  const headerOf = (wanted: string) => Object.entries(headers).find(([name]) => name.toLowerCase() === wanted)?.[1]
  const host = headerOf("host")
  const origin = headerOf("origin")
  const hostOk = typeof host === "string" &&
    HOSTS_OK(port).map((name) => name.toLowerCase()).includes(host.toLowerCase())
  const originOk = origin === undefined || origin === "https://claude.ai" || origin === "https://app.cursor.com"
  const rawCase = random.chance(0.035) ? rawVariant(random, port, headers, body) : undefined
  if (rawCase !== undefined) labels.push(rawCase.label)
  const name = rpc.params["name"]
  return {
    label: labels.join("+"),
    method: rawCase === undefined ? method : "POST",
    path,
    headers,
    body,
    chunked,
    ...(rawCase === undefined ? {} : { raw: rawCase.bytes }),
    notification: isNotification,
    // Headers past 16 KB are refused (431) before anything else is read.
    expect202: rawCase === undefined && isNotification && headerOf("x-padding") === undefined &&
      body.length <= 10_485_760 && method === "POST" && path === "/mcp" && hostOk && originOk,
    streamCut: rpc.method === "subscriptions/listen",
    tokenKind,
    rpcMethod: rpc.method,
    ...(rpc.method === "tools/call" && typeof name === "string" && typeof rpc.params["arguments"] === "object"
      ? { args: rpc.params["arguments"] as Record<string, unknown>, toolName: name }
      : {})
  }
}

/** What node:http will not send: control characters, bare LF, HTTP/1.0, no Host, conflicting lengths, bad chunks, folding, pipelining. */
const rawVariant = (
  random: Random,
  port: number,
  headers: FuzzCase["headers"],
  body: Buffer
): { label: string; bytes: Buffer } => {
  const lines = (extra: ReadonlyArray<string>, eol = "\r\n", version = "HTTP/1.1", length = true) =>
    Buffer.concat([
      Buffer.from(
        `POST /mcp ${version}${eol}${
          Object.entries(headers).flatMap(([name, value]) =>
            (Array.isArray(value) ? value : [value]).map((one) => `${name}: ${one}${eol}`)
          ).join("")
        }${extra.map((line) => `${line}${eol}`).join("")}${
          length ? `content-length: ${body.length}${eol}` : ""
        }connection: close${eol}${eol}`,
        "latin1"
      ),
      body
    ])
  switch (random.int(0, 9)) {
    case 0:
      return {
        label: "r:control",
        bytes: lines([
          `x-fuzz: a${String.fromCharCode(random.pick([1, 8, 11, 12, 27, 127]))}b`,
          `mcp-param-query: ${String.fromCharCode(random.int(1, 31))}`
        ])
      }
    case 1:
      return { label: "r:bare-lf", bytes: lines([], "\n") }
    case 2:
      return { label: "r:http10", bytes: lines([], "\r\n", "HTTP/1.0") }
    case 3: {
      const { host: _host, ...rest } = headers
      return { label: "r:no-host", bytes: rawVariantWithout(rest, body) }
    }
    case 4:
      return { label: "r:two-lengths", bytes: lines([`content-length: ${body.length + random.int(1, 5)}`]) }
    case 5:
      return { label: "r:cl-te", bytes: lines(["transfer-encoding: chunked"]) }
    case 6:
      return {
        label: "r:bad-chunk",
        bytes: Buffer.concat([
          lines(["transfer-encoding: chunked"], "\r\n", "HTTP/1.1", false).subarray(0, -body.length || undefined),
          Buffer.from(
            random.pick(["zz\r\nabc\r\n0\r\n\r\n", "5\r\nab\r\n0\r\n\r\n", "-1\r\n\r\n", "3\r\nabcdef\r\n0\r\n\r\n"])
          )
        ])
      }
    case 7:
      return { label: "r:fold", bytes: lines(["x-folded: a", " b"]) }
    case 8:
      return {
        label: "r:utf8-header",
        bytes: Buffer.concat([
          Buffer.from(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nmcp-name: `),
          Buffer.from("tööl ✓", "utf8"),
          Buffer.from(
            `\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`
          ),
          body
        ])
      }
    default:
      return {
        label: "r:garbage-line",
        bytes: Buffer.from(
          random.pick([
            `GARBAGE\r\n\r\n`,
            `POST /mcp HTTP/9.9\r\nhost: 127.0.0.1:${port}\r\n\r\n`,
            `POST  /mcp  HTTP/1.1\r\n\r\n`,
            `${"A".repeat(20_000)} / HTTP/1.1\r\n\r\n`
          ])
        )
      }
  }
}

const rawVariantWithout = (headers: FuzzCase["headers"], body: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `POST /mcp HTTP/1.1\r\n${
        Object.entries(headers).flatMap(([name, value]) =>
          (Array.isArray(value) ? value : [value]).map((one) => `${name}: ${one}\r\n`)
        ).join("")
      }content-length: ${body.length}\r\nconnection: close\r\n\r\n`,
      "latin1"
    ),
    body
  ])
