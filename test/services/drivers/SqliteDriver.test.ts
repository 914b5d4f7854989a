import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeSqliteDriver, type SqliteSettings } from "../../../src/services/drivers/SqliteDriver.ts"
import { ensureSampleDatabase, SAMPLE_SIZES } from "../../../src/services/SampleDatabase.ts"
import { transactionContract } from "../../support/TransactionContract.ts"

const dir = mkdtempSync(join(tmpdir(), "dbdesk-sqlite-"))
const template = join(dir, "template.db")
Effect.runSync(ensureSampleDatabase(template))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let copies = 0
/** A private copy of the sample database, so writes in one test never reach another. */
const freshCopy = (): string => {
  const path = join(dir, `copy-${++copies}.db`)
  copyFileSync(template, path)
  return path
}

const driverFor = (settings: SqliteSettings) =>
  Effect.acquireRelease(makeSqliteDriver(settings), (driver) => driver.close())

const read = { maxRows: 500, timeoutSeconds: 30, access: "readonly" } as const

describe("SqliteDriver on the sample database", () => {
  it.scopedLive("status, listTables with row counts, describeTable, tableDdl and searchSchema", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const status = yield* driver.status()
      assert.strictEqual(status.status, "connected")
      assert.match(status.server_version ?? "", /^SQLite 3\./)

      const tables = yield* driver.listTables({ includeRowCounts: true })
      expect(tables.map((t) => t.name)).toEqual(["customers", "order_items", "orders", "products"])
      expect(tables.find((t) => t.name === "orders")).toEqual({
        name: "orders",
        type: "table",
        row_count: SAMPLE_SIZES.orders
      })
      expect((yield* driver.listTables({ includeRowCounts: false }))[0]).toEqual({ name: "customers", type: "table" })

      const orders = yield* driver.describeTable("orders")
      assert.strictEqual(orders.table, "orders")
      expect(orders.columns.map((c) => c.name)).toEqual(["id", "customer_id", "order_date", "status", "total"])
      expect(orders.columns[0]).toMatchObject({ data_type: "INTEGER", is_primary_key: true, is_nullable: false })
      expect(orders.columns[4]).toMatchObject({ name: "total", default_value: "0", is_sortable: true })
      expect(orders.foreign_keys).toEqual([
        {
          columns: ["customer_id"],
          referenced_table: "customers",
          referenced_columns: ["id"],
          on_update: "NO ACTION",
          on_delete: "CASCADE"
        }
      ])
      expect(orders.indexes).toContainEqual({
        name: "idx_orders_customer_id",
        columns: ["customer_id"],
        is_unique: false,
        is_primary: false
      })
      assert.include(orders.ddl ?? "", "CREATE TABLE orders")

      const ddl = yield* driver.tableDdl("ORDERS")
      assert.include(ddl, "CREATE INDEX idx_orders_order_date ON orders(order_date);")
      const missing = yield* Effect.flip(driver.describeTable("no_such_table"))
      expect(missing).toMatchObject({ _tag: "TableNotFound", table: "no_such_table" })

      const matches = yield* driver.searchSchema("EMAIL", 10)
      expect(matches).toEqual([{ kind: "column", table: "customers", name: "email", data_type: "TEXT" }])
      expect(yield* driver.searchSchema("order", 2)).toEqual([
        { kind: "table", table: "order_items", name: "order_items" },
        { kind: "table", table: "orders", name: "orders" }
      ])
    }))

  it.scopedLive("execute reads rows, truncates at maxRows and binds parameters", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const result = yield* driver.execute("SELECT id, email FROM customers ORDER BY id", { ...read, maxRows: 3 })
      expect(result).toMatchObject({ columns: ["id", "email"], row_count: 3, rows_affected: 0, is_truncated: true })
      assert.strictEqual(result.rows[0]?.[0], 1)
      const exact = yield* driver.execute("SELECT count(*) AS n FROM orders WHERE status = ?", {
        ...read,
        params: ["delivered"]
      })
      expect(exact).toMatchObject({ rows: [[expect.any(Number)]], is_truncated: false, row_count: 1 })
    }))

  it.scopedLive("64-bit integers beyond the safe range come back as strings, blobs as hex literals", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const result = yield* driver.execute(
        "SELECT 9223372036854775807 AS big, -9007199254740993 AS small, 9007199254740991 AS edge, 42 AS n, X'00ff' AS b, 1.5 AS r",
        read
      )
      expect(result.rows).toEqual([["9223372036854775807", "-9007199254740993", 9007199254740991, 42, "X'00ff'", 1.5]])
    }))

  it.scopedLive("a write through readonly access fails and the file is unchanged", () =>
    Effect.gen(function*() {
      const path = freshCopy()
      const before = readFileSync(path)
      const driver = yield* driverFor({ path })
      const error = yield* Effect.flip(driver.execute("DELETE FROM order_items", read))
      expect(error).toMatchObject({ _tag: "DriverError" })
      assert.match(error.message, /readonly/i)
      const smuggled = yield* Effect.flip(
        driver.execute(
          "WITH x AS (SELECT 1) INSERT INTO products (sku, name, category, price) VALUES ('a', 'b', 'c', 1)",
          read
        )
      )
      assert.strictEqual(smuggled._tag, "DriverError")
      yield* driver.close()
      assert.isTrue(readFileSync(path).equals(before))
    }))

  it.scopedLive("a write through readwrite access changes the file and reports rows affected", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: freshCopy() })
      const result = yield* driver.execute("UPDATE products SET stock = stock + 1 WHERE category = ?", {
        ...read,
        access: "readwrite",
        params: ["Kitchen"]
      })
      expect(result).toMatchObject({ rows_affected: 15, columns: [], status_message: "15 rows affected" })
      const returning = yield* driver.execute("DELETE FROM order_items WHERE order_id = 1 RETURNING id", {
        ...read,
        access: "readwrite"
      })
      assert.isAtLeast(returning.rows_affected, 1)
      assert.strictEqual(returning.rows_affected, returning.row_count)
    }))

  it.scopedLive("browse selects columns, filters, sorts and pages; count agrees", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const page = yield* driver.browse("products", {
        columns: ["id", "category", "price"],
        filters: [{ column: "category", operator: "in", value: ["Kitchen", "Office"] }, {
          column: "price",
          operator: "between",
          value: 0,
          second_value: 1000
        }],
        sort: [{ column: "price", direction: "desc" }],
        limit: 10,
        offset: 5
      })
      expect(page).toMatchObject({ columns: ["id", "category", "price"], row_count: 10, is_truncated: true })
      const prices = page.rows.map((r) => r[2] as number)
      expect([...prices].sort((a, b) => b - a)).toEqual(prices)
      const counted = yield* driver.count("products", [{ column: "category", operator: "=", value: "Kitchen" }], "and")
      expect(counted).toEqual({ row_count: 15, is_approximate: false })
      const either = yield* driver.count("products", [
        { column: "category", operator: "=", value: "Kitchen" },
        { column: "category", operator: "starts_with", value: "Off" }
      ], "or")
      assert.strictEqual(either.row_count, 30)
      const nulls = yield* driver.count("customers", [{ column: "email", operator: "is_null" }], "and")
      assert.strictEqual(nulls.row_count, 0)
    }))

  it.scopedLive("browse refuses an unknown column and binds values, so an injection matches nothing", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const unknown = yield* Effect.flip(driver.browse("customers", { columns: ["id", "password"] }))
      expect(unknown).toMatchObject({ _tag: "InvalidArgument" })
      assert.include(unknown.message, "password")
      const sortUnknown = yield* Effect.flip(
        driver.browse("customers", { sort: [{ column: "id; DROP TABLE x", direction: "asc" }] })
      )
      assert.strictEqual(sortUnknown._tag, "InvalidArgument")
      for (const operator of ["=", "contains", "starts_with"] as const) {
        const result = yield* driver.browse("customers", {
          filters: [{ column: "first_name", operator, value: "x' OR 1=1 --" }]
        })
        assert.strictEqual(result.row_count, 0)
      }
      const notFound = yield* Effect.flip(driver.browse("customers\"; --", {}))
      assert.strictEqual(notFound._tag, "TableNotFound")
    }))

  it.scopedLive("explain returns the query plan; analyze is unsupported on SQLite", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const plan = yield* driver.explain("SELECT * FROM orders WHERE customer_id = 3", false)
      assert.include(plan.columns, "detail")
      assert.include(JSON.stringify(plan.rows), "idx_orders_customer_id")
      const prefixed = yield* driver.explain("explain query plan SELECT * FROM orders WHERE customer_id = 3", false)
      expect(prefixed.rows).toEqual(plan.rows)
      const analyze = yield* Effect.flip(driver.explain("SELECT 1", true))
      assert.strictEqual(analyze._tag, "Unsupported")
    }))

  it.scopedLive("D-86: transaction runs each statement under a savepoint, names every failure, and commits only when all succeed", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: freshCopy() })
      yield* driver.execute("CREATE TABLE codes (code TEXT PRIMARY KEY)", { ...read, access: "readwrite" })
      yield* transactionContract(driver, {
        table: "codes",
        column: "code",
        first: "'a'",
        second: "'b'",
        duplicate: /UNIQUE constraint failed: codes.code/
      })
    }))

  it.scopedLive("insertRows inserts with bound values and reports the rows that failed", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: freshCopy() })
      const result = yield* driver.insertRows("products", ["sku", "name", "category", "price"], [
        ["NEW-1", "Tea Kettle", "Kitchen", 24.5],
        ["KIT-0001", "Duplicate sku", "Kitchen", 1],
        ["NEW-2", "x'); DROP TABLE products; --", "Kitchen", 3],
        ["NEW-3", "Short row"]
      ])
      assert.strictEqual(result.rows_affected, 2)
      expect(result.failed_rows.map((f) => f.index)).toEqual([1, 3])
      assert.include(result.failed_rows[0]?.error ?? "", "UNIQUE")
      const count = yield* driver.count("products", [], "and")
      assert.strictEqual(count.row_count, SAMPLE_SIZES.products + 2)
      const unknown = yield* Effect.flip(driver.insertRows("products", ["nope"], [[1]]))
      assert.strictEqual(unknown._tag, "InvalidArgument")
    }))
})

describe("SqliteDriver parameters", () => {
  it.scopedLive("binds 64-bit, boolean, null and blob parameters; an unsendable parameter is a DriverError", () =>
    Effect.gen(function*() {
      const driver = yield* driverFor({ path: template })
      const result = yield* driver.execute("SELECT ? AS big, ? AS yes, ? AS empty, length(?) AS bytes", {
        ...read,
        params: [9223372036854775807n, true, null, Buffer.from([1, 2, 3])]
      })
      expect(result.rows).toEqual([["9223372036854775807", 1, null, 3]])
      const error = yield* Effect.flip(driver.execute("SELECT ?", { ...read, params: [() => 1] }))
      assert.strictEqual(error._tag, "DriverError")
      expect((yield* driver.execute("SELECT 1", read)).rows).toEqual([[1]])
    }))
})
