import { Clock, Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import type { AccessLevel } from "../domain/Principal.ts"
import { PairingLockouts } from "./AuthLockouts.ts"
import { Tokens } from "./Tokens.ts"

/** D-35: a code is good for 5 minutes; at most this many wait at once. */
export const PAIRING_CODE_MS = 300_000
export const MAX_PENDING_CODES = 50

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/
const DAY_MS = 86_400_000

export interface PairingRequest {
  readonly client: string
  readonly challenge: string
  readonly redirect: string | null
  readonly state: string | null
  readonly access: AccessLevel
  readonly connections: "all" | ReadonlyArray<string>
  readonly expiresInDays: number | null
}

export type PairingRefusal = {
  readonly status: 400 | 403 | 404 | 410 | 429
  readonly message: string
  readonly retryAfterSeconds?: number
}

/** Only a loopback address may receive the code (a page elsewhere must never learn it). */
export const loopbackRedirect = (redirect: string): boolean => {
  try {
    const url = new URL(redirect)
    return (url.protocol === "http:" || url.protocol === "https:") &&
      ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname) && url.username === "" && url.password === ""
  } catch {
    return false
  }
}

export const pkceChallenge = (verifier: string): string => createHash("sha256").update(verifier).digest("base64url")

/**
 * The pairing flow of the UI server (D-35): a client opens `/pair?client=…&challenge=…`
 * in the UI, the user approves level, connections and expiry, and the client exchanges the code with its PKCE
 * verifier for a token. The token is minted at the exchange, so an unused approval leaves none behind. Failed
 * exchanges count toward the pairing lockout (5 per 300 s → 900 s).
 */
export class Pairing extends Effect.Service<Pairing>()("dbdesk/services/Pairing", {
  effect: Effect.gen(function*() {
    const tokens = yield* Tokens
    const lockouts = yield* PairingLockouts
    const pending = new Map<string, PairingRequest & { readonly expiresAt: number }>()

    const approve = Effect.fn("Pairing.approve")(function*(request: PairingRequest) {
      const now = yield* Clock.currentTimeMillis
      for (const [code, entry] of pending) if (entry.expiresAt <= now) pending.delete(code)
      if (request.client.trim() === "") {
        return yield* Effect.fail("The pairing link names no client; start the pairing again from the client.")
      }
      if (!CHALLENGE.test(request.challenge)) {
        return yield* Effect.fail(
          "The pairing link's challenge is not a base64url SHA-256 (43 characters); start the pairing again from the client."
        )
      }
      if (request.redirect !== null && !loopbackRedirect(request.redirect)) {
        return yield* Effect.fail(
          `The code can only be sent to this computer (a 127.0.0.1 or localhost address), not to ${request.redirect}.`
        )
      }
      if (request.connections !== "all" && request.connections.length === 0) {
        return yield* Effect.fail("Choose at least one connection, or all connections.")
      }
      if (pending.size >= MAX_PENDING_CODES) {
        return yield* Effect.fail("Too many pairings are waiting to be finished; try again in a few minutes.")
      }
      const code = randomUUID()
      const expiresAt = now + PAIRING_CODE_MS
      pending.set(code, { ...request, client: request.client.trim(), expiresAt })
      const redirectTo = request.redirect === null
        ? null
        : withParams(request.redirect, { code, ...(request.state === null ? {} : { state: request.state }) })
      return { code, expiresAt: new Date(expiresAt).toISOString(), redirectTo }
    })

    /** `POST /api/pairing/exchange {code, code_verifier}` → the token, or a refusal with its HTTP status. */
    const exchange = Effect.fn("Pairing.exchange")(function*(body: unknown, address: string) {
      const locked = yield* lockouts.status(address)
      if (locked.locked) {
        return {
          _tag: "Refused",
          status: 429,
          message: "Too many failed pairing attempts; wait before trying again.",
          retryAfterSeconds: locked.retryAfterSeconds
        } as const
      }
      const refuse = (status: PairingRefusal["status"], message: string) =>
        Effect.as(lockouts.fail(address), { _tag: "Refused", status, message } as const)
      const fields = typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
      const code = fields["code"]
      const verifier = fields["code_verifier"]
      if (typeof code !== "string" || typeof verifier !== "string" || !VERIFIER.test(verifier)) {
        return yield* refuse(
          400,
          "Send {\"code\", \"code_verifier\"}: the verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~."
        )
      }
      const entry = pending.get(code)
      if (entry === undefined) return yield* refuse(404, "Pairing code not found.")
      const now = yield* Clock.currentTimeMillis
      if (entry.expiresAt <= now) {
        pending.delete(code)
        return yield* refuse(410, "Pairing code expired; pair again.")
      }
      // one try per code: a wrong verifier burns it
      pending.delete(code)
      if (pkceChallenge(verifier) !== entry.challenge) {
        return yield* refuse(403, "Challenge mismatch: the verifier does not match the challenge of this pairing.")
      }
      const created = yield* tokens.create({
        name: entry.client,
        access: entry.access,
        connections: entry.connections === "all" ? "all" : [...entry.connections],
        expiresAt: entry.expiresInDays === null ? undefined : new Date(now + entry.expiresInDays * DAY_MS)
      })
      yield* lockouts.succeed(address)
      return {
        _tag: "Token",
        token: created.value,
        access: entry.access,
        expiresAt: created.token.expiresAt ?? null
      } as const
    })

    return { approve, exchange } as const
  })
}) {}

const withParams = (base: string, params: Record<string, string>): string => {
  const url = new URL(base)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return url.toString()
}
