import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { PairingLockouts } from "../../src/services/AuthLockouts.ts"
import { loopbackRedirect, Pairing } from "../../src/services/Pairing.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { tempHome } from "../support/TestServer.ts"

const layer = () =>
  Pairing.Default.pipe(
    Layer.provide(Layer.mergeAll(Tokens.Default, PairingLockouts.Default)),
    Layer.provide(SupportPaths.layer(tempHome()))
  )
const verifier = () => randomBytes(40).toString("base64url")
const request = (v: string) => ({
  client: "Script",
  challenge: createHash("sha256").update(v).digest("base64url"),
  redirect: null,
  state: null,
  access: "readOnly" as const,
  connections: "all" as const,
  expiresInDays: null
})

describe("Pairing (D-35)", () => {
  it.effect("a code is good for 5 minutes: after that the exchange answers 410", () =>
    Effect.gen(function*() {
      const pairing = yield* Pairing
      const v = verifier()
      const { code } = yield* pairing.approve(request(v))
      yield* TestClock.adjust("299 seconds")
      const early = yield* pairing.approve(request(v))
      expect((yield* pairing.exchange({ code: early.code, code_verifier: v }, "a"))._tag).toBe("Token")
      yield* TestClock.adjust("2 seconds")
      expect(yield* pairing.exchange({ code, code_verifier: v }, "a")).toEqual({
        _tag: "Refused",
        status: 410,
        message: "Pairing code expired; pair again."
      })
    }).pipe(Effect.provide(layer())))

  it.effect("C5-j 5 failed exchanges within 300 s lock the address out for 900 s with Retry-After; another address is not locked", () =>
    Effect.gen(function*() {
      const pairing = yield* Pairing
      for (let i = 0; i < 5; i++) {
        expect((yield* pairing.exchange({ code: "nope", code_verifier: verifier() }, "a")).status).toBe(404)
      }
      const v = verifier()
      const { code } = yield* pairing.approve(request(v))
      expect(yield* pairing.exchange({ code, code_verifier: v }, "a")).toEqual({
        _tag: "Refused",
        status: 429,
        message: expect.stringContaining("Too many"),
        retryAfterSeconds: 900
      })
      expect((yield* pairing.exchange({ code, code_verifier: v }, "b"))._tag).toBe("Token")
      yield* TestClock.adjust("900 seconds")
      expect((yield* pairing.exchange({ code: "nope", code_verifier: verifier() }, "a")).status).toBe(404)
    }).pipe(Effect.provide(layer())))

  it.effect("refuses a challenge that is not a SHA-256, a redirect off this computer, and no connection", () =>
    Effect.gen(function*() {
      const pairing = yield* Pairing
      const v = verifier()
      expect(yield* Effect.flip(pairing.approve({ ...request(v), challenge: "short" }))).toContain("challenge")
      expect(yield* Effect.flip(pairing.approve({ ...request(v), redirect: "https://example.com/cb" }))).toContain(
        "only be sent to this computer"
      )
      expect(yield* Effect.flip(pairing.approve({ ...request(v), connections: [] }))).toContain(
        "at least one connection"
      )
      expect(loopbackRedirect("http://127.0.0.1:8080/cb")).toBe(true)
      expect(loopbackRedirect("http://user:pw@localhost/cb")).toBe(false)
      expect(loopbackRedirect("http://127.0.0.1.example.com/cb")).toBe(false)
      const { redirectTo } = yield* pairing.approve({
        ...request(v),
        redirect: "http://localhost:9/cb?x=1",
        state: "s t"
      })
      expect(redirectTo).toMatch(/^http:\/\/localhost:9\/cb\?x=1&code=[0-9a-f-]{36}&state=s\+t$/)
    }).pipe(Effect.provide(layer())))
})
