import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startTestServer, tempHome } from "../support/TestServer.ts"
import { runInProcess, runProcess } from "./CliHarness.ts"

const SECRET = "s3cret-Пароль-'\"$"

describe("dbdesk connection", () => {
  it("add takes a secret from an environment variable, never from argv; list and test never show it; remove takes it out", async () => {
    const home = tempHome()
    process.env["DBDESK_TEST_PG_PASSWORD"] = SECRET
    const added = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      "--name",
      "Warehouse",
      "--host",
      "127.0.0.1",
      "--port",
      "1",
      "--database",
      "dw",
      "--user",
      "etl",
      "--ssl-mode",
      "disable",
      "--password-env",
      "DBDESK_TEST_PG_PASSWORD",
      "--json"
    )
    delete process.env["DBDESK_TEST_PG_PASSWORD"]
    expect(added.code).toBe(0)
    const view = JSON.parse(added.stdout)
    expect(view).toMatchObject({
      name: "Warehouse",
      type: "postgresql",
      host: "127.0.0.1",
      port: 1,
      database: "dw",
      user: "etl",
      sslMode: "disable",
      hasPassword: true,
      externalAccess: "readOnly"
    })
    expect(view).not.toHaveProperty("password")
    const stored = JSON.parse(readFileSync(join(home, "connections.json"), "utf8"))
    expect(stored.connections.find((connection: any) => connection.name === "Warehouse").password).toBe(SECRET)
    expect(statSync(join(home, "connections.json")).mode & 0o777).toBe(0o600)

    const listed = await runInProcess("connection", "list", "--home", home)
    const listedJson = await runInProcess("connection", "list", "--json", "--home", home)
    expect(listed.stdout).toMatch(/Warehouse\s+postgresql\s+127\.0\.0\.1:1\/dw\s+readOnly\s+askEachTime\s+writes/)
    expect(JSON.parse(listedJson.stdout).map((connection: any) => connection.name)).toStrictEqual([
      "Sample (SQLite)",
      "Warehouse"
    ])
    const tested = await runInProcess("connection", "test", "Warehouse", "--home", home)
    expect(tested.code).toBe(1)
    expect(tested.stdout).toMatch(/^failed: Warehouse \(postgresql\): .*ECONNREFUSED 127\.0\.0\.1:1\n$/)
    const sample = await runInProcess("connection", "test", "Sample (SQLite)", "--home", home, "--json")
    expect(JSON.parse(sample.stdout)).toMatchObject({
      name: "Sample (SQLite)",
      ok: true,
      message: expect.stringMatching(/^Connected \(SQLite 3\.\d+\.\d+\)\.$/)
    })
    for (const output of [added, listed, listedJson, tested, sample]) {
      expect(output.stdout + output.stderr).not.toContain(SECRET)
    }

    expect((await runInProcess("connection", "remove", view.id, "--home", home)).code).toBe(0)
    expect(
      JSON.parse((await runInProcess("connection", "list", "--json", "--home", home)).stdout).map((connection: any) =>
        connection.name
      )
    ).toStrictEqual(["Sample (SQLite)"])
    const missing = await runInProcess("connection", "test", view.id, "--home", home)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(
      /^No connection has the id or name "[0-9a-f-]+"; the connections are [0-9a-f-]+ \(Sample \(SQLite\)\)\n$/
    )
  })

  it("a search connection reads its API key from stdin; without one it says how to give it, and writes nothing", async () => {
    const home = tempHome()
    const missing = await runInProcess(
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
      "8108"
    )
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(
      "a search connection needs its apiKey: pass --api-key-env VARIABLE or --api-key-stdin (never the value itself on the command line)\n"
    )
    const viaStdin = runProcess([
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
      "--api-key-stdin"
    ], { input: `${SECRET}\n` })
    expect(viaStdin.code).toBe(0)
    expect(viaStdin.stdout + viaStdin.stderr).not.toContain(SECRET)
    const stored = JSON.parse(readFileSync(join(home, "connections.json"), "utf8")).connections.find((
      connection: any
    ) => connection.name === "Catalog")
    expect(stored.apiKey).toBe(SECRET)
  })

  it("values the schema refuses are explained and nothing is written; a running server's connections are not edited underneath it", async () => {
    const home = tempHome()
    const badPort = await runInProcess(
      "connection",
      "add",
      "postgresql",
      "--home",
      home,
      "--name",
      "X",
      "--host",
      "h",
      "--port",
      "70000",
      "--database",
      "d",
      "--user",
      "u"
    )
    expect(badPort.code).toBe(1)
    expect(badPort.stderr).toBe(
      "This postgresql connection is not valid: --port: Expected a number between 1 and 65535, actual 70000\n"
    )
    expect((await runInProcess("connection", "list", "--json", "--home", home)).stdout.trim()).toBe("[]")

    const server = await startTestServer({ ui: false, home })
    try {
      const refused = await runInProcess(
        "connection",
        "add",
        "sqlite",
        "--home",
        home,
        "--name",
        "Shop",
        "--path",
        "shop.db"
      )
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(
        new RegExp(
          `^dbdesk serve is running \\(pid ${process.pid}\\) and owns connections\\.json: change connections in its UI \\(http://127\\.0\\.0\\.1:\\d+\\), or stop it and run this again\\n$`
        )
      )
    } finally {
      await server.stop()
    }
    const added = await runInProcess(
      "connection",
      "add",
      "sqlite",
      "--home",
      home,
      "--name",
      "Shop",
      "--path",
      "shop.db",
      "--ai-policy",
      "never"
    )
    expect(added.code).toBe(0)
    const shop = JSON.parse((await runInProcess("connection", "list", "--json", "--home", home)).stdout).find((
      connection: any
    ) => connection.name === "Shop")
    expect(shop).toMatchObject({ type: "sqlite", path: join(process.cwd(), "shop.db"), aiPolicy: "never" })
  })

  it("D-65: --mask and --hide set the connection's masking rules, --secret-catalogs its secret catalogs; a bad pattern is explained", async () => {
    const home = tempHome()
    const saved = await runInProcess(
      "connection",
      "add",
      "sqlite",
      "--home",
      home,
      "--name",
      "Guarded",
      "--path",
      "./x.db",
      "--mask",
      "users.password_hash",
      "--hide",
      "*.ssn",
      "--hide",
      "main.cards.pan",
      "--secret-catalogs",
      "open",
      "--json"
    )
    expect(saved.code, saved.stderr).toBe(0)
    expect(JSON.parse(saved.stdout)).toMatchObject({
      secretCatalogs: "open",
      maskingRules: [{ pattern: "users.password_hash", action: "mask" }, { pattern: "*.ssn", action: "hide" }, {
        pattern: "main.cards.pan",
        action: "hide"
      }]
    })
    const bad = await runInProcess(
      "connection",
      "add",
      "sqlite",
      "--home",
      home,
      "--name",
      "Bad",
      "--path",
      "./x.db",
      "--mask",
      "password_hash"
    )
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe(
      "This sqlite connection is not valid: --mask/--hide: \"password_hash\" is not a column pattern: write table.column or schema.table.column, with * for any characters (e.g. *.ssn)\n"
    )
  })
})
