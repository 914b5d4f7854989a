import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { makeCa, type TestCa } from "../support/TestCa.ts"
import { tempHome } from "../support/TestServer.ts"
import { runInProcess, runProcess } from "./CliHarness.ts"

const SECRET = "s3cret-Пароль-'\"$&@:/"
const stored = (home: string, name: string) =>
  JSON.parse(readFileSync(join(home, "connections.json"), "utf8")).connections.find((connection: { name: string }) =>
    connection.name === name
  )

describe("dbdesk connection add: TLS files and connection URLs", () => {
  it("--ssl-mode, --ssl-ca, --ssl-cert and --ssl-key are stored (files by absolute path); --ssl-key-passphrase-env is a secret never shown", async () => {
    const home = tempHome()
    process.env["DBDESK_TEST_KEY_PASSPHRASE"] = SECRET
    const added = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      "--name",
      "Vault",
      "--host",
      "db.example",
      "--database",
      "app",
      "--user",
      "me",
      "--ssl-mode",
      "verify-full",
      "--ssl-ca",
      "certs/ca.pem",
      "--ssl-cert",
      "certs/me.crt",
      "--ssl-key",
      "/abs/me.key",
      "--ssl-key-passphrase-env",
      "DBDESK_TEST_KEY_PASSPHRASE",
      "--json"
    )
    delete process.env["DBDESK_TEST_KEY_PASSPHRASE"]
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({
      sslMode: "verify-full",
      sslCa: resolve("certs/ca.pem"),
      sslCert: resolve("certs/me.crt"),
      sslKey: "/abs/me.key",
      hasSslKeyPassphrase: true,
      hasPassword: false
    })
    expect(stored(home, "Vault")).toMatchObject({ sslCa: resolve("certs/ca.pem"), sslKeyPassphrase: SECRET })
    const listed = await runInProcess("connection", "list", "--json", "--home", home)
    for (const output of [added, listed]) expect(output.stdout + output.stderr).not.toContain(SECRET)
  })

  it("--ssl-key-passphrase-stdin reads the passphrase of a MySQL connection's key from standard input", () => {
    const home = tempHome()
    const run = runProcess([
      "connection",
      "add",
      "mysql",
      "--home",
      home,
      "--name",
      "Ledger",
      "--host",
      "127.0.0.1",
      "--user",
      "app",
      "--ssl-mode",
      "verify-ca",
      "--ssl-ca",
      "/ca.pem",
      "--ssl-cert",
      "/c.pem",
      "--ssl-key",
      "/k.pem",
      "--ssl-key-passphrase-stdin"
    ], { input: `${SECRET}\n` })
    expect(run.code).toBe(0)
    expect(run.stdout + run.stderr).not.toContain(SECRET)
    expect(stored(home, "Ledger")).toMatchObject({
      sslMode: "verify-ca",
      sslCa: "/ca.pem",
      sslCert: "/c.pem",
      sslKey: "/k.pem",
      sslKeyPassphrase: SECRET
    })
  })

  it("--url: the URL's settings with flags winning; its password is stored and never echoed; connection url gives it back without the password", async () => {
    const home = tempHome()
    const url = `postgres://etl%40corp:${
      encodeURIComponent(SECRET)
    }@[::1]:6543/data%20warehouse?sslmode=verify-ca&sslrootcert=%2Fetc%2Fca.pem&application_name=x`
    const added = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      "--name",
      "Warehouse",
      "--url",
      url,
      "--ssl-mode",
      "verify-full"
    )
    expect(added.code).toBe(0)
    expect(added.stderr).toContain("left them out: application_name")
    expect(added.stderr).toContain("The password in the URL is stored as a secret")
    expect(stored(home, "Warehouse")).toMatchObject({
      host: "::1",
      port: 6543,
      user: "etl@corp",
      database: "data warehouse",
      sslMode: "verify-full",
      sslCa: "/etc/ca.pem",
      password: SECRET
    })
    const back = await runInProcess("connection", "url", "Warehouse", "--home", home)
    expect(back.code).toBe(0)
    expect(back.stdout).toBe(
      "postgresql://etl%40corp@[::1]:6543/data%20warehouse?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem\n"
    )
    const listed = await runInProcess("connection", "list", "--home", home)
    for (const output of [added, back, listed]) {
      expect(output.stdout + output.stderr).not.toContain(SECRET)
      expect(output.stdout + output.stderr).not.toContain(encodeURIComponent(SECRET))
    }
  })

  it("--url takes mariadb:// for a MySQL connection and sqlite: for a SQLite file; connection url writes them back", async () => {
    const home = tempHome()
    expect(
      (await runInProcess(
        "connection",
        "add",
        "mysql",
        "--home",
        home,
        "--name",
        "Shop",
        "--url",
        "mariadb://shop@db.internal/?ssl-mode=VERIFY_IDENTITY"
      )).code
    ).toBe(0)
    expect(stored(home, "Shop")).toMatchObject({
      type: "mysql",
      host: "db.internal",
      port: 3306,
      user: "shop",
      sslMode: "verify-full"
    })
    expect(stored(home, "Shop")).not.toHaveProperty("database")
    expect((await runInProcess("connection", "url", "Shop", "--home", home)).stdout).toBe(
      "mysql://shop@db.internal:3306/?sslmode=verify-full\n"
    )
    expect(
      (await runInProcess(
        "connection",
        "add",
        "sqlite",
        "--home",
        home,
        "--name",
        "Notes",
        "--url",
        "sqlite:///tmp/my%20notes.db"
      )).code
    ).toBe(0)
    expect(stored(home, "Notes")).toMatchObject({ type: "sqlite", path: "/tmp/my notes.db" })
    expect((await runInProcess("connection", "url", "Notes", "--home", home)).stdout).toBe(
      "sqlite:///tmp/my%20notes.db\n"
    )
  })

  it("S1-d connection url on a search connection says it has no URL form", async () => {
    const home = tempHome()
    process.env["DBDESK_TEST_TS_KEY"] = SECRET
    expect(
      (await runInProcess(
        "connection",
        "add",
        "search",
        "--home",
        home,
        "--name",
        "Catalog",
        "--host",
        "localhost",
        "--port",
        "8108",
        "--api-key-env",
        "DBDESK_TEST_TS_KEY"
      )).code
    ).toBe(0)
    delete process.env["DBDESK_TEST_TS_KEY"]
    const run = await runInProcess("connection", "url", "Catalog", "--home", home)
    expect(run.code).toBe(1)
    expect(run.stderr).toBe("\"Catalog\" is a search connection, which has no URL form\n")
  })

  it("--url of another type, a URL dbdesk cannot read, or one missing a setting is explained without repeating the URL, and nothing is written", async () => {
    const home = tempHome()
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["mysql", "--url", "postgres://u:hunter2@h/d"],
        "--url: this is a postgresql URL; add it with dbdesk connection add postgresql --url …\n"
      ],
      [
        ["postgresql", "--url", "postgres://u:hunter2@h:0/d"],
        "--url: The URL's port must be a number between 1 and 65535.\n"
      ],
      [
        ["postgresql", "--url", "postgres://u:hunter2@h"],
        "This postgresql connection is not valid: --database is missing (give it, or a --url that has it)\n"
      ]
    ]
    for (const [args, message] of cases) {
      const run = await runInProcess("connection", "add", ...args, "--home", home, "--name", "X")
      expect(run.code).toBe(1)
      expect(run.stderr).toBe(message)
      expect(run.stdout + run.stderr).not.toContain("hunter2")
    }
    expect((await runInProcess("connection", "list", "--json", "--home", home)).stdout.trim()).toBe("[]")
  })
})

