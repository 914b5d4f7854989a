import { Deferred, type Duration, Effect, FiberSet } from "effect"
import type * as http from "node:http"
import { dirname } from "node:path"
import * as readline from "node:readline"
import type { Readable, Writable } from "node:stream"
import { isJsonObject, type Json, type JsonObject } from "../domain/Json.ts"
import { channelPathOf } from "../http/ChannelProtocol.ts"
import type { RequestId } from "../domain/JsonRpc.ts"
import { HOW_TO_START } from "./BridgeRefusal.ts"
import { IdMap, restoreHostId } from "./IdMap.ts"
import { isCacheableToolList, ToolListCache } from "./ToolListCache.ts"
import { carriesModernEnvelope, initializeResult, stampModern, stripModernFields } from "./LegacyShim.ts"
import type { UpstreamReply } from "./Upstream.ts"
import { UpstreamChannel } from "./UpstreamChannel.ts"
import type { FileInspector } from "./HandshakeTrust.ts"
import { acquireUpstream, type Upstream } from "./UpstreamHandshake.ts"

export interface BridgeIo {
  readonly input: Readable
  readonly output: Writable
  readonly errors: Writable
  /** How long a response after progress waits when nothing confirms the host read the progress (RESPONSE_AFTER_PROGRESS). */
  readonly responseAfterProgress?: Duration.DurationInput
}

/**
 * Both official SDK clients dispatch a notification a microtask late but a response at once, and the response drops
 * the request's progress handler: a progress line read in the same chunk as its response is lost ("unknown token").
 * A legacy host answers `ping`, and its answer comes after every line read before it was handled, so the held
 * response follows that answer. The modern era has no request a host must answer: there the response waits this
 * long instead, as it does when a legacy host does not answer the ping.
 */
export const RESPONSE_AFTER_PROGRESS: Duration.DurationInput = "50 millis"

const isRequestId = (value: unknown): value is RequestId => typeof value === "string" || typeof value === "number"
const isResponse = (message: JsonObject) => !("method" in message) && ("result" in message || "error" in message)
const errorCode = (reply: UpstreamReply) => {
  if (reply.kind !== "json" || !isJsonObject(reply.message)) return undefined
  const error = reply.message["error"]
  return isJsonObject(error) ? error["code"] : undefined
}

/**
 * The stdio side of the bridge (D-53): one JSON-RPC message per stdin line, one per
 * stdout line. Returns when stdin ends; requests still running are then aborted, which the server
 * treats as a dropped client (wire contract §3.2), so nothing is left running.
 */
