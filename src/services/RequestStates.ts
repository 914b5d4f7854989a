import { Clock, Effect } from "effect"
import { errors as joseErrors, jwtVerify, SignJWT } from "jose"
import { createHash, randomBytes } from "node:crypto"
import type { Json, JsonObject } from "../domain/Json.ts"
import { isJsonObject } from "../domain/Json.ts"
import type { Principal } from "../domain/Principal.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"

/** Wire contract §3.1 and §8: a `requestState` lives 5 minutes. */
export const REQUEST_STATE_LIFETIME_SECONDS = 300

/**
 * A base64url segment whose last character carries unused bits decodes to the same bytes with those bits flipped, so
 * a verifier alone would accept a changed state (C3.1-g): every segment must be the canonical encoding of its bytes.
 */
const isCanonicalCompact = (state: string): boolean =>
  state.split(".").every((segment) => Buffer.from(segment, "base64url").toString("base64url") === segment)

/**
 * Redeemed states remembered until they expire (for the single-use rule) at most. Forgetting one early would let it be
 * replayed, so past the bound a redemption is refused (429, retry in a minute) rather than an entry dropped; the rate
 * limits make this many redemptions in 5 minutes unlikely for anything but a flood.
 */
export const MAX_REDEEMED_STATES = 65_536

/** Stable JSON: object keys sorted, so the same params always give the same digest. */
export const canonicalJson = (value: Json): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (isJsonObject(value)) {
    return `{${
      Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as Json)}`).join(",")
    }}`
  }
  return JSON.stringify(value)
}

/** D-27: SHA-256 of the canonical params without `_meta`, `inputResponses` and `requestState`. */
export const paramsDigest = (params: JsonObject): string => {
  const { _meta: _a, inputResponses: _b, requestState: _c, ...rest } = params
  return createHash("sha256").update(canonicalJson(rest)).digest("base64url")
}

const principalFingerprint = (principal: Principal): string =>
  createHash("sha256").update(principal.key).digest("base64url").slice(0, 22)

const tampered = () =>
  ProtocolError.invalidParams("requestState is not valid for this call: repeat the original call without requestState")

/**
 * D-27: a compact JWS (HS256) signed with a random 256-bit key made
 * at process start, bound to the principal, the method and the params digest, expiring after 5
 * minutes (read from Effect's Clock), single use (a replayed nonce is refused). A restart invalidates all states.
 */
export class RequestStates extends Effect.Service<RequestStates>()("dbdesk/services/RequestStates", {
  sync: () => {
    const key = randomBytes(32)
    const usedNonces = new Map<string, number>()

    const issue = Effect.fn("RequestStates.issue")(function*(principal: Principal, method: string, params: JsonObject) {
      const now = yield* Clock.currentTimeMillis
      const seconds = Math.floor(now / 1000)
      return yield* Effect.promise(() =>
        new SignJWT({
          pf: principalFingerprint(principal),
          tid: principal.tokenId ?? null,
          m: method,
          d: paramsDigest(params),
          n: randomBytes(12).toString("base64url")
        })
          .setProtectedHeader({ alg: "HS256" })
          .setIssuedAt(seconds)
          .setExpirationTime(seconds + REQUEST_STATE_LIFETIME_SECONDS)
          .sign(key)
      )
    })

    /** Verifies a state for this principal, method and params, and consumes it. */
    const redeem = Effect.fn("RequestStates.redeem")(
      function*(principal: Principal, method: string, params: JsonObject, state: string) {
        const now = yield* Clock.currentTimeMillis
        if (!isCanonicalCompact(state)) return yield* tampered()
        const verified = yield* Effect.tryPromise({
          try: () => jwtVerify(state, key, { algorithms: ["HS256"], currentDate: new Date(now) }),
          catch: (error) =>
            error instanceof joseErrors.JWTExpired
              ? ProtocolError.invalidParams(
                "requestState has expired (older than 5 minutes): repeat the original call without requestState",
                { reason: "expired" }
              )
              : tampered()
        })
        const claims = verified.payload
        if (
          claims["pf"] !== principalFingerprint(principal) || claims["m"] !== method ||
          claims["d"] !== paramsDigest(params)
        ) return yield* tampered()
        const nonce = claims["n"]
        if (typeof nonce !== "string" || usedNonces.has(nonce)) return yield* tampered()
        for (const [used, expiry] of usedNonces) if (expiry * 1000 < now) usedNonces.delete(used)
        if (usedNonces.size >= MAX_REDEEMED_STATES) {
          return yield* new ProtocolError({
            code: -33010,
            message:
              `More than ${MAX_REDEEMED_STATES} approvals were answered in the last 5 minutes; retry in a minute`,
            data: { limit: MAX_REDEEMED_STATES, retryAfterSeconds: 60 },
            headers: { "retry-after": "60" }
          })
        }
        usedNonces.set(nonce, typeof claims.exp === "number" ? claims.exp : 0)
      }
    )

    return { issue, redeem } as const
  }
}) {}
