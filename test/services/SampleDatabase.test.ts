import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { ensureSampleDatabase, SAMPLE_SIZES } from "../../src/services/SampleDatabase.ts"

const dir = mkdtempSync(join(tmpdir(), "dbdesk-sample-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("SampleDatabase", () => {
  it.effect("creates sample.db on first start with the four tables, foreign keys and indexes", () =>
    Effect.gen(function*() {
      const path = join(dir, "first.db")
      assert.isTrue(yield* ensureSampleDatabase(path))
      const db = new Database(path, { readonly: true })
      const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
      assert.strictEqual(count("customers"), SAMPLE_SIZES.customers)
      assert.strictEqual(count("orders"), SAMPLE_SIZES.orders)
      assert.strictEqual(count("products"), SAMPLE_SIZES.products)
      const total = ["customers", "orders", "products", "order_items"].map(count).reduce((a, b) => a + b)
      assert.isAtLeast(total, 2000)
      assert.isAtMost(total, 10_000)
      assert.deepStrictEqual(db.prepare("PRAGMA foreign_key_check").all(), [])
      const fks = db.prepare("SELECT \"table\" FROM pragma_foreign_key_list('order_items') ORDER BY 1").pluck().all()
      assert.deepStrictEqual(fks, ["orders", "products"])
      const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'idx_%'").pluck()
        .all()
      assert.isAtLeast(indexes.length, 4)
      const mismatched = db.prepare(
        "SELECT count(*) FROM orders o WHERE abs(o.total - (SELECT sum(quantity * unit_price) FROM order_items i WHERE i.order_id = o.id)) > 0.01"
      ).pluck().get()
      assert.strictEqual(mismatched, 0)
      db.close()
    }))

  it.effect("is idempotent: a later start leaves the file untouched and no temp files behind", () =>
    Effect.gen(function*() {
      const path = join(dir, "again.db")
      yield* ensureSampleDatabase(path)
      const before = readFileSync(path)
      const mtime = statSync(path).mtimeMs
      assert.isFalse(yield* ensureSampleDatabase(path))
      assert.isTrue(readFileSync(path).equals(before))
      assert.strictEqual(statSync(path).mtimeMs, mtime)
      assert.deepStrictEqual(readdirSync(dir).filter((f) => f.endsWith(".tmp")), [])
    }))

  it.effect("is deterministic: two first starts build the same rows", () =>
    Effect.gen(function*() {
      const rowsOf = (path: string) => {
        const db = new Database(path, { readonly: true })
        const rows = db.prepare("SELECT * FROM orders ORDER BY id").raw().all()
        db.close()
        return rows
      }
      yield* ensureSampleDatabase(join(dir, "a.db"))
      yield* ensureSampleDatabase(join(dir, "b.db"))
      assert.deepStrictEqual(rowsOf(join(dir, "a.db")), rowsOf(join(dir, "b.db")))
    }))
})
