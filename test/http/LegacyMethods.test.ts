import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit, FastCheck } from "effect"
import type { MethodContext } from "../../src/http/McpMethod.ts"
import { LOGGING_LEVELS, LoggingSetLevelMethod } from "../../src/http/methods/LoggingSetLevel.ts"
import { negotiateLegacyVersion } from "../../src/http/methods/Initialize.ts"
import { anonymousPrincipal } from "../../src/domain/Principal.ts"

const SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18"]

const contextWith = (params: Record<string, any>): MethodContext => ({
  id: 1,
  method: "logging/setLevel",
  params,
  era: "legacy",
  envelope: undefined,
  principal: anonymousPrincipal("127.0.0.1"),
  clientInfo: undefined,
  remoteAddress: "127.0.0.1",
  progress: () => Effect.void
})

describe("legacy methods", () => {
  it.prop(
    "C3.3-b C9-a initialize accepts exactly 2025-11-25 and 2025-06-18; any other value is -32022 naming the versions served",
    [
      FastCheck.oneof(
        FastCheck.string(),
        FastCheck.constantFrom("2025-03-26", "2024-11-05", "2026-07-28", "2025-11-25 ", "2025-06-18"),
        FastCheck.integer(),
        FastCheck.constant(null)
      )
    ],
    ([requested]) => {
      const outcome = negotiateLegacyVersion({ protocolVersion: requested }, SUPPORTED)
      if (requested === "2025-11-25" || requested === "2025-06-18") {
        assert.deepStrictEqual(outcome, Either.right(requested))
      } else {
        if (Either.isRight(outcome)) return assert.fail(`accepted ${JSON.stringify(requested)}`)
        assert.strictEqual(outcome.left.code, -32022)
        assert.deepStrictEqual(outcome.left.data?.["supported"], SUPPORTED)
      }
    }
  )

  it.effect.prop("C4.3-d logging/setLevel acknowledges the eight syslog levels and refuses anything else with -32602", [
    FastCheck.oneof(FastCheck.constantFrom(...LOGGING_LEVELS), FastCheck.string(), FastCheck.integer())
  ], ([level]) =>
    Effect.gen(function*() {
      const method = yield* LoggingSetLevelMethod
      const exit = yield* Effect.exit(Effect.flatten(method.prepare(contextWith({ level }))))
      if (typeof level === "string" && LOGGING_LEVELS.includes(level)) {
        assert.deepStrictEqual(exit, Exit.succeed({}))
      } else {
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit) && exit.cause._tag === "Fail") assert.strictEqual(exit.cause.error.code, -32602)
        else assert.fail("expected a -32602 failure")
      }
    }))
})
