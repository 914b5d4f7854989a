import Database from "better-sqlite3"
import { chmodSync, closeSync, openSync } from "node:fs"

/**
 * The page cache each of these files may hold, in KiB: SQLite's stock size. better-sqlite3 raises its default to
 * 16 MB per connection, which an append-mostly log filled within 50,000 calls and kept (D-81: RSS growth).
 */
export const PRIVATE_DATABASE_CACHE_KIB = 1024

/**
 * Opens a SQLite file of the user's own data (D-7): created 0600 before SQLite
 * opens it, WAL so readers never block the writer. SQLite gives the -wal and -shm files the mode
 * of the database file, so they stay 0600 too.
 */
export const openPrivateDatabase = (path: string): Database.Database => {
  closeSync(openSync(path, "a", 0o600))
  if (process.platform !== "win32") chmodSync(path, 0o600)
  const db = new Database(path)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma(`cache_size = -${PRIVATE_DATABASE_CACHE_KIB}`)
  return db
}
