// Sends the fuzz cases to a running server and judges every answer (D-89): an answer of the contract
// (ContractOracle), never a reset, never a hang, no configured secret in it; the server still answers a probe every
// so often. Collects request states, cursors and legacy sessions it is handed, so later cases can replay them.
import * as http from "node:http"
import * as net from "node:net"
import { type Answer, contractViolation, secretsIn } from "./ContractOracle.ts"
import { type FuzzCase, makeCase } from "./FuzzCases.ts"
import { type FuzzTarget, makeRandom } from "./FuzzRequests.ts"

/** Longer than any statement deadline a case can ask for (30 s by default): past it the request counts as a hang. */
const HANG_MS = 60_000

export interface FuzzOptions {
  readonly port: number
  readonly target: FuzzTarget
  readonly count: number
  readonly concurrency: number
  readonly seed: number
  readonly secrets: ReadonlyArray<string>
  /** Called every `probeEvery` cases; must resolve true when the server still answers. */
  readonly probe: () => Promise<boolean>
  readonly probeEvery: number
  /** Called once when `warmup` cases are done (the memory baseline is taken there). */
  readonly onWarm?: () => void
  readonly warmup?: number
  /** Called once when each of these case indexes is reached (memory is measured there too). */
  readonly checkpoints?: ReadonlyArray<number>
  readonly onCheckpoint?: (index: number) => void
}

export interface Finding {
  readonly index: number
  readonly label: string
  readonly kind: "violation" | "5xx" | "reset" | "hang" | "secret" | "not-202" | "probe"
  readonly detail: string
}

export interface FuzzStats {
  sent: number
  answered: number
  byStatus: Record<string, number>
  /** 5xx answers other than 503 -33000 for a configured database that does not answer (not a client mistake). */
  fiveHundreds: number
  /** 503 -33000 answers naming a database that does not answer. */
  unavailable: number
  /** 503 -33000 legacy_sessions_full: every legacy session held by principals this caller may not evict. */
  sessionsFull: number
  resets: number
  hangs: number
  violations: number
  secretsFound: number
  failedProbes: number
  inputRequired: number
  findings: Array<Finding>
  labels: Record<string, number>
  /** Milliseconds spent per first label (the method), for finding what is slow. */
  millis: Record<string, number>
}

type Outcome = { readonly kind: "answer"; readonly answer: Answer; readonly reused: boolean } | {
  readonly kind: "reset"
  readonly reused: boolean
  readonly detail: string
} | { readonly kind: "hang" }

const viaHttp = (agent: http.Agent, port: number, fuzzCase: FuzzCase): Promise<Outcome> =>
  new Promise((resolve) => {
    let settled = false
    const done = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const headers: http.OutgoingHttpHeaders = { ...fuzzCase.headers }
    // node:http frames a body as chunks by default only for POST, PUT and PATCH: say so for every method, or the body
    // of a chunked GET would go out unframed and be read by the server as the next request on the socket.
    if (fuzzCase.chunked) headers["transfer-encoding"] = "chunked"
    else headers["content-length"] = fuzzCase.body.length
    let request: http.ClientRequest
    try {
      request = http.request({
        host: "127.0.0.1",
        port,
        agent,
        method: fuzzCase.method,
        path: fuzzCase.path,
        headers,
        setHost: false
      })
    } catch (error) {
      // node:http refused to send it (an invalid header value): nothing reached the server.
      return resolve({ kind: "answer", answer: { status: -1, headers: {}, body: String(error) }, reused: false })
    }
    const timer = setTimeout(() => {
      request.destroy()
      done({ kind: "hang" })
    }, HANG_MS)
    request.on("response", (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        // subscriptions/listen stays open by design: its first frame is the answer.
        if (fuzzCase.streamCut && Buffer.concat(chunks).includes("\n\n")) {
          response.destroy()
          done({
            kind: "answer",
            answer: {
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString("utf8")
            },
            reused: false
          })
        }
      })
      response.on("end", () =>
        done({
          kind: "answer",
          answer: {
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8")
          },
          reused: false
        }))
      response.on("error", (error) => done({ kind: "reset", reused: false, detail: `response: ${error.message}` }))
      response.on("aborted", () => done({ kind: "reset", reused: false, detail: "response aborted" }))
    })
    request.on("error", (error: NodeJS.ErrnoException) =>
      done({ kind: "reset", reused: request.reusedSocket, detail: `${error.code ?? ""} ${error.message}` }))
    if (fuzzCase.chunked) {
      const step = Math.max(1, Math.ceil(fuzzCase.body.length / 3))
      for (let at = 0; at < fuzzCase.body.length; at += step) {
        request.write(fuzzCase.body.subarray(at, at + step))
      }
      request.end()
    } else {
      request.end(fuzzCase.body)
    }
  })

