// D-23: statements generated in the MySQL dialect are classified, then run on a real MariaDB inside
// `START TRANSACTION READ ONLY` (as dbdesk runs a safe statement); whatever changed the server's state must not
// have been called safe, and the dialect's wrappings must not lower the verdict of what the server runs.
import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import mysql from "mysql2/promise"
import { classifyStatement } from "../../../src/domain/StatementClassifier.ts"
import { type MariadbServer, startMariadb } from "../../support/MariadbHarness.ts"
import { describeMariadb } from "../../support/MariadbSuite.ts"

const FIXTURE = `
  DROP TABLE IF EXISTS sentinel, probe_t, sentinel2; DROP SEQUENCE IF EXISTS seq_ids; DROP PROCEDURE IF EXISTS touch; DROP FUNCTION IF EXISTS bumpf;
  CREATE TABLE sentinel (id INT PRIMARY KEY, v INT);
  INSERT INTO sentinel VALUES (1, 10), (2, 20), (3, 30);
  CREATE SEQUENCE seq_ids START WITH 1;
  CREATE PROCEDURE touch() MODIFIES SQL DATA UPDATE sentinel SET v = v + 1 WHERE id = 1;
  CREATE FUNCTION bumpf() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE sentinel SET v = v + 1 WHERE id = 2; RETURN 1; END`

/** Statements in the dialect: reads, writes the transaction stops, and hidden writes it does not stop. */
const BASES: ReadonlyArray<string> = [
  "SELECT v FROM sentinel WHERE id = 1",
  "SELECT COUNT(*), SUM(v) FROM sentinel",
  "SHOW TABLES",
  "SHOW CREATE TABLE sentinel",
  "EXPLAIN SELECT * FROM sentinel",
  "DESCRIBE sentinel",
  "SELECT bumpf()",
  "INSERT INTO sentinel VALUES (100, 1)",
  "UPDATE sentinel SET v = v + 1 WHERE id = 1",
  "DELETE FROM sentinel WHERE id = 2",
  "REPLACE INTO sentinel VALUES (1, 5)",
  "INSERT INTO sentinel VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v + 1",
  "SELECT GET_LOCK('dbdesk_probe', 0)",
  "DO GET_LOCK('dbdesk_probe', 0)",
  "SELECT NEXTVAL(seq_ids)",
  "SELECT NEXT VALUE FOR seq_ids",
  "SELECT v INTO @probe FROM sentinel WHERE id = 1",
  "SET @probe = 1",
  "CALL touch()",
  "SELECT * FROM sentinel WHERE id = 1 FOR UPDATE",
  "SELECT * FROM sentinel LOCK IN SHARE MODE",
  "HANDLER sentinel OPEN",
  "PREPARE p FROM 'DELETE FROM sentinel WHERE id = 3'",
  "EXECUTE IMMEDIATE 'DELETE FROM sentinel WHERE id = 3'",
  "TRUNCATE TABLE sentinel",
  "CREATE TABLE probe_t (x INT)",
  "RENAME TABLE sentinel TO sentinel2",
  "LOCK TABLES sentinel WRITE",
  "FLUSH TABLES",
  "SELECT v FROM sentinel WHERE id = 1 /*!, GET_LOCK('dbdesk_probe', 0) */",
  "SELECT v FROM sentinel /*M! WHERE id = NEXTVAL(seq_ids) */",
  "SELECT 1 /*!50000 INTO @probe */",
  "SELECT 1 --x, GET_LOCK('dbdesk_probe', 0)"
]

/** Wrappings that keep what MariaDB 10.11 runs: executable comments it runs, comments, backticks, case. */
const wrappings: ReadonlyArray<(sql: string) => string> = [
  (sql) => sql,
  (sql) => `/*! ${sql} */`,
  (sql) => `/*!50000 ${sql} */`,
  (sql) => `/*M! ${sql} */`,
  (sql) => `/*M!100500 ${sql} */`,
  (sql) => `# leading\n${sql}`,
  (sql) => `-- leading\n${sql} -- trailing`,
  (sql) => `/* leading */ ${sql}`,
  (sql) => sql.replace(/\b(sentinel|seq_ids)\b/g, "`$1`"),
  (sql) => sql.toLowerCase().replace(/\/\*m!/g, "/*M!") // MariaDB reads /*m! as a plain comment
]

interface ServerState {
  readonly rows: string
  readonly tables: string
  readonly sequence: string
}

