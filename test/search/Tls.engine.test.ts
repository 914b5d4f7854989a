import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { connect, listCollections } from "../../src/search/SearchServer.ts"
import { startEngine } from "../support/engine/index.ts"
import type { RunningEngine } from "../support/engine/index.ts"
import { clientFor } from "./EngineHelpers.ts"

describe.each([26, 29] as const)("TLS against the HTTPS engine v%i", (version) => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine({ version, https: true })
  })
  afterAll(() => engine.stop())

  it.scoped("S2.1-a Skip TLS Verification accepts the self-signed certificate for its own connection only", () =>
    Effect.gen(function*() {
      const skipping = yield* clientFor(engine, { sslMode: "Required", skipTlsVerification: true })
      const verifying = yield* clientFor(engine, { sslMode: "Required" })
      expect(skipping.settings.origin).toBe(engine.url)
      const info = yield* connect(skipping)
      expect(info.version).toMatch(new RegExp(`^${version}\\.`))
      expect((yield* listCollections(skipping)).collections).toEqual([])
      // the second connection, open at the same time, still refuses the certificate: nothing is process-wide
      const refused = yield* Effect.flip(connect(verifying))
      expect(refused._tag === "SearchEngineError" && refused.reason).toBe("Transport")
      expect(refused.message).toMatch(/certificate/i)
      expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBeUndefined()
      const again = yield* connect(skipping)
      expect(again.version).toBe(info.version)
    }))

  it.scoped("S2.1-a every verifying SSL mode refuses the self-signed certificate; Disabled speaks plain HTTP", () =>
    Effect.gen(function*() {
      for (const sslMode of ["Preferred", "VerifyCA", "VerifyIdentity"] as const) {
        const error = yield* Effect.flip(connect(yield* clientFor(engine, { sslMode })))
        expect([sslMode, error._tag === "SearchEngineError" && error.reason]).toEqual([sslMode, "Transport"])
      }
      const plain = yield* clientFor(engine, { sslMode: "Disabled" })
      expect(plain.settings.origin).toBe(`http://${engine.host}:${engine.port}`)
      const error = yield* Effect.flip(connect(plain))
      expect(error._tag).toBe("SearchEngineError")
    }))
})