/** The payload of a chunked body read whole (the socket closed after it). */
const dechunk = (raw: Buffer): string => {
  const parts: Array<Buffer> = []
  let at = 0
  for (;;) {
    const eol = raw.indexOf("\r\n", at)
    if (eol < 0) break
    const size = parseInt(raw.subarray(at, eol).toString("latin1"), 16)
    if (!(size > 0)) break
    parts.push(raw.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
  return Buffer.concat(parts).toString("utf8")
}

/** One raw request on its own socket: the first response, or how the socket ended without one. */
const viaRaw = (port: number, bytes: Buffer): Promise<Outcome> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    let data = Buffer.alloc(0)
    let settled = false
    const done = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(outcome)
    }
    const timer = setTimeout(() => done({ kind: "hang" }), HANG_MS)
    const tryParse = (closed: boolean) => {
      const end = data.indexOf("\r\n\r\n")
      if (end < 0) {
        return closed
          ? done({ kind: "reset", reused: false, detail: `closed after ${data.length} bytes without a response head` })
          : undefined
      }
      const [statusLine = "", ...lines] = data.subarray(0, end).toString("latin1").split("\r\n")
      const headers: Record<string, string> = {}
      for (const line of lines) {
        headers[line.slice(0, line.indexOf(":")).trim().toLowerCase()] = line.slice(line.indexOf(":") + 1).trim()
      }
      const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"])
      const status = Number(statusLine.split(" ")[1])
      const noBody = status === 204 || status === 304 || (status >= 100 && status < 200)
      if (!noBody && length === undefined && !closed) return
      if (length !== undefined && data.length < end + 4 + length) {
        return closed
          ? done({ kind: "reset", reused: false, detail: "closed in the middle of a response body" })
          : undefined
      }
      const raw = data.subarray(end + 4, length === undefined ? data.length : end + 4 + length)
      const body = headers["transfer-encoding"] === "chunked" ? dechunk(raw) : raw.toString("utf8")
      done({ kind: "answer", answer: { status, headers, body }, reused: false })
    }
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      tryParse(false)
    })
    socket.on("error", () => undefined)
    socket.on("close", () => tryParse(true))
    socket.on("connect", () => socket.write(bytes))
  })

const remember = (target: FuzzTarget, fuzzCase: FuzzCase, answer: Answer, stats: FuzzStats) => {
  if (answer.status !== 200) return
  let json: any
  try {
    json = JSON.parse(answer.body)
  } catch {
    return
  }
  const result = json?.result
  const token = typeof fuzzCase.headers["authorization"] === "string"
    ? /^Bearer (\S+)$/.exec(fuzzCase.headers["authorization"])?.[1]
    : undefined
  if (
    result?.resultType === "input_required" && typeof result.requestState === "string" && fuzzCase.args !== undefined &&
    token !== undefined
  ) {
    stats.inputRequired++
    if (target.states.length < 200) {
      target.states.push({
        state: result.requestState,
        token,
        tokenKind: fuzzCase.tokenKind,
        args: fuzzCase.args,
        name: fuzzCase.toolName!
      })
    }
  }
  if (typeof result?.nextCursor === "string" && target.cursors.length < 50) {
    target.cursors.push({ cursor: result.nextCursor, method: fuzzCase.rpcMethod })
  }
  const session = answer.headers["mcp-session-id"]
  if (typeof session === "string" && target.sessions.length < 14) target.sessions.push({ id: session, token })
}

