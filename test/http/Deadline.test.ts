import { it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, TestClock } from "effect"
import { describe, expect } from "vitest"
import { McpDispatcher } from "../../src/http/McpDispatcher.ts"
import { makeServerLayer } from "../../src/http/Server.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Approvals } from "../../src/services/Approvals.ts"
import { Connections } from "../../src/services/Connections.ts"
import { RequestRegistry } from "../../src/services/RequestRegistry.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { modernRequest, tempHome } from "../support/TestServer.ts"

/** The whole server, driven through its dispatcher (no socket), with TestClock as the clock. */
const dispatcherUnderTestClock = Effect.gen(function*() {
  const context = yield* Layer.build(
    makeServerLayer({ home: tempHome(), settings: { mcp: { port: 0 } }, approvalPrompt: ApprovalPrompt.uiOnly })
  )
  const connection = (yield* Context.get(context, Connections).list)[0]!
  const token =
    (yield* Context.get(context, Tokens).create({ name: "deadline", access: "readWrite", connections: "all" })).value
  const post = (body: unknown) =>
    Context.get(context, McpDispatcher).handle({
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "execute_query",
        authorization: `Bearer ${token}`
      },
      body: JSON.stringify(body),
      remoteAddress: "127.0.0.1"
    })
  return { context, connection, post }
})

/** Polls in real time (never TestClock time), at most 10 s: a wait on an event that may never come. */
const untilReal = (condition: () => boolean) =>
  Effect.promise(async () => {
    for (let wait = 0; wait < 400 && !condition(); wait++) await new Promise((resolve) => setTimeout(resolve, 25))
  })

describe("the 330 s handler deadline (wire contract §3.2, §8)", () => {
  it.scoped(
    "C3.2-c a call still waiting at 330 s ends -33003 with data.deadline handler, its dialog withdrawn and the registry empty",
    () =>
      Effect.gen(function*() {
        const { connection, context, post } = yield* dispatcherUnderTestClock
        const registry = Context.get(context, RequestRegistry)
        const approvals = Context.get(context, Approvals)
        const fiber = yield* Effect.fork(
          post(
            modernRequest("tools/call", {
              name: "execute_query",
              arguments: { connection_id: connection.id, query: "UPDATE products SET stock = 0" }
            }, 77)
          )
        )
        yield* untilReal(() => Effect.runSync(registry.size) === 1)
        yield* TestClock.adjust("329 seconds")
        expect(fiber.unsafePoll()).toBeNull()
        expect(yield* approvals.list).toHaveLength(1)
        yield* TestClock.adjust("2 seconds")
        // Waited for in real time, bounded: a deadline that does not fire fails here, naming the rule.
        yield* untilReal(() => fiber.unsafePoll() !== null)
        const ended = fiber.unsafePoll() !== null
        // Stopped first, so the failure below is reported instead of the server's shutdown waiting on the call.
        if (!ended) yield* Fiber.interrupt(fiber)
        expect(
          ended,
          "C3.2-c the call was still running 331 s after it started: the 330 s handler deadline did not end it"
        ).toBe(true)
        const response = yield* Fiber.join(fiber)
        expect(response.kind).toBe("json")
        if (response.kind !== "json") return
        expect(response.status).toBe(200)
        expect(response.body).toMatchObject({
          id: 77,
          error: { code: -33003, data: { deadline: "handler", seconds: 330 } }
        })
        expect(yield* registry.size).toBe(0)
        expect(yield* approvals.list).toHaveLength(0)
      }),
    { timeout: 60_000 }
  )
})
