// 64 keep-alive connections, one caller (token) each, held open while every caller sends faster than
// limits.requestsPerMinute allows (the rate-limit edge): 3 s in npm test, 70 s in npm run reliability. Oracle: a 65th
// connection is refused 503 -33000 with Retry-After: 1 and closed (D-44); each caller
// gets at most its limit of 200s per window and then 429 -33010 whose Retry-After is right: every request sent
// before it runs out is refused again, and one sent once it has run out is served (C8-f); no connection is dropped;
// p50/p99 are recorded.
import { describe, expect, it } from "vitest"
import { connectRaw, type RawSocket, requestHead } from "../support/RawHttp.ts"
import { FULL, partDirectory, reportFigures, size } from "./Run.ts"
import { prepareServe } from "./ServeUnderTest.ts"

const CONNECTIONS = 64
const DURATION_MS = size(3_000, 70_000)
/** Requests a minute each caller may send: low enough that every caller passes it several times over. */
const LIMIT = size(5, 120)
const PACE_MS = size(250, 333)
/** Retry-After is whole seconds, rounded up; the window turns at most this long before or after the mark. */
const SLACK_MS = 1_500

interface Sample {
  readonly sentAt: number
  readonly ms: number
  readonly status: number
  readonly code: number | undefined
  readonly retryAfter: number | undefined
}

const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
  }
})

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

