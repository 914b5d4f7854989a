import { assert, describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { classifyStatement, type StatementTier } from "../../src/domain/StatementClassifier.ts"

type Expected = StatementTier | "refused"

const verdictOf = (sql: string): Expected => {
  const classification = classifyStatement(sql, "mysql")
  return classification.reachesFilesOrCode ? "refused" : classification.tier
}

/** D-23: every executable-comment and hidden-write form the issue names, with the verdict it must get. */
export const MYSQL_FORMS: ReadonlyArray<readonly [string, string, Expected]> = [
  ["executable comment", "/*! DELETE FROM orders WHERE id = 1 */", "write"],
  ["executable comment hiding a drop", "/*!DROP TABLE orders*/", "destructive"],
  ["versioned executable comment", "/*!50000 UPDATE orders SET total = 0 WHERE id = 1 */", "write"],
  ["versioned executable comment, 6 digits", "SELECT 1 /*!100500 , GET_LOCK('x', 1) */", "write"],
  ["MariaDB executable comment", "/*M! INSERT INTO orders (id) VALUES (9) */", "write"],
  ["MariaDB versioned executable comment", "/*M!100500 TRUNCATE orders */", "destructive"],
  ["executable comment inside a read", "SELECT * FROM orders /*!, LOAD_FILE('/etc/passwd') */", "refused"],
  ["version newer than the server: the rest is code", "/*!99999 ' */ DROP TABLE orders -- ' */", "destructive"],
  ["# comment hiding nothing", "SELECT 1 # a comment\n", "safe"],
  ["--x is not a comment", "SELECT 1 --x, LOAD_FILE('/etc/passwd')", "refused"],
  ["backslash escape keeps the quote in the string", "SELECT 'it\\'s', LOAD_FILE('/etc/passwd')", "refused"],
  ["backtick identifier naming a refused function", "SELECT `load_file`('/etc/passwd')", "refused"],
  ["SELECT … INTO OUTFILE", "SELECT * FROM orders INTO OUTFILE '/tmp/orders.csv'", "refused"],
  ["SELECT … INTO DUMPFILE", "SELECT 0x41 INTO DUMPFILE '/tmp/x'", "refused"],
  ["SELECT … INTO @var", "SELECT total INTO @t FROM orders WHERE id = 1", "write"],
  ["LOAD DATA", "LOAD DATA INFILE '/etc/passwd' INTO TABLE orders", "refused"],
  ["LOAD DATA LOCAL", "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE orders", "refused"],
  ["LOAD_FILE()", "SELECT LOAD_FILE('/etc/passwd')", "refused"],
  ["HANDLER", "HANDLER orders OPEN", "write"],
  ["DO", "DO GET_LOCK('dbdesk', 10)", "write"],
  ["CALL", "CALL refresh_totals()", "write"],
  ["SET", "SET SESSION sql_mode = ''", "write"],
  ["SET GLOBAL", "SET GLOBAL general_log_file = '/var/www/shell.php'", "refused"],
  ["SET @@global.", "SET @@global.general_log = 1", "refused"],
  ["SET PERSIST", "SET PERSIST max_connections = 1", "refused"],
  ["SET SESSION", "SET @@session.autocommit = 0", "write"],
  ["SET STATEMENT … FOR a drop", "SET STATEMENT max_statement_time = 1 FOR DROP TABLE orders", "destructive"],
  ["LOCK TABLES", "LOCK TABLES orders WRITE", "write"],
  ["GET_LOCK()", "SELECT GET_LOCK('dbdesk', 10)", "write"],
  ["FLUSH", "FLUSH TABLES WITH READ LOCK", "write"],
  ["KILL", "KILL 42", "refused"],
  ["KILL QUERY", "KILL QUERY 42", "refused"],
  ["INSTALL PLUGIN", "INSTALL PLUGIN evil SONAME 'evil.so'", "refused"],
  ["CREATE FUNCTION … SONAME", "CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib_mysqludf_sys.so'", "refused"],
  ["PREPARE of a write", "PREPARE s FROM 'DELETE FROM orders'", "write"],
  ["PREPARE of a drop split in literals", "PREPARE s FROM 'DR' 'OP TABLE orders'", "destructive"],
  ["PREPARE from a variable", "PREPARE s FROM @sql", "destructive"],
  ["EXECUTE", "EXECUTE s", "write"],
  ["EXECUTE IMMEDIATE of a drop", "EXECUTE IMMEDIATE 'DROP TABLE orders'", "destructive"],
  ["EXECUTE IMMEDIATE of built text", "EXECUTE IMMEDIATE CONCAT('DR', 'OP TABLE orders')", "destructive"],
  ["REPLACE", "REPLACE INTO orders (id, total) VALUES (1, 0)", "write"],
  ["INSERT … ON DUPLICATE KEY UPDATE", "INSERT INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE total = 0", "write"],
  ["RENAME", "RENAME TABLE orders TO old_orders", "write"],
  ["TRUNCATE", "TRUNCATE TABLE orders", "destructive"],
  ["GRANT", "GRANT ALL ON *.* TO 'x'@'%'", "write"],
  ["REVOKE", "REVOKE SELECT ON shop.* FROM 'x'@'%'", "write"],
  ["FOR UPDATE", "SELECT * FROM orders FOR UPDATE", "write"],
  ["LOCK IN SHARE MODE", "SELECT * FROM orders LOCK IN SHARE MODE", "write"],
  ["NEXT VALUE FOR", "SELECT NEXT VALUE FOR order_ids", "write"],
  ["NEXTVAL()", "SELECT NEXTVAL(order_ids)", "write"],
  ["BINLOG", "BINLOG 'AAAA'", "refused"],
  ["SHUTDOWN", "SHUTDOWN", "refused"],
  ["EXPLAIN ANALYZE of a delete", "EXPLAIN ANALYZE DELETE FROM orders WHERE id = 1", "write"],
  ["DESC of a delete", "DESC DELETE FROM orders", "write"],
  ["two statements hidden in an executable comment", "SELECT 1 /*!; DROP TABLE orders */", "destructive"]
]

/** Reads the dialect offers that must stay safe. */
const SAFE_READS: ReadonlyArray<string> = [
  "SELECT * FROM `orders` WHERE `id` = 1",
  "SELECT \"double-quoted text\" AS t",
  "SHOW CREATE TABLE orders",
  "SHOW TABLES",
  "EXPLAIN FORMAT=JSON SELECT * FROM orders",
  "DESCRIBE orders",
  "SELECT 1 -- a comment\n",
  "SELECT 1--1",
  "WITH t AS (SELECT 1 AS x) SELECT x FROM t",
  "SELECT /*+ MAX_EXECUTION_TIME(1000) */ * FROM orders",
  "SELECT 'it\\'s' AS quoted"
]

describe("MySQL dialect of the statement classifier (D-23)", () => {
  it.each(MYSQL_FORMS)("D-23: %s is refused or held for approval", (_name, sql, expected) => {
    expect(verdictOf(sql)).toBe(expected)
  })

  it.each(SAFE_READS)("D-23: the read %j stays safe", (sql) => {
    expect(verdictOf(sql)).toBe("safe")
  })

  it("D-23: a backslash-escaped quote cannot hide a second statement under NO_BACKSLASH_ESCAPES", () => {
    const classification = classifyStatement("SELECT '\\'; DROP TABLE orders; -- '", "mysql")
    expect(classification.tier).toBe("destructive")
    expect(classification.statementCount).toBeGreaterThan(1)
  })

  const hidden = FastCheck.constantFrom(...MYSQL_FORMS.filter(([, , expected]) => expected !== "safe"))
  const opening = FastCheck.constantFrom("/*!", "/*!50000", "/*!80027", "/*M!", "/*M!100500", "/*!99999")
  const lineComment = FastCheck.constantFrom("# note\n", "-- note\n", "/* note */", "#\n", "-- \n")
  const caseChange = FastCheck.constantFrom<(s: string) => string>(
    (s) => s,
    (s) => s.toLowerCase(),
    (s) => s.toUpperCase()
  )

  it.prop(
    "D-23: a hidden write inside an executable comment, around comments and in any case, is never safe",
    [hidden, opening, lineComment, caseChange],
    ([[, sql, expected], open, comment, change]) => {
      const wrapped = `${comment}${open} ${change(sql)} */ ${comment}`
      const verdict = verdictOf(wrapped)
      assert.notStrictEqual(verdict, "safe", wrapped)
      if (expected === "refused") assert.strictEqual(verdict, "refused", wrapped)
    }
  )

  it.prop(
    "D-23: appending an executable comment with a write to a safe read never keeps it safe",
    [FastCheck.constantFrom(...SAFE_READS.filter((sql) => !/--|#/.test(sql))), hidden, opening],
    ([read, [, sql], open]) => {
      const appended = `${read} ${open} ; ${sql} */`
      assert.notStrictEqual(verdictOf(appended), "safe", appended)
    }
  )
})
