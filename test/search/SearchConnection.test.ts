import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck, Redacted } from "effect"
import {
  decodeSearchConnectionForm,
  defaultSearchPort,
  SearchConnectionSettings,
  type SearchSslMode,
  settingsProblems
} from "../../src/domain/SearchConnection.ts"

describe("search connection settings", () => {
  it.effect("S2.1-a host and key make a connection; the port follows the SSL mode; Disabled is HTTP", () =>
    Effect.gen(function*() {
      const plain = yield* decodeSearchConnectionForm({ host: "search.local", apiKey: "k" })
      expect([plain.port, plain.sslMode, plain.scheme, plain.skipTlsVerification]).toEqual([
        8108,
        "Disabled",
        "http",
        false
      ])
      const tls = yield* decodeSearchConnectionForm({
        host: "x.a1.typesense.net",
        port: "",
        apiKey: "k",
        sslMode: "Required"
      })
      expect([tls.port, tls.scheme, tls.origin]).toEqual([443, "https", "https://x.a1.typesense.net:443"])
      const ipv6 = yield* decodeSearchConnectionForm({ host: "::1", port: 9000, apiKey: "k", sslMode: "VerifyCA" })
      expect(ipv6.origin).toBe("https://[::1]:9000")
    }))

  it.effect("S2.1-a S1-c bad fields are reported together, in words a person can act on", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        decodeSearchConnectionForm({ host: "https://x.example", port: 70000, apiKey: "k" })
      )
      expect(settingsProblems(error)).toEqual([
        "host: Enter the host name only, without http:// or https://.",
        "port: The port must be a whole number from 1 to 65535."
      ])
      const empty = yield* Effect.flip(decodeSearchConnectionForm({ host: "  ", apiKey: "k" }))
      expect(settingsProblems(empty)).toEqual(["host: Host is required."])
      const database = yield* decodeSearchConnectionForm({ host: "h", apiKey: "k", database: "ignored" })
      assert.isFalse("database" in database)
    }))

  it("S5-c S1-c the fields are one cluster's: no database, SSH, tunnel or proxy settings", () => {
    expect(Object.keys(SearchConnectionSettings.fields)).toEqual([
      "host",
      "port",
      "apiKey",
      "sslMode",
      "skipTlsVerification",
      "cluster"
    ])
    // D-59: the cluster's nodes and the official client's retry and health-check settings, nothing else
    const cluster = SearchConnectionSettings.fields.cluster.from as unknown as { fields: Record<string, unknown> }
    expect(Object.keys(cluster.fields)).toEqual([
      "nodes",
      "nearestNode",
      "healthcheckIntervalSeconds",
      "numRetries",
      "retryIntervalSeconds",
      "connectionTimeoutSeconds",
      "randomizeNodes"
    ])
  })

  it.effect("S5-a the API key is the only credential and never prints", () =>
    Effect.gen(function*() {
      const settings = yield* decodeSearchConnectionForm({ host: "h", apiKey: "super-secret-key" })
      assert.strictEqual(Redacted.value(settings.apiKey), "super-secret-key")
      assert.notInclude(String(settings), "super-secret-key")
      assert.notInclude(JSON.stringify(settings), "super-secret-key")
      assert.notInclude(`${settings.apiKey}`, "super-secret-key")
    }))

  it.prop("S2.1-a any SSL mode other than Disabled is HTTPS with port 443 by default", [
    FastCheck.constantFrom<SearchSslMode>("Disabled", "Preferred", "Required", "VerifyCA", "VerifyIdentity")
  ], ([sslMode]) => {
    const settings = Effect.runSync(Effect.either(decodeSearchConnectionForm({ host: "h", apiKey: "k", sslMode })))
    assert.isTrue(Either.isRight(settings))
    if (Either.isLeft(settings)) return
    assert.strictEqual(settings.right.scheme, sslMode === "Disabled" ? "http" : "https")
    assert.strictEqual(settings.right.port, defaultSearchPort(sslMode))
    assert.instanceOf(settings.right, SearchConnectionSettings)
  })
})
