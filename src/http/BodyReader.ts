import type { IncomingMessage } from "node:http"

/** D-40: "10 MB" = 10,485,760 bytes. */
export const MAX_BODY_BYTES = 10_485_760
/** How much of an oversized body is drained so the 413 is not lost to a TCP reset. */
const DRAIN_CAP_BYTES = 64 * 1024 * 1024

export type BodyResult = { readonly ok: true; readonly body: string } | {
  readonly ok: false
  readonly reason: "too_large" | "aborted"
}

/** Drains (and discards) the rest of a request up to a cap, then resolves. */
export const drain = (request: IncomingMessage): Promise<void> =>
  new Promise((resolve) => {
    let seen = 0
    const done = () => {
      request.off("data", onData)
      resolve()
    }
    const onData = (chunk: Buffer) => {
      seen += chunk.length
      if (seen > DRAIN_CAP_BYTES) {
        request.pause()
        done()
      }
    }
    request.on("data", onData)
    request.once("end", done)
    request.once("error", done)
    request.once("close", done)
    request.resume()
  })

/**
 * Reads the body up to MAX_BODY_BYTES. A larger Content-Length is refused before reading; a
 * chunked body is read up to the limit. Either way the unread rest is drained (wire contract §8,
 * C8-a). A body that stops arriving for `stallMs` is aborted, so a stalled upload cannot hold one
 * of the 64 connections forever (D-44).
 */
export const readBody = (request: IncomingMessage, stallMs: number = Number.POSITIVE_INFINITY): Promise<BodyResult> => {
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
    return drain(request).then(() => ({ ok: false, reason: "too_large" }) as const)
  }
  return new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    let stall: NodeJS.Timeout | undefined
    const watchStall = () => {
      clearTimeout(stall)
      if (Number.isFinite(stallMs)) stall = setTimeout(() => request.destroy(), stallMs).unref()
    }
    const settle = (result: BodyResult) => {
      if (settled) return
      settled = true
      clearTimeout(stall)
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onError)
      request.off("close", onClose)
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      watchStall()
      size += chunk.length
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk)
      chunks.length = 0
      clearTimeout(stall)
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("close", onClose)
      void drain(request).then(() => settle({ ok: false, reason: "too_large" }))
    }
    const onEnd = () => settle({ ok: true, body: Buffer.concat(chunks).toString("utf8") })
    const onError = () => settle({ ok: false, reason: "aborted" })
    const onClose = () =>
      settle(
        request.complete ? { ok: true, body: Buffer.concat(chunks).toString("utf8") } : { ok: false, reason: "aborted" }
      )
    watchStall()
    request.on("data", onData)
    request.once("end", onEnd)
    request.once("error", onError)
    request.once("close", onClose)
  })
}
