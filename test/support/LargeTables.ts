import Database from "better-sqlite3"

/** Bytes of the blob and the text of `wide` (D-71: a 50 MB blob cell and a 5 MB text cell). */
export const WIDE_BLOB_BYTES = 50 * 1024 * 1024
export const WIDE_TEXT_BYTES = 5_000_000

/**
 * Writes a SQLite file with `big` (`rows` rows made by a recursive CTE: id, name, amount, a 40-byte note) and `wide`
 * (one row: a zero-filled blob of WIDE_BLOB_BYTES and a text of WIDE_TEXT_BYTES "y"). No journal, no fsync: a test file.
 */
export const createLargeSqlite = (path: string, rows: number, options: { readonly wide?: boolean } = {}): void => {
  const db = new Database(path)
  try {
    db.pragma("journal_mode = OFF")
    db.pragma("synchronous = OFF")
    db.exec("CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, note TEXT)")
    db.prepare(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO big SELECT i, 'customer ' || i, i * 0.5, printf('%.40c', 'x') FROM n"
    ).run(rows)
    if (options.wide !== false) {
      db.exec("CREATE TABLE wide (id INTEGER PRIMARY KEY, data BLOB, body TEXT)")
      db.prepare("INSERT INTO wide VALUES (1, zeroblob(?), printf('%.*c', ?, 'y'))").run(
        WIDE_BLOB_BYTES,
        WIDE_TEXT_BYTES
      )
    }
  } finally {
    db.close()
  }
}
