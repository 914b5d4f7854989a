// D-75: the UI's connection form, grid, structure and console work on a MySQL/MariaDB connection through
// the driver port, like on PostgreSQL (the UI API the React app calls; the password is never shown back).
import { Context } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

describeMariadb("UI API on a MySQL/MariaDB connection", () => {
  let mariadb: MariadbServer
  let server: TestServer
  let origin: string
  let cookie: string

  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, price DECIMAL(8,2));
      INSERT INTO products VALUES (1, 'Lamp', 19.90), (2, 'Desk', 120.00), (3, 'Chair', 45.50)`)
    server = await startTestServer({ token: "readWrite", settings: { ui: { port: 0 } } })
    const ui = Context.get(server.context, UiAddress)
    origin = ui.origin
    const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
    cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await mariadb?.stop()
  }, 60_000)

  const json = async (path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${origin}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { cookie, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return response.json()
  }

  it(
    "D-75: add a MySQL connection from the form, test it, list tables, structure, a sorted grid page and a console read",
    async () => {
      const added = await json("/api/connections", {
        name: "Store (MariaDB)",
        type: "mysql",
        host: mariadb.host,
        port: mariadb.port,
        database: mariadb.database,
        user: mariadb.user,
        password: mariadb.password,
        sslMode: "disabled",
        externalAccess: "readOnly",
        aiPolicy: "askEachTime",
        confirmQueries: "writes"
      })
      expect(added).toMatchObject({
        type: "mysql",
        port: mariadb.port,
        database: mariadb.database,
        sslMode: "disabled",
        hasPassword: true
      })
      expect(JSON.stringify(added)).not.toContain(mariadb.password)
      expect((await json("/api/drivers")).map((driver: any) => driver.type)).toContain("mysql")
      const status = await json(`/api/connections/${added.id}/status`)
      expect(status).toMatchObject({ ok: true, message: expect.stringMatching(/^Connected \(MariaDB 10\./) })
      expect((await json(`/api/connections/${added.id}/tables`)).tables.map((t: any) => t.name)).toEqual(["products"])
      const structure = await json(`/api/connections/${added.id}/tables/products/structure`)
      expect(structure.columns.map((c: any) => c.name)).toEqual(["id", "name", "price"])
      expect(structure.definition).toMatch(/^CREATE TABLE `products`/)
      const page = await json(`/api/connections/${added.id}/tables/products/rows`, {
        filters: [],
        logic: "and",
        caseSensitive: false,
        sort: [{ column: "price", direction: "desc" }],
        offset: 0,
        limit: 2
      })
      expect(page.rows).toEqual([[2, "Desk", "120.00"], [3, "Chair", "45.50"]])
      const console = await json(`/api/connections/${added.id}/console`, {
        text: "SELECT name FROM `products` WHERE id = 1",
        confirmed: false
      })
      expect(console).toMatchObject({ _tag: "Grid", columns: ["name"], rows: [["Lamp"]] })
    },
    60_000
  )

  it(
    "a console result names each column's type from the driver's field metadata (the table's declared types)",
    async () => {
      const store = (await json("/api/connections")).find((c: any) => c.name === "Store (MariaDB)")
      const typed = await json(`/api/connections/${store.id}/console`, {
        text: "SELECT id, name, price, id + 1 AS next_id FROM `products` WHERE id = 1",
        confirmed: false
      })
      expect(typed).toMatchObject({
        _tag: "Grid",
        columns: ["id", "name", "price", "next_id"],
        columnTypes: ["int", "varchar", "decimal", "bigint"]
      })
    },
    60_000
  )
})
