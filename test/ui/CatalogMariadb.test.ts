// The sidebar tree's catalog on a MySQL/MariaDB connection: the connection's database with its tables (row counts),
// views, functions and procedures, no schema level (a MySQL database is its schema).
import { Context } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

describeMariadb("the sidebar tree's catalog on MariaDB", () => {
  let mariadb: MariadbServer
  let server: TestServer
  let origin: string
  let cookie: string

  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL);
      INSERT INTO products VALUES (1, 'Lamp'), (2, 'Desk'), (3, 'Chair');
      CREATE VIEW cheap_products AS SELECT * FROM products WHERE id < 3;
      CREATE FUNCTION with_tax(amount DECIMAL(8,2)) RETURNS DECIMAL(8,2) DETERMINISTIC RETURN amount * 1.2;
      CREATE PROCEDURE restock() BEGIN SELECT 1; END`)
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

  it("D-98 the database's tables with row counts, views, functions and procedures, with no schema level", async () => {
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
    const overview = await json(`/api/connections/${added.id}/catalog`)
    expect(overview).toMatchObject({ database: mariadb.database, schemas: [], defaultSchema: null })
    expect(overview.databases).toContain(mariadb.database)
    const { objects } = await json(`/api/connections/${added.id}/catalog/objects`)
    expect(objects.map((o: any) => [o.name, o.kind, o.rowCount])).toEqual([
      ["products", "table", 3],
      ["cheap_products", "view", null],
      ["with_tax", "function", null],
      ["restock", "procedure", null]
    ])
  })
})