export const forwardStdio = (io: BridgeIo, handshakePath: string, agent: http.Agent, initial: Upstream) =>
  Effect.scoped(Effect.gen(function*() {
    let upstream = initial
    let legacyHost = false
    let hostClientInfo: JsonObject | undefined
    const ids = new IdMap()
    const toolLists = new ToolListCache()
    // D-53: calls go over the server's local channel when it has one (DBDESK_BRIDGE_CHANNEL=off: always HTTP).
    const channelPath = process.env["DBDESK_BRIDGE_CHANNEL"] === "off"
      ? undefined
      : channelPathOf(dirname(handshakePath))
    const channels = new Map<Upstream, UpstreamChannel>()
    const channelOf = (of: Upstream) => {
      let channel = channels.get(of)
      if (channel === undefined) {
        // A re-read handshake makes the old channel's credential stale: it closes once its calls have answered.
        for (const [old, open] of channels) {
          if (old === upstream) continue
          open.retire()
          channels.delete(old)
        }
        channel = new UpstreamChannel(channelPath, of.target, agent)
        channels.set(of, channel)
      }
      return channel
    }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const channel of channels.values()) channel.close()
      })
    )
    const write = (message: JsonObject) => {
      io.output.write(`${JSON.stringify(message)}\n`)
    }
    /** Pings sent to a legacy host, by id, until it answers. */
    const pings = new Map<string, Deferred.Deferred<void>>()
    let pingCount = 0
    /** Resolves once the host has handled every line written so far (legacy), or after RESPONSE_AFTER_PROGRESS. */
    const fallback = io.responseAfterProgress ?? RESPONSE_AFTER_PROGRESS
    const hostCaughtUp = Effect.suspend(() => {
      if (!legacyHost) return Effect.sleep(fallback)
      const id = `dbdesk-bridge-sync-${++pingCount}`
      return Effect.flatMap(Deferred.make<void>(), (answered) => {
        pings.set(id, answered)
        write({ jsonrpc: "2.0", id, method: "ping" })
        return Deferred.await(answered).pipe(
          Effect.timeoutTo({ duration: fallback, onSuccess: () => undefined, onTimeout: () => undefined }),
          Effect.ensuring(Effect.sync(() => pings.delete(id)))
        )
      })
    })
    const log = (text: string) => {
      io.errors.write(`dbdesk-mcp: ${text}\n`)
    }
    const fail = (id: RequestId | null, code: number, message: string) =>
      write({ jsonrpc: "2.0", id, error: { code, message } })

    /** On -33009 the handshake is read (and the server proven) again once: the token may have rotated. */
    const reacquire = (failed: Upstream) =>
      upstream !== failed
        ? Effect.succeed(upstream)
        : acquireUpstream(handshakePath, agent).pipe(
          Effect.tap((next) =>
            Effect.sync(() => {
              upstream = next
              log(`re-read ${handshakePath}: using the current bridge token of instance ${next.handshake.instanceId}`)
            })
          ),
          Effect.catchTag("BridgeRefusal", (refusal) => Effect.as(Effect.sync(() => log(refusal.message)), undefined))
        )

    const forwardRequest = (message: JsonObject, hostId: RequestId) => {
      const legacy = legacyHost || !carriesModernEnvelope(message)
      const cacheable = isCacheableToolList(message)
      const cached = cacheable ? toolLists.answer(upstream, hostId, legacy) : undefined
      if (cached !== undefined) {
        // Answered as the line is read, without a fiber (see the line handler below).
        io.output.write(cached)
        return Effect.void
      }
      const upstreamId = ids.issue(hostId)
      const restore = restoreHostId(upstreamId, hostId)
      const outgoing = { ...(legacy ? stampModern(message, hostClientInfo) : message), id: upstreamId }
      let notified = false
      let heldResponse: JsonObject | undefined
      const toHost = (frame: unknown) => {
        if (!isJsonObject(frame)) return
        if (!isResponse(frame)) {
          notified = true
          return write(frame)
        }
        const result = frame["result"]
        const response = {
          ...frame,
          id: hostId,
          ...(legacy && result !== undefined ? { result: stripModernFields(result) } : {})
        }
        if (notified) heldResponse = response
        else write(response)
      }
      return Effect.gen(function*() {
        let used = upstream
        let reply = yield* channelOf(used).exchange(outgoing, toHost, restore)
        const code = errorCode(reply)
        if (code === -33009 || code === -33008) {
          toolLists.forget()
          const next = yield* reacquire(used)
          if (next !== undefined) {
            used = next
            reply = yield* channelOf(used).exchange(outgoing, toHost, restore)
          }
        }
        if (reply.kind === "stream") {
          if (heldResponse !== undefined) {
            yield* hostCaughtUp
            write(heldResponse)
          } else if (!reply.answered) {
            fail(hostId, -33000, "The dbdesk server closed the response stream without an answer")
          }
        } else if (isJsonObject(reply.message) && isResponse(reply.message)) {
          if (cacheable && upstream === used) toolLists.remember(used, reply.message)
          toHost(reply.message)
        } else {
          fail(hostId, -33000, `The dbdesk server answered HTTP ${reply.status} without a JSON-RPC response`)
        }
      }).pipe(
        Effect.catchTag(
          "UpstreamUnreachable",
          (error) => Effect.sync(() => fail(hostId, -33000, `${error.message}. ${HOW_TO_START}`))
        ),
        Effect.ensuring(Effect.sync(() => ids.release(hostId, upstreamId)))
      )
    }

    const forwardNotification = (message: JsonObject) => {
      const params = isJsonObject(message["params"]) ? message["params"] : {}
      const requestId = params["requestId"]
      const upstreamId = isRequestId(requestId) ? ids.upstreamFor(requestId) : undefined
      if (upstreamId === undefined) return Effect.void
      const rewritten = { ...message, params: { ...params, requestId: upstreamId } }
      const outgoing = legacyHost || !carriesModernEnvelope(message)
        ? stampModern(rewritten, hostClientInfo)
        : rewritten
      return channelOf(upstream).exchange(outgoing, () => undefined).pipe(
        Effect.catchAll((error) =>
          Effect.sync(() => log(`could not forward notifications/cancelled: ${error.message}`))
        )
      )
    }

    const handle = (message: JsonObject): Effect.Effect<void, never, FileInspector> => {
      const method = message["method"]
      const id = message["id"]
      if (typeof method !== "string") {
        if (isResponse(message)) {
          const ping = typeof id === "string" ? pings.get(id) : undefined
          return ping === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(ping, undefined))
        }
        return Effect.sync(() =>
          fail(isRequestId(id) ? id : null, -32600, "Invalid JSON-RPC message: it needs a method")
        )
      }
      if (id === undefined) {
        // Only a cancel means anything upstream; the server drops every other notification (wire contract §6).
        return method === "notifications/cancelled" ? forwardNotification(message) : Effect.void
      }
      if (!isRequestId(id)) {
        return Effect.sync(() => fail(null, -32600, "Invalid JSON-RPC request: the id must be a string or an integer"))
      }
      if (method === "initialize") {
        const params = isJsonObject(message["params"]) ? message["params"] : {}
        legacyHost = true
        hostClientInfo = isJsonObject(params["clientInfo"]) ? params["clientInfo"] : undefined
        return Effect.sync(() =>
          write({ jsonrpc: "2.0", id, result: initializeResult(upstream.server, params["protocolVersion"]) })
        )
      }
      // A legacy host's ping (and logging/setLevel, which the modern era lacks) is answered here as the server would.
      if (method === "ping" || (legacyHost && method === "logging/setLevel")) {
        return Effect.sync(() => write({ jsonrpc: "2.0", id, result: {} }))
      }
      return forwardRequest(message, id)
    }

    const onLine = (line: string): Effect.Effect<void, never, FileInspector> => {
      if (line.trim() === "") return Effect.void
      let parsed: Json
      try {
        parsed = JSON.parse(line) as Json
      } catch {
        return Effect.sync(() => fail(null, -32700, "Parse error: each stdin line must be one JSON-RPC message"))
      }
      if (!isJsonObject(parsed)) {
        return Effect.sync(() => fail(null, -32600, "Batches are not supported: send one JSON-RPC message per line"))
      }
      return handle(parsed)
    }

    const run = yield* FiberSet.makeRuntime<FileInspector>()
    const lines = readline.createInterface({ input: io.input, crlfDelay: Infinity })
    io.output.on("error", () => lines.close())
    lines.on("line", (line) => {
      const work = onLine(line)
      // A line answered (or dropped) while it was read needs no fiber.
      if (work !== Effect.void) run(work)
    })
    yield* Effect.async<void>((resume) => {
      lines.once("close", () => resume(Effect.void))
    })
  }))