describePostgres("dbdesk connection test over TLS", () => {
  let server: PostgresServer
  let ca: TestCa
  let otherCa: TestCa

  beforeAll(async () => {
    ca = makeCa()
    otherCa = makeCa("another CA")
    const issued = ca.server("localhost", ["DNS:localhost"])
    server = await startPostgres({ tls: { ca: ca.ca, cert: issued.cert, key: issued.key } })
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    ca?.remove()
    otherCa?.remove()
  }, 60_000)

  it(
    "a verify-full connection added by --url answers; with another CA, test says the certificate is not signed by it",
    async () => {
      const home = tempHome()
      process.env["DBDESK_TEST_PG_PASSWORD"] = server.password
      for (const [name, caFile] of [["Good", ca.ca], ["WrongCa", otherCa.ca]] as const) {
        const url =
          `postgresql://${server.user}@localhost:${server.port}/${server.database}?sslmode=verify-full&sslrootcert=${
            encodeURIComponent(caFile)
          }`
        expect(
          (await runInProcess(
            "connection",
            "add",
            "postgresql",
            "--home",
            home,
            "--name",
            name,
            "--url",
            url,
            "--password-env",
            "DBDESK_TEST_PG_PASSWORD"
          )).code
        ).toBe(0)
      }
      delete process.env["DBDESK_TEST_PG_PASSWORD"]
      const good = await runInProcess("connection", "test", "Good", "--home", home)
      expect(good.stdout).toMatch(/^ok: Good \(postgresql\)/)
      const wrong = await runInProcess("connection", "test", "WrongCa", "--home", home)
      expect(wrong.code).toBe(1)
      expect(wrong.stdout).toContain(`the server's certificate is not signed by the CA in ${otherCa.ca}`)
    },
    60_000
  )
})
