import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { classifyStatement } from "../../../src/domain/StatementClassifier.ts"
import type { DatabaseDriver } from "../../../src/services/drivers/Driver.ts"
import { makeMysqlDriver, type MysqlSettings } from "../../../src/services/drivers/MysqlDriver.ts"
import {
  eventually,
  idleInTransaction,
  type MariadbServer,
  runningStatements,
  startMariadb
} from "../../support/MariadbHarness.ts"
import { describeMariadb } from "../../support/MariadbSuite.ts"
import { transactionContract } from "../../support/TransactionContract.ts"

const read = { maxRows: 500, timeoutSeconds: 30, access: "readonly" } as const

describeMariadb("MysqlDriver against a real MariaDB", () => {
  let server: MariadbServer
  let settings: MysqlSettings

  beforeAll(async () => {
    server = await startMariadb({ tls: true })
    settings = {
      name: "Shop",
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      database: server.database,
      sslMode: "disabled",
      secrets: [server.password]
    }
    await server.admin().query(`
      CREATE TABLE customers (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL, email VARCHAR(80) UNIQUE COMMENT 'where receipts go', big BIGINT, doc JSON, created DATETIME DEFAULT '2026-01-02 03:04:05');
      CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL, total DECIMAL(10,2) DEFAULT 0,
        KEY orders_customer_idx (customer_id), CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE CASCADE);
      CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
      CREATE TABLE counter (n INT);
      CREATE FUNCTION bump() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO counter VALUES (1); RETURN 1; END;
      INSERT INTO customers (name, email, big, doc) VALUES ('Ada', 'ada@example.com', 9007199254740993, '{"vip": true}'), ('Bob', 'bob@example.com', 42, NULL), ('Cy', NULL, NULL, NULL);
      INSERT INTO orders (customer_id, total) VALUES (1, 150), (1, 20), (2, 99.5);
      CREATE TABLE ${server.otherDatabase}.regions (code VARCHAR(8) PRIMARY KEY);
      INSERT INTO ${server.otherDatabase}.regions VALUES ('eu'), ('us');
      CREATE TABLE numbers (n INT PRIMARY KEY);
      INSERT INTO numbers SELECT seq FROM seq_1_to_200000;
      ANALYZE TABLE customers, orders, numbers;
    `)
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
  }, 60_000)

  const withDriver = <A, E>(
    use: (driver: DatabaseDriver) => Effect.Effect<A, E>,
    overrides: Partial<MysqlSettings> = {}
  ) => Effect.acquireUseRelease(makeMysqlDriver({ ...settings, ...overrides }), use, (driver) => driver.close())
  const kills = () => (server.log().match(/KILL QUERY \d+/g) ?? []).length
  const running = (marker: string) => Effect.promise(() => runningStatements(server, marker))
  const waitFor = (check: () => Promise<boolean>, what: string) => Effect.promise(() => eventually(check, what))

  it.live(
    "D-75: interrupting execute sends KILL QUERY on another session; SLEEP leaves PROCESSLIST and the pool still works",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          const before = kills()
          const fiber = yield* Effect.fork(
            driver.execute("SELECT SLEEP(60) AS interrupted_sleep", { ...read, timeoutSeconds: 300 })
          )
          yield* waitFor(async () => (await runningStatements(server, "interrupted_sleep")) === 1, "SLEEP running")
          yield* Fiber.interrupt(fiber)
          expect(yield* running("interrupted_sleep")).toBe(0)
          yield* waitFor(async () => kills() > before, "KILL QUERY in the general log")
          expect((yield* driver.execute("SELECT 2 AS two", read)).rows).toEqual([[2]])
          expect(yield* Effect.promise(() => idleInTransaction(server))).toBe(0)
        })
      ),
    60_000
  )

  it.live(
    "D-75: timeout_seconds ends SLEEP with StatementTimeout and nothing is left on the server",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(
            driver.execute("SELECT SLEEP(60) AS deadline_sleep", { ...read, timeoutSeconds: 1 })
          )
          expect(error).toEqual(expect.objectContaining({ _tag: "StatementTimeout", seconds: 1 }))
          expect(yield* running("deadline_sleep")).toBe(0)
        })
      ),
    60_000
  )

  it.live("D-75: max_statement_time is the deadline plus 1 s, as a backstop, for reads and writes", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        expect((yield* driver.execute("SELECT @@max_statement_time", { ...read, timeoutSeconds: 5 })).rows).toEqual([[
          6
        ]])
        expect(
          (yield* driver.execute("SELECT @@max_statement_time", { ...read, timeoutSeconds: 9, access: "readwrite" }))
            .rows
        ).toEqual([[10]])
      })
    ))

  it.live("D-71: a 200,000-row SELECT stops at max_rows + 1 and the statement is killed, not drained", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const before = kills()
        const answer = yield* driver.execute("SELECT n, REPEAT('x', 200) AS pad, 'stream_marker' FROM numbers a", {
          ...read,
          maxRows: 50
        })
        expect(answer).toEqual(
          expect.objectContaining({
            row_count: 50,
            is_truncated: true,
            status_message: expect.stringMatching(/^showing the first 50 rows; narrow the query/)
          })
        )
        expect(answer.rows[49]?.[0]).toBe(50)
        yield* waitFor(async () => kills() > before, "KILL QUERY in the general log")
        expect(yield* running("stream_marker")).toBe(0)
        expect((yield* driver.execute("SELECT COUNT(*) FROM numbers", read)).rows).toEqual([[200000]])
      })
    ))

  it.live("D-71: the byte caps apply: a long cell is cut with its length, and rows stop at limits.maxAnswerBytes (statement killed)", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const cut = yield* driver.execute("SELECT REPEAT('x', 100000) AS long_text", {
          ...read,
          limits: { maxCellBytes: 1000, maxAnswerBytes: 8 * 1024 * 1024 }
        })
        expect(String(cut.rows[0]?.[0]).startsWith("x".repeat(1000))).toBe(true)
        expect(String(cut.rows[0]?.[0])).toContain("100000 bytes")
        expect(cut.status_message).toMatch(/limits\.maxCellBytes/)
        const before = kills()
        const capped = yield* driver.execute("SELECT n, REPEAT('y', 1000) AS pad, 'bytes_marker' FROM numbers", {
          ...read,
          maxRows: 10_000,
          limits: { maxCellBytes: 32_768, maxAnswerBytes: 64 * 1024 }
        })
        expect(capped.is_truncated).toBe(true)
        expect(capped.row_count).toBeLessThan(100)
        expect(capped.status_message).toMatch(/limits\.maxAnswerBytes/)
        yield* waitFor(async () => kills() > before, "KILL QUERY in the general log")
        expect(yield* running("bytes_marker")).toBe(0)
      })
    ))

  it.live("D-23: START TRANSACTION READ ONLY stops a write the classifier calls safe (SELECT of a function that inserts)", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        expect(classifyStatement("SELECT bump()", "mysql").tier).toBe("safe")
        const error = yield* Effect.flip(driver.execute("SELECT bump()", read))
        expect(error).toHaveProperty("message", expect.stringContaining("READ ONLY transaction"))
        const direct = yield* Effect.flip(driver.execute("INSERT INTO counter VALUES (2)", read))
        expect(direct).toHaveProperty("message", expect.stringContaining("READ ONLY transaction"))
        expect((yield* driver.execute("SELECT COUNT(*) FROM counter", read)).rows).toEqual([[0]])
        expect((yield* driver.execute("SELECT bump()", { ...read, access: "readwrite" })).rows).toEqual([[1]])
        yield* driver.execute("DELETE FROM counter", { ...read, access: "readwrite" })
      })
    ))

  it.live("D-23: a second statement never reaches the server in one call (multiple statements off)", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          driver.execute("SELECT 1; DELETE FROM counter", { ...read, access: "readwrite" })
        )
        expect(error).toHaveProperty("message", expect.stringContaining("SQL syntax"))
      })
    ))

  it.live("D-75: LOAD DATA LOCAL is refused by the client, so the server never reads a local file", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          driver.execute("LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE counter", { ...read, access: "readwrite" })
        )
        expect(error).toHaveProperty("message", expect.stringContaining("local infile"))
        expect((yield* driver.execute("SELECT COUNT(*) FROM counter", read)).rows).toEqual([[0]])
      })
    ))

  it.live("D-75: SSL modes: disabled is plain, preferred and required encrypt, verify-ca and verify-full refuse an untrusted certificate", () =>
    Effect.gen(function*() {
      const cipher = (sslMode: MysqlSettings["sslMode"]) =>
        withDriver(
          (driver) =>
            Effect.map(driver.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'", read), (answer) =>
              String(answer.rows[0]?.[1] ?? "")),
          { sslMode }
        )
      expect(yield* cipher("disabled")).toBe("")
      expect(yield* cipher("preferred")).not.toBe("")
      expect(yield* cipher("required")).not.toBe("")
      for (const sslMode of ["verify-ca", "verify-full"] as const) {
        const error = yield* Effect.flip(cipher(sslMode))
        expect(error).toHaveProperty("message", expect.stringMatching(/cannot connect to 'Shop'.*certificate/i))
      }
    }))

  it.live("C7.2-b a wrong password names the connection, never the password", () =>
    Effect.gen(function*() {
      const wrong = `${server.password}-wrong`
      const [status, error] = yield* withDriver(
        (driver) => Effect.all([driver.status(), Effect.flip(driver.execute("SELECT 1", read))]),
        { password: wrong, secrets: [wrong] }
      )
      expect(status.status).toBe("error")
      expect(error._tag).toBe("NotConnected")
      for (const text of [status.error ?? "", "message" in error ? error.message : ""]) {
        expect(text).toContain("'Shop'")
        expect(text).toContain("Access denied")
        expect(text).not.toContain(wrong)
      }
    }))

  it.live("D-75: catalog tools: databases, tables with estimated counts, describe with indexes, foreign keys and comments, DDL, search", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        expect(yield* driver.listDatabases()).toEqual([server.otherDatabase, server.database])
        const tables = yield* driver.listTables({ includeRowCounts: true })
        expect(tables.map((t) => [t.name, t.type])).toEqual([
          ["big_orders", "view"],
          ["counter", "table"],
          ["customers", "table"],
          ["numbers", "table"],
          ["orders", "table"]
        ])
        expect(tables.find((t) => t.name === "customers")?.row_count).toBe(3)
        expect(server.log()).not.toMatch(/COUNT\(\*\) FROM `?customers/i)
        const orders = yield* driver.describeTable("orders")
        expect(orders.columns.map((c) => [c.name, c.data_type, c.is_nullable, c.is_primary_key])).toEqual([
          ["id", "int(11)", false, true],
          ["customer_id", "int(11)", false, false],
          ["total", "decimal(10,2)", true, false]
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
          on_update: "RESTRICT",
          on_delete: "CASCADE"
        }])
        const customers = yield* driver.describeTable("customers")
        expect(customers.columns.find((c) => c.name === "email")?.comment).toBe("where receipts go")
        expect(yield* driver.tableDdl("orders")).toContain(
          "CONSTRAINT `orders_customer_fk` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE"
        )
        expect((yield* Effect.flip(driver.describeTable("nope")))._tag).toBe("TableNotFound")
        const matches = yield* driver.searchSchema("custom", 10)
        expect(matches).toContainEqual({ kind: "table", table: "customers", name: "customers" })
        expect(matches).toContainEqual({ kind: "column", table: "orders", name: "customer_id", data_type: "int(11)" })
      })
    ))

  it.live("D-75: the database argument selects the database; a schema argument is refused (a MySQL schema is a database)", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        expect(
          (yield* driver.listTables({ includeRowCounts: false, database: server.otherDatabase })).map((t) => t.name)
        ).toEqual(["regions"])
        expect((yield* driver.count("regions", [], "and", { database: server.otherDatabase })).row_count).toBe(2)
        expect(
          (yield* driver.execute("SELECT code FROM regions ORDER BY code", { ...read, database: server.otherDatabase }))
            .rows
        ).toEqual([["eu"], ["us"]])
        expect((yield* driver.execute("SELECT DATABASE()", read)).rows).toEqual([[server.database]])
        expect((yield* Effect.flip(driver.listTables({ includeRowCounts: false, database: "nowhere" })))._tag).toBe(
          "NamespaceNotFound"
        )
        const schema = yield* Effect.flip(driver.listTables({ includeRowCounts: false, schema: "public" }))
        expect(schema).toHaveProperty("message", expect.stringContaining("a schema is a database"))
      })
    ))

  it.live("D-75: browse and count with filters and backtick quoting, cells, explain, insert_rows with a failing row", () =>
    withDriver((driver) =>
      Effect.gen(function*() {
        const page = yield* driver.browse("customers", {
          columns: ["name", "big", "doc", "created"],
          sort: [{ column: "id", direction: "asc" }],
          limit: 2
        })
        expect(page).toEqual(
          expect.objectContaining({
            columns: ["name", "big", "doc", "created"],
            rows: [["Ada", "9007199254740993", "{\"vip\": true}", "2026-01-02 03:04:05"], [
              "Bob",
              42,
              null,
              "2026-01-02 03:04:05"
            ]],
            is_truncated: true
          })
        )
        expect(yield* driver.count("orders", [{ column: "total", operator: ">", value: 50 }], "and")).toEqual({
          row_count: 2,
          is_approximate: false
        })
        expect(
          (yield* driver.count("customers", [{ column: "email", operator: "contains", value: "%" }], "and")).row_count
        ).toBe(0)
        expect(
          (yield* driver.count("customers", [{ column: "email", operator: "starts_with", value: "ada" }], "and"))
            .row_count
        ).toBe(1)
        expect((yield* Effect.flip(driver.browse("orders", { columns: ["nope"] })))._tag).toBe("InvalidArgument")
        const plan = yield* driver.explain("SELECT * FROM orders WHERE total > 10", false)
        expect(String(plan.rows[0]?.[0])).toContain("query_block")
        const analyzed = yield* driver.explain("SELECT * FROM orders WHERE total > 10", true)
        expect(String(analyzed.rows[0]?.[0])).toContain("r_loops")
        const inserted = yield* driver.insertRows("counter", ["n"], [[1], ["not a number"], [3]])
        expect(inserted.rows_affected).toBe(2)
        expect(inserted.failed_rows.map((row) => row.index)).toEqual([1])
        const written = yield* driver.execute("UPDATE counter SET n = n + 1 WHERE n > 0", {
          ...read,
          access: "readwrite"
        })
        expect(written).toEqual(expect.objectContaining({ rows_affected: 2, status_message: "2 rows affected" }))
        yield* driver.execute("DELETE FROM counter", { ...read, access: "readwrite" })
      })
    ))

  it.live(
    "D-75: KILL CONNECTION mid-query fails that call naming the connection; the next call succeeds and no session is wedged",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(
            Effect.flip(driver.execute("SELECT SLEEP(30) AS killed_conn", { ...read, timeoutSeconds: 60 }))
          )
          yield* waitFor(async () => (await runningStatements(server, "killed_conn")) === 1, "SLEEP running")
          const [rows] = yield* Effect.promise(() =>
            server.admin().query(
              "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%killed_conn%' AND ID <> CONNECTION_ID()"
            )
          )
          yield* Effect.promise(() => server.admin().query(`KILL CONNECTION ${(rows as Array<{ ID: number }>)[0]!.ID}`))
          const error = yield* Fiber.join(fiber)
          expect(error).toHaveProperty("message", expect.stringContaining("'Shop'"))
          expect((yield* driver.execute("SELECT 3", read)).rows).toEqual([[3]])
          expect(yield* Effect.promise(() => idleInTransaction(server))).toBe(0)
        })
      ),
    60_000
  )

  it.live(
    "D-75: 240 calls at 16 at a time, a third abandoned at random points: nothing left running or in a transaction, the next call answers",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          const one = (i: number) =>
            driver.execute(`SELECT n, SLEEP(0.005) AS burst_marker FROM numbers WHERE n <= ${1 + (i % 7)}`, {
              ...read,
              maxRows: 3
            }).pipe(
              i % 3 === 0 ? Effect.timeout(`${i % 40} millis`) : (effect) => effect,
              Effect.either
            )
          const outcomes = yield* Effect.forEach(Array.from({ length: 240 }, (_, i) => i), one, { concurrency: 16 })
          expect(outcomes.filter((outcome) => outcome._tag === "Left" && outcome.left._tag !== "TimeoutException"))
            .toEqual([])
          yield* waitFor(
            async () =>
              (await runningStatements(server, "burst_marker")) === 0 && (await idleInTransaction(server)) === 0,
            "no session left"
          )
          expect((yield* driver.execute("SELECT n FROM numbers WHERE n = 7", read)).rows).toEqual([[7]])
        })
      ),
    120_000
  )

  it.live(
    "D-75: the server restarted (crash and clean) under an open pool: the next call reconnects and answers",
    () =>
      withDriver((driver) =>
        Effect.gen(function*() {
          expect((yield* driver.execute("SELECT 4", read)).rows).toEqual([[4]])
          for (const how of ["crash", "clean"] as const) {
            yield* Effect.promise(() => server.restart(how))
            expect((yield* driver.execute("SELECT 5", read)).rows).toEqual([[5]])
            expect((yield* driver.execute("SELECT 6", { ...read, access: "readwrite" })).rows).toEqual([[6]])
          }
        })
      ),
    120_000
  )

  it.live("D-86: transaction runs each statement under a savepoint, names every failure, and commits only when all succeed", () =>
    withDriver((driver) =>
      transactionContract(driver, {
        table: "numbers",
        column: "n",
        first: "927001",
        second: "927002",
        duplicate: /Duplicate entry '927001'/
      })
    ))
})