/** Runs `count` cases at `concurrency`; every finding keeps its case index, so `makeCase` with the seed replays it. */
export const runFuzz = async (options: FuzzOptions): Promise<FuzzStats> => {
  const stats: FuzzStats = {
    sent: 0,
    answered: 0,
    byStatus: {},
    fiveHundreds: 0,
    unavailable: 0,
    sessionsFull: 0,
    resets: 0,
    hangs: 0,
    violations: 0,
    secretsFound: 0,
    failedProbes: 0,
    inputRequired: 0,
    findings: [],
    labels: {},
    millis: {}
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency })
  const find = (finding: Finding) => {
    if (stats.findings.length < 200) stats.findings.push(finding)
  }
  let next = 0
  let warmed = false
  const worker = async () => {
    for (;;) {
      const index = next++
      if (index >= options.count) return
      if (!warmed && options.warmup !== undefined && index >= options.warmup) {
        warmed = true
        options.onWarm?.()
      }
      if (options.checkpoints?.includes(index) === true) options.onCheckpoint?.(index)
      if (index > 0 && index % options.probeEvery === 0 && !(await options.probe())) {
        stats.failedProbes++
        find({
          index,
          label: "probe",
          kind: "probe",
          detail: "server/discover on a new connection was not answered 200"
        })
      }
      const random = makeRandom(options.seed ^ Math.imul(index + 1, 0x9e3779b1))
      const fuzzCase = makeCase(random, { port: options.port, target: options.target })
      const family = fuzzCase.label.split("+").map((part) => part.split("-")[0]).join("+")
      stats.labels[family] = (stats.labels[family] ?? 0) + 1
      stats.sent++
      const began = Date.now()
      let outcome = fuzzCase.raw === undefined
        ? await viaHttp(agent, options.port, fuzzCase)
        : await viaRaw(options.port, fuzzCase.raw)
      // A keep-alive socket the server closed after its last answer: node:http sent on it before seeing the close.
      if (outcome.kind === "reset" && outcome.reused) outcome = await viaHttp(agent, options.port, fuzzCase)
      const head = fuzzCase.label.split("+")[0]!
      stats.millis[head] = (stats.millis[head] ?? 0) + Date.now() - began
      if (outcome.kind === "hang") {
        stats.hangs++
        find({ index, label: fuzzCase.label, kind: "hang", detail: `no answer within ${HANG_MS} ms` })
        continue
      }
      if (outcome.kind === "reset") {
        stats.resets++
        find({ index, label: fuzzCase.label, kind: "reset", detail: outcome.detail })
        continue
      }
      const { answer } = outcome
      if (answer.status === -1) continue
      stats.answered++
      stats.byStatus[answer.status] = (stats.byStatus[answer.status] ?? 0) + 1
      if (answer.status === 503 && /"reason":"not_connected"/.test(answer.body)) stats.unavailable++
      // A 17th legacy session the caller may evict none for (D-45's policy within §3.3): capacity, not a fault.
      else if (answer.status === 503 && /"reason":"legacy_sessions_full"/.test(answer.body)) stats.sessionsFull++
      else if (answer.status >= 500) {
        stats.fiveHundreds++
        find({ index, label: fuzzCase.label, kind: "5xx", detail: `${answer.status} ${answer.body.slice(0, 300)}` })
      }
      const problem = contractViolation({
        httpMethod: fuzzCase.method,
        notification: fuzzCase.notification,
        streamCut: fuzzCase.streamCut
      }, answer)
      if (problem !== undefined) {
        stats.violations++
        find({ index, label: fuzzCase.label, kind: "violation", detail: `${problem} — ${answer.body.slice(0, 300)}` })
      }
      if (fuzzCase.expect202 && answer.status !== 202) {
        stats.violations++
        find({
          index,
          label: fuzzCase.label,
          kind: "not-202",
          detail: `a notification answered ${answer.status}: ${answer.body.slice(0, 200)}`
        })
      }
      const leaked = secretsIn(answer, options.secrets)
      if (leaked.length > 0) {
        stats.secretsFound += leaked.length
        find({
          index,
          label: fuzzCase.label,
          kind: "secret",
          detail: `${leaked.length} configured secret(s) in the answer: ${answer.body.slice(0, 200)}`
        })
      }
      remember(options.target, fuzzCase, answer, stats)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  agent.destroy()
  return stats
}
