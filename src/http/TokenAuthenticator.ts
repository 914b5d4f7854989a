import { Effect, Layer, Stream } from "effect"
import { createHash } from "node:crypto"
import { anonymousPrincipal, tokenPrincipal } from "../domain/Principal.ts"
import { ActivityLog } from "../services/ActivityLog.ts"
import { AuthLockouts } from "../services/AuthLockouts.ts"
import { RequestRegistry } from "../services/RequestRegistry.ts"
import { rateLimited } from "../services/RateLimits.ts"
import { SettingsStore } from "../services/Settings.ts"
import { Tokens } from "../services/Tokens.ts"
import { expiredToken, invalidToken, missingToken } from "../domain/AuthChallenges.ts"
import { Authenticator } from "./Authenticator.ts"
import type { McpHttpRequest } from "./McpHttp.ts"

export { tokenPrincipal } from "../domain/Principal.ts"

/** Lockouts are keyed by a digest of what was presented, so the value itself is never held as a key. */
export const presentedFingerprint = (presented: string): string =>
  createHash("sha256").update(presented).digest("hex").slice(0, 16)

type Presented =
  | { readonly kind: "absent" }
  | { readonly kind: "malformed"; readonly raw: string }
  | { readonly kind: "bearer"; readonly value: string; readonly raw: string }

/** Wire contract §4.2: `Authorization: Bearer <ACCESS_TOKEN>`. */
export const presentedCredential = (header: string | undefined): Presented => {
  if (header === undefined || header.trim() === "") return { kind: "absent" }
  const bearer = /^Bearer +(\S+) *$/i.exec(header)
  return bearer === null ? { kind: "malformed", raw: header } : { kind: "bearer", value: bearer[1]!, raw: bearer[1]! }
}

/**
 * The bearer-token Authenticator (wire contract §5, D-33):
 * no-scope methods and, with `mcp.requireAuth` off, requests without `Authorization` run as the
 * anonymous loopback principal; a presented header is always validated. Failed attempts count
 * per (address, presented-token fingerprint) and lock that pair out (§5 point 10).
 */
export const TokenAuthenticatorLive = Layer.effect(
  Authenticator,
  Effect.gen(function*() {
    const tokens = yield* Tokens
    const lockouts = yield* AuthLockouts
    const settings = yield* SettingsStore
    const log = yield* ActivityLog

    /** Product-decisions §6: an authentication failure with its reason, and the lockout it may start. */
    const failed = (pair: string | undefined, address: string, reason: string) =>
      Effect.gen(function*() {
        yield* log.record({
          category: "auth",
          action: "auth.failure",
          outcome: "denied",
          address,
          details: `reason=${reason}`
        })
        if (pair === undefined) return
        yield* lockouts.fail(pair)
        const after = yield* lockouts.status(pair)
        if (after.locked) {
          yield* log.record({
            category: "auth",
            action: "auth.lockout",
            outcome: "denied",
            address,
            details: `retryAfter=${after.retryAfterSeconds}`
          })
        }
      })

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const verifyCaller = Effect.fnUntraced(
      function*(request: McpHttpRequest, method: { readonly scopes: ReadonlyArray<string> }) {
        const presented = presentedCredential(request.headers["authorization"])
        if (presented.kind === "absent") {
          const { mcp } = yield* settings.current
          if (!mcp.requireAuth || method.scopes.length === 0) return anonymousPrincipal(request.remoteAddress)
          return yield* Effect.zipRight(failed(undefined, request.remoteAddress, "missing_token"), missingToken())
        }
        // With no failure counted anywhere (the usual case) no pair can be locked or need clearing: the digest waits,
        // and is taken once when needed.
        let digested: string | undefined
        const pair = () => (digested ??= `${request.remoteAddress}|${presentedFingerprint(presented.raw)}`)
        const lockout = lockouts.size() > 0 ? yield* lockouts.status(pair()) : undefined
        if (lockout?.locked === true) {
          return yield* rateLimited(
            "Too many failed authentication attempts with this token from this address",
            lockout.retryAfterSeconds,
            "authenticationFailures"
          )
        }
        if (presented.kind === "malformed") {
          yield* failed(pair(), request.remoteAddress, "invalid_authorization_scheme")
          return yield* invalidToken()
        }
        const verification = yield* tokens.verify(presented.value).pipe(Effect.orDie)
        switch (verification.kind) {
          case "valid":
            if (lockouts.size() > 0) yield* lockouts.succeed(pair())
            return tokenPrincipal(verification.token)
          case "expired":
            yield* failed(pair(), request.remoteAddress, "expired_token")
            return yield* expiredToken()
          default:
            yield* failed(pair(), request.remoteAddress, `${verification.kind}_token`)
            return yield* invalidToken()
        }
      }
    )

    /**
     * Product-decisions §5: `subscriptions/listen` without a valid token is not refused; the
     * acknowledgement honours nothing and the stream ends with the graceful result.
     */
    const authenticate = (
      request: McpHttpRequest,
      method: { readonly name?: string; readonly scopes: ReadonlyArray<string> }
    ) =>
      method.name === "subscriptions/listen"
        ? Effect.catchAll(
          verifyCaller(request, method),
          () => Effect.succeed(anonymousPrincipal(request.remoteAddress))
        )
        : verifyCaller(request, method)

    /** Product-decisions §4 "Notifications": a token only decides whether a cancel is acted on; never fails. */
    const identifyNotifier = (request: McpHttpRequest) =>
      Effect.gen(function*() {
        const presented = presentedCredential(request.headers["authorization"])
        if (presented.kind === "absent") return anonymousPrincipal(request.remoteAddress)
        if (presented.kind === "malformed") return undefined
        const verification = yield* tokens.verify(presented.value)
        return verification.kind === "valid" ? tokenPrincipal(verification.token) : undefined
      }).pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))

    return Authenticator.of({ authenticate, identifyNotifier })
  })
)

/** Wire contract §3.2 / §5 point 9: revoking (or deleting) a token cancels its in-flight requests. */
export const RevocationCancelsRequests = Layer.scopedDiscard(Effect.gen(function*() {
  const tokens = yield* Tokens
  const registry = yield* RequestRegistry
  const revoked = yield* tokens.subscribeRevocations
  yield* Effect.forkScoped(
    Stream.runForEach(revoked, (tokenId) => registry.cancelWhere((key) => key === `token:${tokenId}`))
  )
}))