describe("load at the rate-limit edge (D-89)", () => {
  it(
    `C8-c C8-f ${CONNECTIONS} keep-alive connections held ${
      DURATION_MS / 1000
    } s above limits.requestsPerMinute: the 65th refused 503, every 429 with a right Retry-After, none dropped`,
    async () => {
      const serve = await prepareServe({
        directory: partDirectory("load"),
        part: "load",
        settings: { limits: { requestsPerMinute: LIMIT } },
        moreTokens: CONNECTIONS
      })
      try {
        const port = serve.process.port
        const head = (token: string) =>
          requestHead("POST", "/mcp", {
            host: `127.0.0.1:${port}`,
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/list",
            authorization: `Bearer ${token}`,
            "content-length": Buffer.byteLength(body)
          })
        const sockets: Array<RawSocket> = []
        for (let index = 0; index < CONNECTIONS; index++) sockets.push(await connectRaw(port))
        const samples: Array<Array<Sample>> = sockets.map(() => [])
        const started = Date.now()
        let refused:
          | { status: number; code: number | undefined; retryAfter: string | undefined; closed: boolean }
          | undefined

        const caller = async (index: number) => {
          const socket = sockets[index]!
          let from = 0
          // Held for the duration; a short run also sends each caller past its limit whatever the machine's speed.
          while (Date.now() - started < DURATION_MS || (!FULL && samples[index]!.length < LIMIT + 3)) {
            const sentAt = Date.now()
            await socket.write(head(serve.callers[index]!) + body)
            const response = await socket.nextResponse(from)
            from = response.end
            const retryAfter = response.headers["retry-after"]
            samples[index]!.push({
              sentAt,
              ms: Date.now() - sentAt,
              status: response.status,
              code: response.json?.error?.code,
              retryAfter: retryAfter === undefined ? undefined : Number(retryAfter)
            })
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, PACE_MS - (Date.now() - sentAt))))
          }
        }
        const sixtyFifth = async () => {
          await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, DURATION_MS / 3)))
          const extra = await connectRaw(port)
          const response = await extra.nextResponse()
          refused = {
            status: response.status,
            code: response.json?.error?.code,
            retryAfter: response.headers["retry-after"],
            closed: (await extra.closed, extra.isClosed())
          }
        }
        await Promise.all([...sockets.map((_, index) => caller(index)), sixtyFifth()])
        const dropped = sockets.filter((socket) => socket.isClosed()).length
        for (const socket of sockets) socket.socket.destroy()

        // Retry-After is right: before it runs out the caller is refused, once it has run out the caller is served.
        const wrongRetryAfter: Array<string> = []
        let tooMany = 0
        for (const [index, list] of samples.entries()) {
          for (const [position, sample] of list.entries()) {
            if (sample.status !== 429) continue
            if (
              sample.code !== -33010 || sample.retryAfter === undefined || !Number.isInteger(sample.retryAfter) ||
              sample.retryAfter < 1 || sample.retryAfter > 60
            ) {
              wrongRetryAfter.push(`caller ${index}: 429 with code ${sample.code} and Retry-After ${sample.retryAfter}`)
              continue
            }
            const opensAt = sample.sentAt + sample.retryAfter * 1000
            for (const later of list.slice(position + 1)) {
              if (later.sentAt < opensAt - SLACK_MS && later.status !== 429) {
                wrongRetryAfter.push(
                  `caller ${index}: served ${opensAt - later.sentAt} ms before its Retry-After ran out`
                )
              }
              if (later.sentAt > opensAt + SLACK_MS && later.sentAt < opensAt + 10_000 && later.status !== 200) {
                wrongRetryAfter.push(
                  `caller ${index}: refused ${later.sentAt - opensAt} ms after its Retry-After ran out`
                )
              }
            }
          }
          // A window serves LIMIT requests; any 60 s overlaps at most two windows. A short run stays inside the first one.
          const served = list.filter((sample) => sample.status === 200)
          if (
            served.some((sample) =>
              served.filter((other) => other.sentAt >= sample.sentAt && other.sentAt < sample.sentAt + 60_000).length >
                2 * LIMIT
            )
          ) tooMany++
          if (!FULL && served.length > LIMIT) tooMany++
        }
        const all = samples.flat()
        const otherStatus = all.filter((sample) => sample.status !== 200 && sample.status !== 429)
        const latencies = all.map((sample) => sample.ms)
        reportFigures("load", [
          { name: "connections held", value: CONNECTIONS - dropped, required: "64", ok: dropped === 0 },
          { name: "seconds held", value: Math.round((Date.now() - started) / 1000) },
          { name: "requests", value: all.length },
          { name: "served (200)", value: all.filter((sample) => sample.status === 200).length },
          { name: "rate limited (429)", value: all.filter((sample) => sample.status === 429).length },
          { name: "wrong Retry-After", value: wrongRetryAfter.length, required: "0", ok: wrongRetryAfter.length === 0 },
          { name: "other answers", value: otherStatus.length, required: "0", ok: otherStatus.length === 0 },
          {
            name: "65th connection",
            value: refused === undefined
              ? "not tried"
              : `${refused.status} ${refused.code} Retry-After ${refused.retryAfter}`,
            required: "503 -33000 Retry-After 1",
            ok: refused?.status === 503 && refused.code === -33000 && refused.retryAfter === "1"
          },
          { name: "p50", value: percentile(latencies, 50), unit: " ms" },
          { name: "p99", value: percentile(latencies, 99), unit: " ms" }
        ], {
          limitPerMinute: LIMIT,
          paceMs: PACE_MS,
          wrongRetryAfter: wrongRetryAfter.slice(0, 20),
          mode: FULL ? "full" : "short"
        })

        expect(refused).toMatchObject({ status: 503, code: -33000, retryAfter: "1", closed: true })
        expect(dropped, "keep-alive connections closed by the server during the run").toBe(0)
        expect(otherStatus.map((sample) => `${sample.status} ${sample.code}`)).toEqual([])
        expect(wrongRetryAfter).toEqual([])
        expect(tooMany, "a caller was served more than limits.requestsPerMinute in a window").toBe(0)
        for (const list of samples) {
          expect(list.filter((sample) => sample.status === 200).length).toBeGreaterThan(0)
          expect(list.filter((sample) => sample.status === 429).length).toBeGreaterThan(0)
        }
      } finally {
        await serve.process.stop()
      }
    },
    FULL ? 600_000 : 120_000
  )
})
