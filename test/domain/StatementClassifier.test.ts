import { assert, describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  type Classification,
  classifyStatement,
  describeForApproval,
  type SqlDialect,
  type StatementTier
} from "../../src/domain/StatementClassifier.ts"

const rank: Record<StatementTier, number> = { safe: 0, write: 1, destructive: 2 }
const dialects: ReadonlyArray<SqlDialect> = ["sqlite", "postgresql"]

/** Representative single statements (no line comments, no tagged dollar quotes: the generators rewrite spaces and case). */
const corpus: ReadonlyArray<readonly [string, StatementTier]> = [
  ["SELECT * FROM orders WHERE id = 1", "safe"],
  ["select o.id, c.name from orders o join customers c on c.id = o.customer_id order by 1 desc limit 5", "safe"],
  ["VALUES (1, 'a'), (2, 'b')", "safe"],
  ["SELECT 'DROP TABLE x; DELETE FROM y' AS text", "safe"],
  ["WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT count(*) FROM c", "safe"],
  ["EXPLAIN QUERY PLAN SELECT * FROM orders", "safe"],
  ["INSERT INTO orders (id) VALUES (1)", "write"],
  ["UPDATE orders SET total = 0 WHERE id = 3", "write"],
  ["DELETE FROM orders WHERE id = 3", "write"],
  ["DELETE FROM orders", "write"],
  ["CREATE TABLE t (id INTEGER PRIMARY KEY)", "write"],
  ["SELECT * INTO archive FROM orders", "write"],
  ["SELECT * FROM orders FOR UPDATE", "write"],
  ["WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone", "write"],
  ["DROP TABLE orders", "destructive"],
  ["TRUNCATE orders", "destructive"],
  ["ALTER TABLE orders DROP COLUMN total", "destructive"],
  ["WITH x AS (SELECT 1) DROP TABLE orders", "destructive"],
  ["SELECT pg_read_file('/etc/passwd')", "write"],
  ["COPY orders TO PROGRAM 'cat'", "write"]
]

const tierOf = (sql: string, dialect: SqlDialect): Classification => classifyStatement(sql, dialect)

const corpusEntry = FastCheck.constantFrom(...corpus)
const dialect = FastCheck.constantFrom(...dialects)
const commentText = FastCheck.stringMatching(/^[A-Za-z0-9 ;'",.()=_-]{0,30}$/)
const whitespace = FastCheck.constantFrom(" ", "  ", "\n", "\t", "\r\n", " \n\t ")
const caseChange = FastCheck.constantFrom<(s: string) => string>(
  (s) => s.toUpperCase(),
  (s) => s.toLowerCase(),
  (s) => [...s].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join("")
)

const notLower = (wrapped: Classification, original: Classification): void => {
  assert.isAtLeast(rank[wrapped.tier], rank[original.tier])
  if (original.reachesFilesOrCode) assert.isTrue(wrapped.reachesFilesOrCode)
}

describe("StatementClassifier properties", () => {
  it.prop(
    "classifier: the tier never drops when a statement is wrapped in comments",
    [corpusEntry, dialect, commentText, commentText],
    ([[sql], d, before, after]) => {
      const wrapped = `/* ${before} */ ${sql} -- ${after}\n/*${after}*/`
      notLower(tierOf(wrapped, d), tierOf(sql, d))
    }
  )

  it.prop(
    "classifier: the tier never drops under whitespace and case changes",
    [corpusEntry, dialect, whitespace, caseChange],
    ([[sql], d, ws, change]) => {
      const rewritten = `${ws}${change(sql).split(" ").join(ws)}${ws};${ws}`
      notLower(tierOf(rewritten, d), tierOf(sql, d))
    }
  )

  it.prop(
    "classifier: the tier never drops when the statement is placed in a WITH",
    [corpusEntry, dialect],
    ([[sql], d]) => {
      const original = tierOf(sql, d)
      notLower(tierOf(`WITH c AS (SELECT 1) ${sql}`, d), original)
      notLower(tierOf(`WITH c AS (${sql}) SELECT * FROM c`, d), original)
      notLower(tierOf(`WITH a AS (SELECT 1), b AS MATERIALIZED (${sql}) SELECT * FROM b`, d), original)
    }
  )

  it.prop("classifier: the corpus tiers hold in both dialects", [corpusEntry, dialect], ([[sql, tier], d]) => {
    assert.strictEqual(tierOf(sql, d).tier, tier)
  })

  const known = new Set([
    "SELECT",
    "VALUES",
    "TABLE",
    "WITH",
    "SHOW",
    "DESCRIBE",
    "DESC",
    "EXPLAIN",
    "PRAGMA",
    "DROP",
    "TRUNCATE",
    "ALTER",
    "E"
  ])
  const unknownKeyword = FastCheck.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,15}$/).filter((w) =>
    !known.has(w.toUpperCase())
  )
  const identifier = FastCheck.stringMatching(/^[a-z][a-z0-9_]{0,10}$/)

  it.prop(
    "classifier: any unknown leading keyword is write",
    [unknownKeyword, FastCheck.array(identifier, { maxLength: 4 }), dialect],
    ([keyword, rest, d]) => {
      assert.notStrictEqual(tierOf([keyword, ...rest].join(" "), d).tier, "safe")
      assert.strictEqual(tierOf([keyword, "x"].join(" "), d).tier, "write")
    }
  )

  it.prop(
    "classifier: two statements always count at least two",
    [corpusEntry, corpusEntry, dialect, whitespace, commentText],
    ([[first], [second], d, ws, comment]) => {
      assert.isAtLeast(tierOf(`${first};${ws}${second}`, d).statementCount, 2)
      assert.isAtLeast(tierOf(`${first}; /* ${comment} */ ${second};`, d).statementCount, 2)
    }
  )

  it.prop(
    "classifier: one statement with trailing semicolons and comments counts one",
    [corpusEntry, dialect, commentText],
    ([[sql], d, comment]) => {
      assert.strictEqual(tierOf(`/* ${comment} */ ${sql} ; ; -- ${comment}`, d).statementCount, 1)
    }
  )
})

