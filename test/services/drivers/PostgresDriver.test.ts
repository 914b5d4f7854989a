import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import type pg from "pg"
import { classifyStatement } from "../../../src/domain/StatementClassifier.ts"
import type { DatabaseDriver } from "../../../src/services/drivers/Driver.ts"
import { makePostgresDriver, type PostgresSettings } from "../../../src/services/drivers/PostgresDriver.ts"
import {
  cancelledByRequest,
  eventually,
  type PostgresServer,
  runningStatements,
  startPostgres
} from "../../support/PostgresHarness.ts"
import { describePostgres } from "../../support/PostgresSuite.ts"
import { transactionContract } from "../../support/TransactionContract.ts"

const read = { maxRows: 500, timeoutSeconds: 30, access: "readonly" } as const

describePostgres("PostgresDriver against a real PostgreSQL 15", () => {
  let server: PostgresServer
  let settings: PostgresSettings
  let owner: pg.Client

  beforeAll(async () => {
    server = await startPostgres()
    settings = {
      name: "Warehouse",
      host: server.host,
      port: server.port,
      database: server.database,
      user: server.user,
      password: server.password,
      sslMode: "disable",
      secrets: [server.password]
    }
    owner = await server.client({ role: "app" })
    await owner.query(`
      CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text UNIQUE, big int8);
      COMMENT ON COLUMN customers.email IS 'where receipts go';
      CREATE TABLE orders (id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id) ON DELETE CASCADE, total numeric(10,2) DEFAULT 0, meta json);
      CREATE INDEX orders_customer_idx ON orders (customer_id);
      CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
      CREATE SCHEMA sales;
      CREATE TABLE sales.regions (code text PRIMARY KEY);
      CREATE TABLE counter (n int);
      CREATE FUNCTION bump() RETURNS int LANGUAGE sql AS 'INSERT INTO counter VALUES (1) RETURNING 1';
      INSERT INTO customers (name, email, big) VALUES ('Ada', 'ada@example.com', 9007199254740993), ('Bob', 'bob@example.com', 42), ('Cy', NULL, NULL);
      INSERT INTO orders (customer_id, total) VALUES (1, 150), (1, 20), (2, 99.5);
      INSERT INTO sales.regions VALUES ('eu'), ('us');
    `)
  }, 120_000)

  afterAll(async () => {
    await owner?.end()
    await server?.stop()
  }, 60_000)

  const withDriver = <A, E>(
    use: (driver: DatabaseDriver) => Effect.Effect<A, E>,
    overrides: Partial<PostgresSettings> = {}
  ) => Effect.acquireUseRelease(makePostgresDriver({ ...settings, ...overrides }), use, (driver) => driver.close())

  it.live(
    "C3.2-d interrupting execute sends a cancel: pg_sleep leaves pg_stat_activity and the pool still works",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(
            driver.execute("SELECT pg_sleep(60) AS interrupted_sleep", { ...read, timeoutSeconds: 300 })
          )
          yield* Effect.promise(() =>
            eventually(async () => (await runningStatements(server, "interrupted_sleep")) === 1, "pg_sleep running")
          )
          yield* Fiber.interrupt(fiber)
          expect(yield* Effect.promise(() => runningStatements(server, "interrupted_sleep"))).toBe(0)
          yield* Effect.promise(() =>
            eventually(() => cancelledByRequest(server, "interrupted_sleep"), "a cancel request in the server log")
          )
          const next = yield* driver.execute("SELECT 2 AS two", read)
          expect(next.rows).toEqual([[2]])
        })
      ),
    60_000
  )

  it.live(
    "C3.2-d timeout_seconds ends pg_sleep with StatementTimeout and nothing is left on the server",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(
            driver.execute("SELECT pg_sleep(60) AS deadline_sleep", { ...read, timeoutSeconds: 1 })
          )
          expect(error).toEqual(expect.objectContaining({ _tag: "StatementTimeout", seconds: 1 }))
          yield* Effect.promise(() =>
            eventually(async () => (await runningStatements(server, "deadline_sleep")) === 0, "pg_sleep gone")
          )
          yield* Effect.promise(() =>
            eventually(() => cancelledByRequest(server, "deadline_sleep"), "a cancel request in the server log")
          )
        })
      ),
    60_000
  )

  it.live("D-18 the server's statement_timeout is the deadline plus 1 s, as a backstop", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const readOnly = yield* driver.execute("SELECT current_setting('statement_timeout') AS t", {
          ...read,
          timeoutSeconds: 5
        })
        expect(readOnly.rows).toEqual([["6s"]])
        const readWrite = yield* driver.execute("SELECT current_setting('statement_timeout') AS t", {
          ...read,
          timeoutSeconds: 9,
          access: "readwrite"
        })
        expect(readWrite.rows).toEqual([["10s"]])
      })
    ))

  it.live("D-14 BEGIN READ ONLY stops a write the classifier calls safe (SELECT of a function that inserts)", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        expect(classifyStatement("SELECT bump()", "postgresql").tier).toBe("safe")
        const error = yield* Effect.flip(driver.execute("SELECT bump()", read))
        expect(error._tag).toBe("DriverError")
        expect(error).toHaveProperty("message", expect.stringContaining("read-only transaction"))
        const direct = yield* Effect.flip(driver.execute("INSERT INTO counter VALUES (2)", read))
        expect(direct).toHaveProperty("message", expect.stringContaining("read-only transaction"))
        const rows = yield* driver.execute("SELECT count(*) FROM counter", read)
        expect(rows.rows).toEqual([[0]])
        const approved = yield* driver.execute("SELECT bump()", { ...read, access: "readwrite" })
        expect(approved.rows).toEqual([[1]])
        yield* driver.execute("DELETE FROM counter", { ...read, access: "readwrite" })
      })
    ))

  it.live("D-22 a second statement never reaches the server in one call (extended protocol)", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          driver.execute("SELECT 1; DELETE FROM counter", { ...read, access: "readwrite" })
        )
        expect(error).toHaveProperty("message", expect.stringContaining("multiple commands"))
      })
    ))

  it.live("D-18 a lock timeout (55P03) is a LockTimeout, which the tools answer timeout:", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() =>
        server.sql(
          `CREATE ROLE dbdesk_locky LOGIN PASSWORD 'locky-pw'; GRANT SELECT ON orders TO dbdesk_locky; ALTER ROLE dbdesk_locky SET lock_timeout = '200ms'`
        )
      )
      const holder = yield* Effect.promise(() => server.client())
      yield* Effect.promise(() => holder.query("BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE"))
      const error = yield* withDriver((driver) => Effect.flip(driver.execute("SELECT * FROM orders", read)), {
        user: "dbdesk_locky",
        password: "locky-pw",
        secrets: ["locky-pw"]
      }).pipe(
        Effect.ensuring(Effect.promise(() => holder.query("ROLLBACK").then(() => holder.end())))
      )
      expect(error._tag).toBe("LockTimeout")
      expect(error).toHaveProperty("message", expect.stringContaining("lock timeout"))
    }))

  it.live("C7.2-b a wrong password names the connection, never the password", () =>
    Effect.gen(function*() {
      const wrong = `${server.password}-wrong`
      const [status, error] = yield* withDriver(
        (driver) => Effect.all([driver.status(), Effect.flip(driver.execute("SELECT 1", read))]),
        { password: wrong, secrets: [wrong] }
      )
      expect(status.status).toBe("error")
      for (const text of [status.error ?? "", error._tag === "StatementTimeout" ? "" : error.message]) {
        expect(text).toContain("'Warehouse'")
        expect(text).toContain("password authentication failed")
        expect(text).not.toContain(wrong)
        expect(text).not.toContain(server.password)
      }
    }))

  it.live("catalog tools: schemas, tables with row counts, describe with indexes and foreign keys, DDL, search", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        expect(yield* driver.listSchemas!()).toEqual(["public", "sales"])
        expect(yield* driver.listTables({ includeRowCounts: true })).toEqual([
          { name: "big_orders", type: "view" },
          { name: "counter", type: "table", row_count: 0 },
          { name: "customers", type: "table", row_count: 3 },
          { name: "orders", type: "table", row_count: 3 },
          { name: "sales.regions", type: "table", row_count: 2 }
        ])
        const orders = yield* driver.describeTable("orders")
        expect(orders.columns.map((c) => [c.name, c.data_type, c.is_nullable, c.is_primary_key, c.is_sortable]))
          .toEqual([
            ["id", "integer", false, true, true],
            ["customer_id", "integer", false, false, true],
            ["total", "numeric(10,2)", true, false, true],
            ["meta", "json", true, false, false]
          ])
        expect(orders.indexes).toContainEqual({
          name: "orders_customer_idx",
          columns: ["customer_id"],
          is_unique: false,
          is_primary: false
        })
        expect(orders.foreign_keys).toEqual([{
          columns: ["customer_id"],
          referenced_table: "customers",
          referenced_columns: ["id"],
          on_update: "NO ACTION",
          on_delete: "CASCADE"
        }])
        const customers = yield* driver.describeTable("customers")
        expect(customers.columns.find((c) => c.name === "email")?.comment).toBe("where receipts go")
        const ddl = yield* driver.tableDdl("orders")
        expect(ddl).toContain("CREATE TABLE \"public\".\"orders\" (")
        expect(ddl).toContain("FOREIGN KEY (customer_id) REFERENCES customers(id) ON DELETE CASCADE")
        expect(ddl).toContain("CREATE INDEX orders_customer_idx ON public.orders USING btree (customer_id);")
        expect((yield* driver.describeTable("sales.regions")).table).toBe("sales.regions")
        expect((yield* Effect.flip(driver.describeTable("nope")))._tag).toBe("TableNotFound")
        const matches = yield* driver.searchSchema("custom", 10)
        expect(matches).toContainEqual({ kind: "table", table: "customers", name: "customers" })
        expect(matches).toContainEqual({ kind: "column", table: "orders", name: "customer_id", data_type: "integer" })
      })
    ))

  it.live("browse, count, execute cells, explain analyze and insert_rows with a failing row", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const page = yield* driver.browse("customers", {
          columns: ["name", "big"],
          sort: [{ column: "id", direction: "asc" }],
          limit: 2
        })
        expect(page).toEqual(
          expect.objectContaining({
            columns: ["name", "big"],
            rows: [["Ada", "9007199254740993"], ["Bob", 42]],
            is_truncated: true
          })
        )
        const filtered = yield* driver.count("orders", [{ column: "total", operator: ">", value: 50 }], "and")
        expect(filtered).toEqual({ row_count: 2, is_approximate: false })
        expect(
          (yield* driver.count("sales.regions", [{ column: "code", operator: "in", value: ["eu", "xx"] }], "and"))
            .row_count
        ).toBe(1)
        expect((yield* Effect.flip(driver.browse("orders", { columns: ["nope"] })))._tag).toBe("InvalidArgument")
        const plan = yield* driver.explain("SELECT * FROM orders WHERE total > 10", true)
        expect(plan.columns).toEqual(["QUERY PLAN"])
        expect(String(plan.rows[0]?.[0])).toContain("actual time")
        const inserted = yield* driver.insertRows("sales.regions", ["code"], [["ap"], [null], ["sa"], ["eu"]])
        expect(inserted.rows_affected).toBe(2)
        expect(inserted.failed_rows.map((row) => row.index)).toEqual([1, 3])
        const written = yield* driver.execute("UPDATE orders SET total = total + 1 WHERE customer_id = 1", {
          ...read,
          access: "readwrite"
        })
        expect(written).toEqual(expect.objectContaining({ rows_affected: 2, status_message: "2 rows affected" }))
      })
    ))

  it.live("D-86: transaction runs each statement under a savepoint, names every failure, and commits only when all succeed", () =>
    withDriver((driver) =>
      transactionContract(driver, {
        table: "sales.regions",
        column: "code",
        first: "'t27a'",
        second: "'t27b'",
        duplicate: /duplicate key value violates unique constraint/
      })
    ))
})