describeMariadb("MySQL classifier verdicts against what MariaDB does in a read-only transaction", () => {
  let server: MariadbServer
  const stats = { cases: 0, changed: 0, stoppedByTransaction: 0 }

  const reset = () => server.admin().query(FIXTURE)
  const state = async (): Promise<ServerState> => {
    const admin = server.admin()
    const [rows] = await admin.query("SELECT COALESCE(GROUP_CONCAT(id, ':', v ORDER BY id), '') AS s FROM sentinel")
      .catch(() => [[{ s: "missing" }]])
    const [tables] = await admin.query(
      "SELECT GROUP_CONCAT(TABLE_NAME ORDER BY TABLE_NAME) AS s FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
    )
    const [sequence] = await admin.query("SELECT next_not_cached_value AS s FROM seq_ids").catch(
      () => [[{ s: "missing" }]]
    )
    const first = (result: unknown) => String((result as Array<{ s: unknown }>)[0]?.s)
    return { rows: first(rows), tables: first(tables), sequence: first(sequence) }
  }

  beforeAll(async () => {
    server = await startMariadb()
    await reset()
  }, 120_000)

  afterAll(async () => {
    console.info(
      `[classifier vs MariaDB] ${stats.cases} statements run: ${stats.changed} changed the server, ${stats.stoppedByTransaction} stopped by READ ONLY alone`
    )
    await server?.stop()
  }, 60_000)

  /** Runs one statement as dbdesk runs a safe one; reports whether anything outside the transaction changed. */
  const runReadOnly = async (sql: string): Promise<{ changed: boolean; errno: number | undefined }> => {
    const before = await state()
    const session = await mysql.createConnection({
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      database: server.database
    })
    let errno: number | undefined
    let sessionChanged = false
    try {
      await session.query("START TRANSACTION READ ONLY")
      await session.query(sql).catch((error: { errno?: number }) => {
        errno = error.errno ?? -1
      })
      await session.query("ROLLBACK").catch(() => undefined)
      const [probe] = await session.query(
        "SELECT @probe IS NOT NULL AS v, IS_USED_LOCK('dbdesk_probe') IS NOT NULL AS l"
      )
      const row = (probe as Array<{ v: number; l: number }>)[0]
      sessionChanged = row?.v === 1 || row?.l === 1
    } finally {
      await session.end().catch(() => undefined)
    }
    const after = await state()
    const changed = sessionChanged || JSON.stringify(before) !== JSON.stringify(after)
    if (changed) await reset()
    return { changed, errno }
  }

  it.live(
    "D-23: whatever changes the server inside READ ONLY was never classified safe; READ ONLY stops the rest",
    () =>
      Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            FastCheck.constantFrom(...BASES),
            FastCheck.constantFrom(...wrappings),
            async (base, wrap) => {
              const sql = wrap(base)
              const verdict = classifyStatement(sql, "mysql")
              const unwrapped = classifyStatement(base, "mysql")
              const outcome = await runReadOnly(sql)
              stats.cases++
              if (outcome.changed) stats.changed++
              if (verdict.tier === "safe" && outcome.errno === 1792) stats.stoppedByTransaction++
              if (outcome.changed) expect(verdict.tier, sql).not.toBe("safe")
              // a wrapping the server runs unchanged never lowers the verdict
              expect(verdict.tier === "safe" ? 0 : verdict.tier === "write" ? 1 : 2, sql).toBeGreaterThanOrEqual(
                unwrapped.tier === "safe" ? 0 : unwrapped.tier === "write" ? 1 : 2
              )
            }
          ),
          { numRuns: 100 }
        )
      ),
    120_000
  )

  it.live(
    "D-23: every base statement that changes the server unwrapped is non-safe (the oracle sees writes)",
    () =>
      Effect.promise(async () => {
        const changing: Array<string> = []
        for (const base of BASES) {
          if ((await runReadOnly(base)).changed) changing.push(base)
        }
        // the hidden writes a read-only transaction does not stop: the classifier is what holds them
        expect(changing).toEqual(
          expect.arrayContaining(["SELECT GET_LOCK('dbdesk_probe', 0)", "SET @probe = 1", "TRUNCATE TABLE sentinel"])
        )
        for (const sql of changing) expect(classifyStatement(sql, "mysql").tier, sql).not.toBe("safe")
      }),
    120_000
  )
})