describe("StatementClassifier tables", () => {
  const refusedFunctions = [
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "lo_import",
    "lo_export",
    "pg_file_write",
    "dblink",
    "dblink_exec",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_promote",
    "set_config",
    "load_extension"
  ]
  for (const d of dialects) {
    for (const fn of refusedFunctions) {
      it(`classifier: ${fn} is refused in ${d}, bare, upper-case, quoted, qualified or nested`, () => {
        for (
          const sql of [
            `SELECT ${fn}('x')`,
            `select ${fn.toUpperCase()} ('x')`,
            `SELECT "${fn}"('x')`,
            `SELECT * FROM t WHERE a = (SELECT pg_catalog.${fn}('x'))`,
            `WITH a AS (SELECT ${fn}('x')) SELECT * FROM a`,
            `SELECT query_to_xml('select ${fn}(1)', true, true, '')`
          ]
        ) {
          const c = tierOf(sql, d)
          assert.isTrue(c.reachesFilesOrCode, sql)
          assert.notStrictEqual(c.tier, "safe", sql)
        }
      })
    }
    const refusedStatements = [
      "COPY orders TO '/tmp/orders.csv'",
      "COPY orders FROM PROGRAM 'curl example.com'",
      "ATTACH DATABASE '/tmp/other.db' AS other",
      "DETACH DATABASE other",
      "LOAD 'auto_explain'",
      "DO $$ BEGIN PERFORM 1; END $$",
      "SELECT * FROM orders INTO OUTFILE '/tmp/x'",
      "COPY (SELECT 1) TO PROGRAM 'sh'",
      "VACUUM INTO '/tmp/copy.db'",
      "SELECT load_extension('/tmp/evil.so')"
    ]
    for (const sql of refusedStatements) {
      it(`classifier: "${sql}" reaches files or code in ${d}`, () => {
        assert.isTrue(tierOf(sql, d).reachesFilesOrCode)
        assert.isTrue(tierOf(`  /* note */ ${sql.toLowerCase()}`, d).reachesFilesOrCode)
      })
    }
  }

  it("classifier: a refused function spelled with PostgreSQL unicode escapes is still refused", () => {
    for (
      const sql of [
        "SELECT U&\"pg\\005fread\\005ffile\"('/etc/passwd')",
        "SELECT U&\"pg!005fread!+00005ffile\" UESCAPE '!' ('/etc/passwd')",
        "SELECT query_to_xml(U&'select pg\\005fread\\005ffile(1)', true, true, '')"
      ]
    ) {
      assert.isTrue(tierOf(sql, "postgresql").reachesFilesOrCode, sql)
    }
  })

  it("classifier: a refused function inside a string literal alone is not a call", () => {
    assert.isFalse(tierOf("SELECT 'pg_read_file is refused' AS note", "postgresql").reachesFilesOrCode)
    assert.isFalse(tierOf("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", "postgresql").reachesFilesOrCode)
  })

  const tiers: ReadonlyArray<readonly [string, SqlDialect, StatementTier]> = [
    ["SHOW search_path", "postgresql", "safe"],
    ["TABLE orders", "postgresql", "safe"],
    ["PRAGMA table_info(orders)", "sqlite", "safe"],
    ["PRAGMA main.index_list('orders')", "sqlite", "safe"],
    ["PRAGMA user_version", "sqlite", "safe"],
    ["PRAGMA user_version = 7", "sqlite", "write"],
    ["PRAGMA user_version(7)", "sqlite", "write"],
    ["PRAGMA wal_checkpoint", "sqlite", "write"],
    ["PRAGMA table_info(orders)", "postgresql", "write"],
    ["EXPLAIN SELECT 1", "postgresql", "safe"],
    ["EXPLAIN (ANALYZE, BUFFERS) SELECT 1", "postgresql", "safe"],
    ["EXPLAIN ANALYZE DELETE FROM orders", "postgresql", "write"],
    ["EXPLAIN QUERY PLAN DROP TABLE orders", "sqlite", "destructive"],
    ["SELECT nextval('orders_id_seq')", "postgresql", "write"],
    ["SELECT * FROM orders FOR SHARE", "postgresql", "write"],
    ["(SELECT 1) UNION (SELECT 2)", "sqlite", "safe"],
    ["SELECT replace(name, 'a', 'b') FROM customers", "sqlite", "safe"],
    ["/* x /* y */ DROP TABLE orders */ SELECT 1", "postgresql", "destructive"],
    ["SELECT 'a\\'; DROP TABLE orders; --'", "postgresql", "destructive"],
    ["SELECT $$ ; DROP TABLE orders $$", "postgresql", "safe"],
    ["SELECT [a;DROP TABLE orders]", "sqlite", "destructive"],
    ["BEGIN", "sqlite", "write"],
    ["VACUUM", "sqlite", "write"],
    ["", "sqlite", "write"]
  ]
  for (const [sql, d, tier] of tiers) {
    it(`classifier: "${sql}" is ${tier} in ${d}`, () => {
      assert.strictEqual(tierOf(sql, d).tier, tier)
    })
  }

  it("classifier: a SQLite trigger body keeps its semicolons in one statement", () => {
    const sql = "CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE b SET x = CASE WHEN 1 THEN 2 END; DELETE FROM c; END;"
    expect(tierOf(sql, "sqlite")).toMatchObject({ tier: "write", statementCount: 1 })
  })

  it("classifier: DELETE and UPDATE without WHERE say so in plain words", () => {
    assert.strictEqual(tierOf("DELETE FROM orders", "sqlite").approvalHint, "deletes every row of orders")
    assert.strictEqual(
      tierOf("update \"orders\" set total = 0", "postgresql").approvalHint,
      "updates every row of orders"
    )
    assert.strictEqual(
      tierOf("UPDATE OR IGNORE main.orders SET a = 1", "sqlite").approvalHint,
      "updates every row of main.orders"
    )
    assert.strictEqual(tierOf("DELETE FROM orders WHERE id IN (SELECT 1)", "sqlite").approvalHint, undefined)
    assert.strictEqual(
      tierOf("DELETE FROM orders RETURNING (SELECT 1 WHERE 1)", "sqlite").approvalHint,
      "deletes every row of orders"
    )
    assert.strictEqual(describeForApproval(tierOf("DELETE FROM orders", "sqlite")), "deletes every row of orders")
    assert.strictEqual(describeForApproval(tierOf("DROP TABLE orders", "sqlite")), "a destructive statement")
    assert.strictEqual(describeForApproval(tierOf("SELECT 1", "sqlite")), "a query")
  })
})
