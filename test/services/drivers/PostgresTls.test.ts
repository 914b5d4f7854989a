import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { DatabaseDriver } from "../../../src/services/drivers/Driver.ts"
import { makePostgresDriver, type PostgresSettings } from "../../../src/services/drivers/PostgresDriver.ts"
import { type PostgresServer, startPostgres } from "../../support/PostgresHarness.ts"
import { describePostgres } from "../../support/PostgresSuite.ts"
import { makeCa, type TestCa } from "../../support/TestCa.ts"

const read = { maxRows: 10, timeoutSeconds: 30, access: "readonly" } as const
const CERT_USER = "dbdesk_cert"

// The server's certificate names `localhost` only, so 127.0.0.1 is the wrong name for verify-full.
describePostgres("PostgreSQL over TLS with a CA and client certificates", () => {
  let server: PostgresServer
  let ca: TestCa
  let otherCa: TestCa
  let base: PostgresSettings

  beforeAll(async () => {
    ca = makeCa()
    otherCa = makeCa("another CA")
    const issued = ca.server("localhost", ["DNS:localhost"])
    server = await startPostgres({ tls: { ca: ca.ca, cert: issued.cert, key: issued.key, certUser: CERT_USER } })
    base = {
      name: "Vault",
      host: "localhost",
      port: server.port,
      database: server.database,
      user: server.user,
      password: server.password,
      sslMode: "verify-full",
      tls: { ca: ca.ca },
      secrets: [server.password]
    }
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    ca?.remove()
    otherCa?.remove()
  }, 60_000)

  const withDriver = <A, E>(
    overrides: Partial<PostgresSettings>,
    use: (driver: DatabaseDriver) => Effect.Effect<A, E>,
    from: PostgresSettings = base
  ) => Effect.acquireUseRelease(makePostgresDriver({ ...from, ...overrides }), use, (driver) => driver.close())
  const sslOfSession = (overrides: Partial<PostgresSettings>) =>
    withDriver(overrides, (driver) => driver.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", read))
  const failure = (overrides: Partial<PostgresSettings>) =>
    withDriver(overrides, (driver) => Effect.flip(driver.execute("SELECT 1", read)))

  it.live(
    "verify-full with the CA file answers over TLS when the host is a name the certificate holds",
    () =>
      Effect.gen(function*() {
        expect((yield* sslOfSession({})).rows).toEqual([[true]])
      }),
    60_000
  )

  it.live(
    "verify-full with another CA fails saying the certificate is not signed by the CA in that file",
    () =>
      Effect.gen(function*() {
        const error = yield* failure({ tls: { ca: otherCa.ca } })
        expect(error._tag).toBe("NotConnected")
        expect(error.message).toContain(`the server's certificate is not signed by the CA in ${otherCa.ca}`)
        expect(error.message).toContain("'Vault'")
      }),
    60_000
  )

  it.live(
    "verify-full by 127.0.0.1 fails naming the certificate's names and the one the connection uses",
    () =>
      Effect.gen(function*() {
        const error = yield* failure({ host: "127.0.0.1" })
        expect(error.message).toContain("the server's certificate is for localhost but the connection uses 127.0.0.1")
      }),
    60_000
  )

  it.live(
    "verify-ca checks the CA but not the name: 127.0.0.1 answers, another CA still fails",
    () =>
      Effect.gen(function*() {
        expect((yield* sslOfSession({ host: "127.0.0.1", sslMode: "verify-ca" })).rows).toEqual([[true]])
        const error = yield* failure({ host: "127.0.0.1", sslMode: "verify-ca", tls: { ca: otherCa.ca } })
        expect(error.message).toContain(`not signed by the CA in ${otherCa.ca}`)
      }),
    60_000
  )

  it.live(
    "require with a CA file checks the certificate against it, as libpq does; require without one does not check",
    () =>
      Effect.gen(function*() {
        const error = yield* failure({ sslMode: "require", tls: { ca: otherCa.ca } })
        expect(error.message).toContain(`not signed by the CA in ${otherCa.ca}`)
        expect((yield* sslOfSession({ host: "127.0.0.1", sslMode: "require", tls: {} })).rows).toEqual([[true]])
      }),
    60_000
  )

  it.live(
    "a client certificate logs in a role the server admits by certificate only (hostssl … cert)",
    () =>
      Effect.gen(function*() {
        const client = ca.client(CERT_USER)
        const { password: _, ...noPassword } = base
        const settings = { ...noPassword, user: CERT_USER, secrets: [] }
        const answer = yield* withDriver(
          { tls: { ca: ca.ca, cert: client.cert, key: client.key } },
          (driver) => driver.execute("SELECT current_user", read),
          settings
        )
        expect(answer.rows).toEqual([[CERT_USER]])
        const refused = yield* withDriver({}, (driver) => Effect.flip(driver.execute("SELECT 1", read)), settings)
        expect(refused._tag).toBe("NotConnected")
      }),
    60_000
  )

  it.live(
    "an encrypted client key opens with its passphrase; a wrong passphrase is named, never shown",
    () =>
      Effect.gen(function*() {
        const client = ca.client(CERT_USER, "s3cret-phrase")
        const { password: _, ...noPassword } = base
        const settings = {
          ...noPassword,
          user: CERT_USER,
          tls: { ca: ca.ca, cert: client.cert, key: client.key, passphrase: "s3cret-phrase" },
          secrets: ["s3cret-phrase"]
        }
        expect((yield* withDriver({}, (driver) => driver.execute("SELECT current_user", read), settings)).rows).toEqual(
          [[CERT_USER]]
        )
        const wrong = yield* withDriver(
          { tls: { ...settings.tls, passphrase: "not-it" }, secrets: ["not-it"] },
          (driver) => Effect.flip(driver.execute("SELECT 1", read)),
          settings
        )
        expect(wrong.message).toContain(`the client key ${client.key} cannot be decrypted`)
        expect(wrong.message).not.toContain("not-it")
      }),
    60_000
  )

  it.live("a CA file that does not exist is named in the error", () =>
    Effect.gen(function*() {
      const error = yield* failure({ tls: { ca: "/nonexistent/ca.pem" } })
      expect(error.message).toContain("the CA certificate file /nonexistent/ca.pem cannot be read (it does not exist)")
    }), 60_000)
})
