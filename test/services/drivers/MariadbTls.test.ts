import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { DatabaseDriver } from "../../../src/services/drivers/Driver.ts"
import { makeMysqlDriver, type MysqlSettings } from "../../../src/services/drivers/MysqlDriver.ts"
import { type MariadbServer, startMariadb } from "../../support/MariadbHarness.ts"
import { describeMariadb } from "../../support/MariadbSuite.ts"
import { makeCa, type TestCa } from "../../support/TestCa.ts"

const read = { maxRows: 10, timeoutSeconds: 30, access: "readonly" } as const
const X509_USER = "dbdesk_x509"

// The server's certificate names `localhost` only, so 127.0.0.1 is the wrong name for verify-full.
describeMariadb("MariaDB over TLS with a CA and client certificates", () => {
  let server: MariadbServer
  let ca: TestCa
  let otherCa: TestCa
  let base: MysqlSettings

  beforeAll(async () => {
    ca = makeCa()
    otherCa = makeCa("another CA")
    const issued = ca.server("localhost", ["DNS:localhost"])
    server = await startMariadb({ tls: { ca: ca.ca, cert: issued.cert, key: issued.key } })
    await server.admin().query(
      `CREATE USER '${X509_USER}'@'127.0.0.1' REQUIRE X509; GRANT SELECT ON ${server.database}.* TO '${X509_USER}'@'127.0.0.1'`
    )
    base = {
      name: "Ledger",
      host: "localhost",
      port: server.port,
      user: server.user,
      password: server.password,
      database: server.database,
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
    overrides: Partial<MysqlSettings>,
    use: (driver: DatabaseDriver) => Effect.Effect<A, E>,
    from: MysqlSettings = base
  ) => Effect.acquireUseRelease(makeMysqlDriver({ ...from, ...overrides }), use, (driver) => driver.close())
  const cipher = (overrides: Partial<MysqlSettings>) =>
    withDriver(overrides, (driver) => driver.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'", read))
  const failure = (overrides: Partial<MysqlSettings>) =>
    withDriver(overrides, (driver) => Effect.flip(driver.execute("SELECT 1", read)))

  it.live(
    "verify-full (verify the identity) with the CA file answers over TLS when the host is a name the certificate holds",
    () =>
      Effect.gen(function*() {
        const rows = (yield* cipher({})).rows
        expect(String(rows[0]?.[1] ?? "")).not.toBe("")
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
        expect(error.message).toContain("'Ledger'")
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
        expect(String((yield* cipher({ host: "127.0.0.1", sslMode: "verify-ca" })).rows[0]?.[1] ?? "")).not.toBe("")
        const error = yield* failure({ host: "127.0.0.1", sslMode: "verify-ca", tls: { ca: otherCa.ca } })
        expect(error.message).toContain(`not signed by the CA in ${otherCa.ca}`)
      }),
    60_000
  )

  it.live(
    "a client certificate logs in an account created REQUIRE X509; without it the login is refused",
    () =>
      Effect.gen(function*() {
        const client = ca.client(X509_USER, "x509-phrase")
        const { password: _, ...noPassword } = base
        const settings = {
          ...noPassword,
          host: "127.0.0.1",
          sslMode: "verify-ca" as const,
          user: X509_USER,
          secrets: ["x509-phrase"]
        }
        const answer = yield* withDriver(
          { tls: { ca: ca.ca, cert: client.cert, key: client.key, passphrase: "x509-phrase" } },
          (driver) => driver.execute("SELECT CURRENT_USER()", read),
          settings
        )
        expect(answer.rows).toEqual([[`${X509_USER}@127.0.0.1`]])
        const refused = yield* withDriver(
          { tls: { ca: ca.ca } },
          (driver) => Effect.flip(driver.execute("SELECT 1", read)),
          settings
        )
        expect(refused._tag).toBe("NotConnected")
        expect(refused.message).toContain("Access denied")
      }),
    60_000
  )

  it.live(
    "a client certificate without its key is refused before connecting, naming the file",
    () =>
      Effect.gen(function*() {
        const client = ca.client(X509_USER)
        const error = yield* failure({ tls: { ca: ca.ca, cert: client.cert } })
        expect(error.message).toContain(`a client certificate (${client.cert}) was given without its key`)
      }),
    60_000
  )
})
