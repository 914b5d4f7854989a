import { assert, describe, it } from "@effect/vitest"
import { statSync } from "node:fs"
import { join } from "node:path"
import { openPrivateDatabase, PRIVATE_DATABASE_CACHE_KIB } from "../../src/services/PrivateDatabase.ts"
import { tempHome } from "../support/TestServer.ts"

describe("PrivateDatabase (D-1)", () => {
  it("PD1 a private database is 0600, in WAL, and its page cache is bounded (D-81: RSS growth)", () => {
    const path = join(tempHome(), "private.db")
    const db = openPrivateDatabase(path)
    try {
      db.exec("CREATE TABLE t (x TEXT)")
      assert.strictEqual(statSync(path).mode & 0o777, 0o600)
      assert.strictEqual(db.pragma("journal_mode", { simple: true }), "wal")
      // better-sqlite3's own default is -16000 (16 MB per connection); a negative size is in KiB.
      assert.strictEqual(db.pragma("cache_size", { simple: true }), -PRIVATE_DATABASE_CACHE_KIB)
      assert.isAtMost(PRIVATE_DATABASE_CACHE_KIB, 4096)
    } finally {
      db.close()
    }
  })
})
