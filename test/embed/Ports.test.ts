import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, FastCheck, Layer } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { ActivityCategory, ActivityQuery } from "../../src/domain/Activity.ts"
import { ActivityLog, ActivitySink, SupportPaths, Tokens, TokenStore, type UnchainedActivity } from "../../src/index.ts"
import { verifyChain } from "../../src/services/activity/ChainVerifier.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { startTestServer, tempHome } from "../support/TestServer.ts"

/**
 * D-77: the Effect API's storage ports. A host replaces the token store and the activity sink with its
 * own; the in-memory ones dbdesk ships keep nothing on disk and behave as the file-backed defaults.
 */
describe("storage ports (D-77)", () => {
  it("a host's token store and activity sink replace tokens.json and activity.db; tokens authenticate and the chain verifies", async () => {
    const server = await startTestServer({
      ui: false,
      tokenStore: TokenStore.memory(),
      activitySink: ActivitySink.memory()
    })
    try {
      const tokens = Context.get(server.context, Tokens)
      const { value } = await Effect.runPromise(tokens.create({ name: "host", access: "readOnly", connections: "all" }))
      const client = await connectModernClient(server.url, { token: value })
      await client.callTool({ name: "list_connections", arguments: {} })
      await client.close()
      const log = Context.get(server.context, ActivityLog)
      await Effect.runPromise(log.flush)
      const rows = await Effect.runPromise(log.list({ limit: 100 }))
      expect(rows.map((row) => row.action)).toContain("tool.call")
      expect(await Effect.runPromise(log.verify)).toEqual({ ok: true, rows: rows.length })
      expect(existsSync(join(server.home, "tokens.json"))).toBe(false)
      expect(existsSync(join(server.home, "activity.db"))).toBe(false)
    } finally {
      await server.stop()
    }
  })

  const sinkOf = (layer: Layer.Layer<ActivitySink, never, SupportPaths>) =>
    Effect.map(
      Layer.build(layer.pipe(Layer.provide(SupportPaths.layer(tempHome())))),
      (context) => Context.get(context, ActivitySink)
    )

  const category = FastCheck.constantFrom<ActivityCategory>("auth", "token", "tool")
  const event = FastCheck.record({
    at: FastCheck.integer({ min: 0, max: 9 }).map((day) => `2026-01-0${day}T00:00:00.000Z`),
    category,
    tokenId: FastCheck.constantFrom(null, "t1", "t2"),
    clientName: FastCheck.constantFrom(null, "a", "b")
  })
  const query = FastCheck.record({
    since: FastCheck.option(FastCheck.constant("2026-01-03T00:00:00.000Z"), { nil: undefined }),
    category: FastCheck.option(category, { nil: undefined }),
    tokenId: FastCheck.option(FastCheck.constantFrom("t1", "t2"), { nil: undefined }),
    client: FastCheck.option(FastCheck.constantFrom("a", "b"), { nil: undefined }),
    limit: FastCheck.integer({ min: 1, max: 30 })
  }, { requiredKeys: ["limit"] })

  const row = (
    fields: { at: string; category: ActivityCategory; tokenId: string | null; clientName: string | null }
  ): UnchainedActivity => ({
    ...fields,
    action: `${fields.category}.x`,
    outcome: null,
    tokenName: null,
    clientVersion: null,
    clientTitle: null,
    address: null,
    connectionId: null,
    subject: null,
    durationMs: null,
    digest: null,
    details: null,
    traceparent: null,
    tracestate: null,
    baggage: null
  })

  it.scoped.prop(
    "the memory sink chains, prunes and filters exactly as activity.db does (same rows, same hashes)",
    [
      FastCheck.array(FastCheck.array(event, { minLength: 1, maxLength: 5 }), { maxLength: 6 }),
      query,
      FastCheck.integer({ min: 0, max: 9 })
    ],
    ([batches, filter, pruneDay]) =>
      Effect.gen(function*() {
        const sinks = [yield* sinkOf(ActivitySink.sqlite), yield* sinkOf(ActivitySink.memory())]
        const results = yield* Effect.forEach(sinks, (sink) =>
          Effect.gen(function*() {
            for (const batch of batches) yield* Effect.orDie(sink.append(batch.map(row)))
            yield* sink.prune(`2026-01-0${pruneDay}T00:00:00.000Z`)
            const chain = yield* sink.chain
            return {
              selected: yield* sink.query(filter as ActivityQuery),
              chain,
              verdict: verifyChain(chain.rows, chain.anchor, chain.head)
            }
          }))
        expect(results[1]).toEqual(results[0])
        expect(results[0]!.verdict.ok).toBe(true)
      }),
    { fastCheck: { numRuns: 40 } }
  )
})
